"""A match of a bidding game: marks carried hand to hand up to ``match_target``.

The deal passes left after every hand, void ones included. The match ends
by RULES.md ruling 10: a bidding side that reached the target wins ("bidder
out"); otherwise the side with the highest score at or above the target;
two non-bidders tied for it (cut-throat) play another hand. A
``TableMatch`` is an immutable value; ``record`` returns the next one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p66.engine.table.bidding import BiddingHand, new_bidding_hand
from p2p66.engine.table.options import BiddingOptions
from p2p66.engine.table.scoring import TableResult


@dataclass(frozen=True, slots=True)
class TableMatch:
    """Scores per side, the next dealer, and every hand result so far."""

    options: BiddingOptions
    first_dealer: int
    scores: tuple[int, ...] = ()
    results: tuple[TableResult, ...] = ()
    winner: int | None = None  # the winning side, once the match is over

    def __post_init__(self) -> None:
        if not self.scores:
            object.__setattr__(self, "scores", (0,) * self.options.sides)
        if not 0 <= self.first_dealer < self.options.players:
            raise ValueError(f"first_dealer must be a seat 0..{self.options.players - 1}")

    @property
    def dealer(self) -> int:
        """The dealer of the next hand: passes left (clockwise) every hand."""
        return (self.first_dealer + len(self.results)) % self.options.players

    @property
    def hand_number(self) -> int:
        return len(self.results) + 1

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def new_hand(self, deck: Sequence[int]) -> BiddingHand:
        """The next hand from a deck order, with this match's dealer."""
        if self.is_over:
            raise ValueError("the match is over")
        return new_bidding_hand(self.options, deck, self.dealer)

    def record(self, result: TableResult) -> TableMatch:
        """The match after a finished hand."""
        if self.is_over:
            raise ValueError("the match is over")
        if len(result.marks) != self.options.sides:
            raise ValueError("the result is not of this game")
        scores = tuple(a + b for a, b in zip(self.scores, result.marks, strict=True))
        return TableMatch(
            options=self.options,
            first_dealer=self.first_dealer,
            scores=scores,
            results=(*self.results, result),
            winner=match_winner(scores, result.bidder_side, self.options.match_target),
        )


def match_winner(scores: Sequence[int], bidder_side: int | None, target: int) -> int | None:
    """Ruling 10: bidder out, else the unique highest side at or above the target."""
    if bidder_side is not None and scores[bidder_side] >= target:
        return bidder_side
    top = max(scores)
    if top < target:
        return None
    leaders = [side for side, s in enumerate(scores) if s == top]
    return leaders[0] if len(leaders) == 1 else None
