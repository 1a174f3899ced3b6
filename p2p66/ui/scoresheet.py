"""The match's score sheet: hand by hand, who won, how, the game points and the running score.

A card player keeps score on paper; this is that paper. It is built from the
hand results the table reports, so it says exactly what the replay says.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine import HandResult, HowEnded
from p2p66.ui.narrate import Voice

HOW_SHORT = {
    HowEnded.DECLARED_66: "declared 66",
    HowEnded.FALSE_DECLARATION: "false 66 called",
    HowEnded.CLOSER_SUCCEEDED: "closed and made it",
    HowEnded.CLOSER_FAILED: "closed but failed",
    HowEnded.LAST_TRICK: "last trick",
    HowEnded.MORE_POINTS: "more card points",
}


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One hand on the sheet; ``totals`` is the match score after it, by seat."""

    hand: int
    result: HandResult
    totals: tuple[int, int]


def sheet_lines(rows: tuple[SheetRow, ...], voice: Voice) -> list[str]:
    """The sheet as aligned lines (header first); one line saying so when no hand ended yet."""
    if not rows:
        return ["Score sheet: no hand has ended yet."]
    me, other = voice.seat, 1 - voice.seat
    names = {me: "you", other: voice.opponent}
    width = max(len("won by"), *(len(names[s]) for s in (me, other)))
    header = (
        f"{'hand':>4}  {'won by':<{width}}  {'how':<18}  {'pts':>3}  match (you-{names[other]})"
    )
    lines = ["Score sheet:", header]
    for row in rows:
        result = row.result
        who = names[result.winner] if result.winner is not None else "nobody"
        how = HOW_SHORT[result.how] if result.winner is not None else "tie"
        points = f"+{result.game_points}" if result.winner is not None else "0"
        score = f"{row.totals[me]}-{row.totals[other]}"
        lines.append(f"{row.hand:>4}  {who:<{width}}  {how:<18}  {points:>3}  {score}")
    return lines
