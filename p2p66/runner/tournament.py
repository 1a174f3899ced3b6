"""More than two bots: round-robin or gauntlet pairings, each an ordinary match run.

Every pairing plays the same deals (the same seed or deal book, so deal
pair k is the same cards in every pairing), which keeps the comparison
between opponents as fair as the one within a pairing. Each pairing's
results go to a results file of its own in the tournament's directory, so
``--resume`` continues each exactly as a match does. The ratings come from
one Bradley-Terry fit over all games (``runner/ratings.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Literal

from p2p66.runner.ratings import Rating, fit
from p2p66.runner.run import RunOutcome

Format = Literal["round-robin", "gauntlet"]


@dataclass(frozen=True, slots=True)
class Pairing:
    """One pairing of the tournament: its number and the two bots (by index)."""

    number: int
    a: int
    b: int


def pairings(count: int, format: Format) -> list[Pairing]:
    """Every pair of bots (round-robin), or the first bot against each other (gauntlet)."""
    if count < 2:
        raise ValueError("a tournament needs at least two bots")
    pairs = (
        combinations(range(count), 2)
        if format == "round-robin"
        else ((0, j) for j in range(1, count))
    )
    return [Pairing(n, a, b) for n, (a, b) in enumerate(pairs)]


def results_path(directory: Path, pairing: Pairing, names: Sequence[str]) -> Path:
    """``DIR/03-strong-vs-expert.ndjson``: the pairing's number and its bots, file-safe."""

    def safe(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)[:40].strip("_") or "bot"

    return (
        directory
        / f"{pairing.number:02d}-{safe(names[pairing.a])}-vs-{safe(names[pairing.b])}.ndjson"
    )


@dataclass(frozen=True, slots=True)
class Cell:
    """Row bot's result against column bot: points and games."""

    points: float
    games: int

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class Standings:
    """The crosstable and the ratings of a tournament."""

    names: tuple[str, ...]
    cells: dict[tuple[int, int], Cell]
    ratings: tuple[Rating, ...]

    def total(self, i: int) -> Cell:
        mine = [c for (row, _), c in self.cells.items() if row == i]
        return Cell(sum(c.points for c in mine), sum(c.games for c in mine))


def standings(
    names: Sequence[str], plan: Sequence[Pairing], outcomes: Sequence[RunOutcome]
) -> Standings:
    """Crosstable cells (both ways round) and one Bradley-Terry fit over every game."""
    cells: dict[tuple[int, int], Cell] = {}
    fitted: dict[tuple[str, str], tuple[float, int]] = {}
    for pairing, outcome in zip(plan, outcomes, strict=True):
        points = sum(r.score_a for r in outcome.results)
        games = len(outcome.results)
        cells[(pairing.a, pairing.b)] = Cell(points, games)
        cells[(pairing.b, pairing.a)] = Cell(games - points, games)
        if games:
            fitted[(names[pairing.a], names[pairing.b])] = (points, games)
    ratings = fit(list(names), fitted)
    return Standings(tuple(names), cells, tuple(ratings))


def crosstable_lines(table: Standings) -> list[str]:
    """The crosstable: ratings, totals, and each row bot's score against each column."""
    n = len(table.names)
    order = sorted(range(n), key=lambda i: -table.ratings[i].elo)
    width = max(4, *(len(name) for name in table.names))
    head = f"{'#':>2}  {'Bot':<{width}}  {'Elo':>6}  {'±95%':>5}  {'Score':>12}"
    head += "".join(f"  {k + 1:>6}" for k in range(n))  # columns in rank order
    lines = [head]
    for rank, i in enumerate(order, start=1):
        rating, total = table.ratings[i], table.total(i)
        row = (
            f"{rank:>2}  {table.names[i]:<{width}}  {rating.elo:>+6.0f}  {rating.error:>5.0f}  "
            f"{_points(total)}"
        )
        for j in order:
            cell = table.cells.get((i, j))
            row += "  " + (f"{'':>6}" if i == j or cell is None else f"{100 * cell.score:>5.1f}%")
        lines.append(row)
    lines.append("Columns are the bots by rank; a cell is the row bot's score against it.")
    return lines


def _points(cell: Cell) -> str:
    return f"{cell.points:g}/{cell.games}".rjust(12)
