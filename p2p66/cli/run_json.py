"""The final tables of ``match`` and ``tournament`` as JSON documents (``--json``).

The same numbers as the printed tables, for a script: one versioned object
on standard output, keys as README.md lists them. Rates are fractions (0..1),
intervals are 95% ``[low, high]``, and an unbounded Elo is ``null``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the tables' modules load only with the command that needs them
    from p2p66.runner.run import RunConfig, RunOutcome
    from p2p66.runner.stats import Estimate, Summary
    from p2p66.runner.table_run import PairStat
    from p2p66.runner.tournament import Standings

MATCH_FORMAT: Final = "p2p66-match"
TOURNAMENT_FORMAT: Final = "p2p66-tournament"
VERSION: Final = 1


def write_json(document: dict[str, Any], stream: IO[str]) -> None:
    """One document, one line, ending in a newline."""
    stream.write(json.dumps(document, separators=(",", ":"), allow_nan=False) + "\n")
    stream.flush()


def match_json(config: RunConfig, outcome: RunOutcome) -> dict[str, Any]:
    """The final table of a two-player ``match``: each bot's row and A's score, Elo, SPRT."""
    s = outcome.summary(config)
    rate, low, high = s.win_rate
    rows = [
        {"label": label, "wins": won, "losses": lost, "draws": s.draws, "points": points,
         "forfeits": forfeits, "win_rate": win_rate}
        for label, won, lost, points, forfeits, win_rate in (
            (config.bot_a.label, s.wins, s.losses, s.points[0], s.forfeits[0],
             [_num(rate), _num(low), _num(high)]),
            (config.bot_b.label, s.losses, s.wins, s.points[1], s.forfeits[1],
             [_num(s.losses / max(1, s.games)), None, None]),
        )
    ]  # fmt: skip
    return {
        "format": MATCH_FORMAT,
        "version": VERSION,
        "unit": "hands" if config.mode == "hands" else "matches",
        "seed": config.seed,
        "duplicate": config.duplicate,
        "bots": rows,
        "summary": _summary(s, config),
        "forfeited": [
            {"game": r.game, **r.forfeit.to_json()} for r in outcome.results if r.forfeit
        ],
    }


def table_match_json(
    preset: str,
    labels: Sequence[str],
    *,
    matches: int,
    seed: int,
    duplicate: bool,
    wins: Sequence[tuple[int, tuple[float, float, float]]],
    pairs: Sequence[PairStat],
) -> dict[str, Any]:
    """The final table of a ``match`` for three or four: wins per bot, each pair's score."""
    return {
        "format": MATCH_FORMAT,
        "version": VERSION,
        "preset": preset,
        "unit": "matches",
        "games": matches,
        "seed": seed,
        "duplicate": duplicate,
        "bots": [
            {"seat": letter, "label": label, "wins": won, "win_rate": [_num(x) for x in rate]}
            for letter, label, (won, rate) in zip("ABCD", labels, wins, strict=False)
        ],
        "pairs": [{"a": pair.a, "b": pair.b, **_estimate(pair.estimate)} for pair in pairs],
    }


def tournament_json(
    fmt: str, configs: Sequence[RunConfig], outcomes: Sequence[RunOutcome], table: Standings | None
) -> dict[str, Any]:
    """The crosstable and ratings of a ``tournament`` (``standings`` null when none fit)."""
    names = [] if table is None else list(table.names)
    document: dict[str, Any] = {
        "format": TOURNAMENT_FORMAT,
        "version": VERSION,
        "kind": fmt,
        "unit": "hands" if configs[0].mode == "hands" else "matches",
        "games": sum(len(o.results) for o in outcomes),
        "seed": configs[0].seed,
        "duplicate": configs[0].duplicate,
        "pairings": [
            {"a": c.bot_a.label, "b": c.bot_b.label, "summary": _summary(o.summary(c), c)}
            for c, o in zip(configs, outcomes, strict=True)
        ],
        "standings": None,
    }
    if table is not None:
        order = sorted(range(len(names)), key=lambda i: -table.ratings[i].elo)
        document["standings"] = [
            {
                "rank": rank,
                "bot": names[i],
                "elo": _num(table.ratings[i].elo),
                "elo_error_95": _num(table.ratings[i].error),
                "points": table.total(i).points,
                "games": table.total(i).games,
                "against": {
                    names[j]: {"points": cell.points, "games": cell.games}
                    for j in order
                    if j != i and (cell := table.cells.get((i, j))) is not None
                },
            }
            for rank, i in enumerate(order, start=1)
        ]
    return document


def _summary(summary: Summary, config: RunConfig) -> dict[str, Any]:
    """A's side of the run, as the results file's ``summary`` record has it."""
    record = summary.to_json(config.sprt)
    record.pop("type", None)
    return record


def _estimate(e: Estimate) -> dict[str, Any]:
    return {
        "score": _num(e.score),
        "score_95": [_num(e.score_low), _num(e.score_high)],
        "elo": _num(e.elo),
        "elo_95": [_num(e.elo_low), _num(e.elo_high)],
    }


def _num(value: float) -> float | None:
    """JSON has no infinity: an unbounded value is null."""
    return None if math.isinf(value) or math.isnan(value) else round(value, 6)
