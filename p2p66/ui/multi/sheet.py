"""The score sheet of the games for three and four players: hand by hand, as on paper.

Bidding games: each hand's contract (or that everybody passed), whether it
was made or set or the moon made or failed, and each side's marks after it
with the change. Three-handed: who dealt and sat out, who won and how, and
the game points per seat, the dealer's capped share marked. Columns are as
wide as their contents; optional ones go first when the width is short.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine.table import TableEnd, TableMatch, TableResult, ThreeHandedMatch
from p2p66.ui.scoresheet import HOW_SHORT

RESULT = {
    TableEnd.CONTRACT_MADE: "made",
    TableEnd.CONTRACT_SET: "set",
    TableEnd.MOON_MADE: "moon made",
    TableEnd.MOON_FAILED: "moon failed",
    TableEnd.ALL_PASSED: "all passed",
}


@dataclass(frozen=True, slots=True)
class Column:
    """A column of the sheet: header, one cell per hand; right-aligned numbers."""

    header: str
    cells: tuple[str, ...]
    right: bool = False
    optional: bool = False

    @property
    def width(self) -> int:
        return max(len(self.header), *(len(c) for c in self.cells))

    def cell(self, text: str) -> str:
        return text.rjust(self.width) if self.right else text.ljust(self.width)


def layout(columns: list[Column], width: int) -> list[str]:
    """The header and one line per hand, dropping optional columns until it fits."""
    shown = list(columns)
    while sum(c.width + 2 for c in shown) - 2 > width and any(c.optional for c in shown):
        shown.remove(next(c for c in shown if c.optional))
    rows = len(columns[0].cells)
    lines = ["  ".join(c.cell(c.header) for c in shown).rstrip()]
    for i in range(rows):
        lines.append("  ".join(c.cell(c.cells[i]) for c in shown).rstrip())
    return lines


def contract_cell(result: TableResult, names: tuple[str, ...]) -> str:
    if result.bidder is None or result.how is TableEnd.ALL_PASSED:
        return "-"
    who = names[result.bidder]
    if result.how in (TableEnd.MOON_MADE, TableEnd.MOON_FAILED):
        return f"{who} moon"
    return f"{who} {result.bid}" + (" held" if result.forced else "")


def result_cell(result: TableResult) -> str:
    text = RESULT[result.how]
    if result.how in (TableEnd.CONTRACT_MADE, TableEnd.CONTRACT_SET):
        assert result.bidder_side is not None
        text += f", {result.side_points[result.bidder_side]} pts"
    return text


def _bidding_columns(
    match: TableMatch, seat_names: tuple[str, ...], sides: tuple[str, ...]
) -> list[Column]:
    """Every hand of a bidding match: contract, result, each side's marks (change)."""
    results = match.results
    n = match.options.players
    totals = [0] * match.options.sides
    per_side: list[list[str]] = [[] for _ in sides]
    for result in results:
        for side, mark in enumerate(result.marks):
            totals[side] += mark
            per_side[side].append(f"{totals[side]} ({mark:+d})")
    return [
        Column("hand", tuple(str(i + 1) for i in range(len(results))), right=True),
        Column(
            "dealer",
            tuple(seat_names[(match.first_dealer + i) % n] for i in range(len(results))),
            optional=True,
        ),
        Column("contract", tuple(contract_cell(r, seat_names) for r in results)),
        Column("result", tuple(result_cell(r) for r in results)),
        *(
            Column(name, tuple(cells), right=True)
            for name, cells in zip(sides, per_side, strict=True)
        ),
    ]


def _three_columns(match: ThreeHandedMatch, names: tuple[str, ...]) -> list[Column]:
    """Every deal of three-handed: dealer, winner and how, game points per seat (gain)."""
    results = match.results
    totals = [0, 0, 0]
    per_seat: list[list[str]] = [[], [], []]
    capped = match.options.dealer_scores == "as-winner-capped"
    for r in results:
        for seat in range(3):
            totals[seat] += r.gained[seat]
            mark = "*" if seat == r.dealer and capped else " "
            per_seat[seat].append(f"{totals[seat]} (+{r.gained[seat]}){mark}")
    return [
        Column("hand", tuple(str(i + 1) for i in range(len(results))), right=True),
        Column("dealer", tuple(names[r.dealer] for r in results)),
        Column(
            "won by", tuple(names[r.winner] if r.winner is not None else "tie" for r in results)
        ),
        Column(
            "how",
            tuple(HOW_SHORT[r.hand.how] if r.winner is not None else "tie, +1 on" for r in results),
            optional=True,
        ),
        *(Column(names[s], tuple(per_seat[s]), right=True) for s in range(3)),
    ]


def sheet_lines(
    match: TableMatch | ThreeHandedMatch,
    seat_names: tuple[str, ...],
    sides: tuple[str, ...],
    width: int = 80,
) -> list[str]:
    """The sheet: a title line, the header, one line per hand (a line saying so if none)."""
    target = match.options.match_target
    if not match.results:
        return ["Score sheet: no hand has ended yet."]
    if isinstance(match, TableMatch):
        title = f"Score sheet (marks to {target}; a set contract loses its bid):"
        return [title, *layout(_bidding_columns(match, seat_names, sides), width)]
    title = f"Score sheet (game points to {target}):"
    if match.options.dealer_scores == "as-winner-capped":
        title = f"Score sheet (game points to {target}; * dealer's capped share):"
    return [title, *layout(_three_columns(match, seat_names), width)]
