"""A match: game points carried from hand to hand up to ``match_target`` (RULES.md step 11).

The dealer alternates every hand. Ties under ``unclaimed_end = "points"``
score nothing and add one game point to the next hand's winner, cumulatively
(ruling 9). A ``Match`` is an immutable value; ``record`` returns the next one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p66.engine.errors import EngineInputError
from p2p66.engine.options import RuleOptions
from p2p66.engine.scoring import HandResult
from p2p66.engine.state import HandState, new_hand


@dataclass(frozen=True, slots=True)
class Match:
    """Game points, the next dealer, and every hand result so far."""

    options: RuleOptions
    first_dealer: int
    game_points: tuple[int, int] = (0, 0)
    results: tuple[HandResult, ...] = ()
    carry: int = 0

    @property
    def dealer(self) -> int:
        """The dealer of the next hand: alternates from ``first_dealer``."""
        return (self.first_dealer + len(self.results)) % 2

    @property
    def hand_number(self) -> int:
        """1-based number of the next hand."""
        return len(self.results) + 1

    @property
    def winner(self) -> int | None:
        target = self.options.match_target
        for seat in (0, 1):
            if self.game_points[seat] >= target:
                return seat
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def new_hand(self, deck: Sequence[int | str]) -> HandState:
        """The next hand from a deck order, with this match's dealer."""
        self._not_over("no further hand can be dealt")
        return new_hand(self.options, deck, self.dealer)

    def _not_over(self, what: str) -> None:
        if self.is_over:
            a, b = self.game_points
            raise EngineInputError(
                f"the match is over ({a}-{b} game points, target {self.options.match_target}): "
                f"{what}"
            )

    def record(self, result: HandResult) -> Match:
        """The match after a finished hand."""
        self._not_over("no further hand can be recorded")
        if not isinstance(result, HandResult):
            raise EngineInputError(f"record needs a HandResult, not {type(result).__name__}")
        points = list(self.game_points)
        carry = self.carry
        if result.winner is None:
            carry += 1
        else:
            points[result.winner] += result.game_points + carry
            carry = 0
        return Match(
            options=self.options,
            first_dealer=self.first_dealer,
            game_points=(points[0], points[1]),
            results=(*self.results, result),
            carry=carry,
        )
