"""How a hand of a bidding game ended and what each side scores (RULES.md "Scoring", "Moon").

Kept apart from the state machine so that the marks arithmetic, the part
players argue about, reads as one page. A side is a partnership (seats 0+2
and 1+3) with four players, or a single player in cut-throat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from p2p66.engine.cards import SUIT_NAMES

if TYPE_CHECKING:
    from p2p66.engine.table.bidding import BiddingHand


class TableEnd(Enum):
    """How a hand of a bidding game was decided."""

    CONTRACT_MADE = "contract-made"
    CONTRACT_SET = "contract-set"
    MOON_MADE = "moon-made"
    MOON_FAILED = "moon-failed"
    ALL_PASSED = "all-passed"


@dataclass(frozen=True, slots=True)
class TableResult:
    """The result of one hand: per side its points, tricks and the marks it scores."""

    how: TableEnd
    bidder: int | None
    bid: int
    forced: bool  # the dealer was held to a bid of 1 (all_pass = dealer-bids-1)
    side_points: tuple[int, ...]  # card points + counted marriages + last-trick bonus
    side_tricks: tuple[int, ...]
    counted_marriages: tuple[int, ...]
    marks: tuple[int, ...]  # the change of each side's score (negative when set)
    bidder_side: int | None

    @property
    def made(self) -> bool:
        return self.how in (TableEnd.CONTRACT_MADE, TableEnd.MOON_MADE)

    def describe(self, side_names: tuple[str, ...], seat_names: tuple[str, ...]) -> str:
        """One sentence for people, e.g. 'North bid 2 (66) and made it with 71 points'."""
        if self.how is TableEnd.ALL_PASSED or self.bidder is None or self.bidder_side is None:
            return "Everybody passed: the hand is void and the deal passes left"
        who = seat_names[self.bidder]
        got = self.side_points[self.bidder_side]
        scores = ", ".join(
            f"{name} {mark:+d}" for name, mark in zip(side_names, self.marks, strict=True)
        )
        if self.how is TableEnd.MOON_MADE:
            text = f"{who} shot the moon and took all six tricks"
        elif self.how is TableEnd.MOON_FAILED:
            text = f"{who} shot the moon but lost a trick"
        else:
            held = " (held to 1 as dealer)" if self.forced else ""
            verdict = "made it" if self.how is TableEnd.CONTRACT_MADE else "was set"
            if who == "You" and not self.made:  # the seat's own screen names it "You"
                verdict = "were set"
            text = f"{who} bid {self.bid} ({33 * self.bid}){held} and {verdict} with {got} points"
        return f"{text}; marks: {scores}"


def score_bidding(s: BiddingHand) -> TableResult:
    """Score a fully played hand (rulings 7-9)."""
    opts = s.options
    sides = opts.sides
    points = [0] * sides
    tricks = [0] * sides
    for seat in range(opts.players):
        points[opts.side_of(seat)] += s.points[seat]
        tricks[opts.side_of(seat)] += s.tricks[seat]
    married = [0] * sides
    for seat, _suit, value in s.marriages:
        side = opts.side_of(seat)
        if tricks[side] > 0:
            married[side] += value
    totals = [p + m for p, m in zip(points, married, strict=True)]
    marks = [t // 33 for t in totals]
    bidder = s.bidder
    side = opts.side_of(bidder)
    if s.moon:
        made = s.tricks[bidder] == opts.hand_size
        how = TableEnd.MOON_MADE if made else TableEnd.MOON_FAILED
        marks[side] = opts.moon_marks if made else -opts.moon_marks
    else:
        made = totals[side] >= 33 * s.high_bid
        how = TableEnd.CONTRACT_MADE if made else TableEnd.CONTRACT_SET
        if not made:
            marks[side] = -s.high_bid
    return TableResult(
        how=how,
        bidder=bidder,
        bid=s.high_bid,
        forced=s.forced,
        side_points=tuple(totals),
        side_tricks=tuple(tricks),
        counted_marriages=tuple(married),
        marks=tuple(marks),
        bidder_side=side,
    )


def void_result(sides: int) -> TableResult:
    """Everybody passed under ``all_pass = redeal``: nobody scores."""
    zero = (0,) * sides
    return TableResult(TableEnd.ALL_PASSED, None, 0, False, zero, zero, zero, zero, None)


def trump_name(trump: int) -> str:
    return SUIT_NAMES[trump] if trump >= 0 else "not yet fixed"
