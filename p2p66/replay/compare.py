"""Two replay files of the same game, side by side: identical, one cut short, or forked.

Both players write every record, so their files of one game should be the
same bytes. One may hold fewer records (it stopped writing earlier, or the
game was cut); if they differ in a record both hold, one of the files was
altered or a player signed two different records for the same place.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.replay.verify import Verification


@dataclass(frozen=True, slots=True)
class Comparison:
    """``relation``: ``identical``, ``shorter`` / ``longer`` (this file against the other),
    or ``forked`` at ``record`` (the first record index where the files differ)."""

    relation: str
    record: int | None = None
    extra: int = 0  # records one file holds beyond the other

    def describe(self, other: str) -> str:
        if self.relation == "identical":
            return f"same game as {other}: identical records"
        if self.relation == "shorter":
            return f"same game as {other}, which holds {self.extra} more records"
        if self.relation == "longer":
            return f"same game as {other}, which holds {self.extra} fewer records"
        return (
            f"same game as {other}, but the files differ from record {self.record} on: "
            "one was altered, or a player signed two different records"
        )


def same_game(a: Verification, b: Verification) -> bool:
    """Both files reached the coin flip and got the same session id."""
    sa, sb = a.report.session_id, b.report.session_id
    return sa is not None and sa == sb


def compare(a: Verification, b: Verification) -> Comparison:
    """How file ``a`` relates to file ``b`` (of the same game)."""
    for index, (x, y) in enumerate(zip(a.records, b.records, strict=False)):
        if x != y:
            return Comparison("forked", index)
    extra = abs(len(a.records) - len(b.records))
    if extra == 0:
        return Comparison("identical")
    return Comparison("shorter" if len(a.records) < len(b.records) else "longer", extra=extra)
