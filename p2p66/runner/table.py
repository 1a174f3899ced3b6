"""One hand under the referee: the true state, the public record, and each seat's ``Turn``.

The referee is the only holder of the full state; what a bot gets is built
here, in one place, from the view of the seat to act plus the public moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from p2p66.bots.api import PublicMove, Turn
from p2p66.engine.cards import CARDS, Card
from p2p66.engine.deal import deal_layout
from p2p66.engine.moves import MOVES
from p2p66.engine.options import RuleOptions
from p2p66.engine.state import HandState, new_hand
from p2p66.engine.view import view_of


def first_trump(options: RuleOptions, deck: Sequence[int]) -> Card:
    """The card turned up at the deal (public from the start)."""
    return CARDS[deck[deal_layout(options).trump]]


class HandTable:
    """A hand being played: ``turn()`` for the seat to act, ``play(code)`` to go on."""

    def __init__(
        self,
        state: HandState,
        trump: Card,
        *,
        hand_number: int = 1,
        match_points: tuple[int, int] = (0, 0),
    ) -> None:
        self.state = state
        self.first_trump = trump
        self.hand_number = hand_number
        self.match_points = match_points
        self.log: list[PublicMove] = []

    @classmethod
    def deal(cls, options: RuleOptions, deck: Sequence[int], dealer: int) -> HandTable:
        return cls(new_hand(options, deck, dealer), first_trump(options, deck))

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def turn(self, time_limit: float | None = None) -> Turn:
        """What the seat to act may know now (built at every decision: positional, no kwargs)."""
        state = self.state
        return Turn(
            view_of(state, state.to_act),
            tuple(self.log),
            self.first_trump,
            self.hand_number,
            self.match_points,
            time_limit,
        )

    def play(self, code: int) -> None:
        """Apply a move already checked to be legal, and record it publicly."""
        seat = self.state.to_act
        self.state.apply_code_unchecked(code)
        self.log.append(_PUBLIC_MOVES[seat][code])


# Public moves are immutable values: one per seat and move, shared by every log.
_PUBLIC_MOVES: Final = tuple(tuple(PublicMove(seat, move) for move in MOVES) for seat in (0, 1))
