"""What one seat may know (the only thing bots and the UI ever see).

A ``PlayerView`` holds the seat's own hand, the public table (trump, talon,
trick, every card played and every trick's winner, announced marriages),
and the opponent's cards that were shown by a marriage or the trump exchange
and are still in their hand. It never holds the opponent's other cards or
the talon order.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine import inputs
from p2p66.engine.cards import CARDS, Card, cards_of
from p2p66.engine.errors import EngineInputError
from p2p66.engine.moves import MOVES, Move
from p2p66.engine.options import RuleOptions
from p2p66.engine.scoring import HandResult
from p2p66.engine.state import HandState, Marriage, Phase, TrickRecord


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's knowledge of a hand, as plain typed values."""

    seat: int
    options: RuleOptions
    dealer: int
    phase: Phase
    to_act: int
    hand: tuple[Card, ...]
    trump_suit: int
    trump_card: Card | None  # the bottom card of the talon (face down if closed); None when taken
    talon_size: int
    closed: bool
    closer: int | None
    lead: Card | None
    lead_is_marriage: bool
    played: frozenset[Card]
    tricks: tuple[TrickRecord, ...]
    tricks_won: tuple[int, int]
    my_points: int
    my_held_points: int
    opponent_points: int
    opponent_held_points: int
    close_snapshot: tuple[int, int] | None  # opponent-of-closer's (tricks, points) at closing
    opponent_hand_size: int
    opponent_shown: tuple[Card, ...]
    marriages: tuple[Marriage, ...]
    legal: tuple[Move, ...]
    result: HandResult | None

    @property
    def my_turn(self) -> bool:
        return self.to_act == self.seat

    @property
    def talon_open(self) -> bool:
        return not self.closed and self.talon_size > 0

    @property
    def unseen(self) -> frozenset[Card]:
        """Cards this seat has not seen: in the opponent's hand or in the talon."""
        seen = set(self.hand) | set(self.played) | set(self.opponent_shown)
        if self.trump_card is not None:
            seen.add(self.trump_card)
        return frozenset(c for c in _deck(self.options) if c not in seen)


def _deck(options: RuleOptions) -> tuple[Card, ...]:
    return tuple(c for c in CARDS if options.deck_size == 24 or c.rank != 5)


def view_of(state: HandState, seat: int) -> PlayerView:
    """The view of ``seat``; legal moves are filled in only when it is that seat's turn."""
    if not isinstance(state, HandState):
        raise EngineInputError(f"view_of needs a HandState, not {type(state).__name__}")
    seat = inputs.seat(seat)
    other = 1 - seat
    trump_visible = state.talon_left > 0  # face down once closed, but everyone saw it
    legal = tuple(MOVES[c] for c in state.legal_codes()) if state.to_act == seat else ()
    return PlayerView(
        seat=seat,
        options=state.options,
        dealer=state.dealer,
        phase=state.phase,
        to_act=state.to_act,
        hand=tuple(cards_of(state.hands[seat])),
        trump_suit=state.trump_suit,
        trump_card=CARDS[state.trump_card] if trump_visible else None,
        talon_size=state.talon_left,
        closed=state.closed,
        closer=state.closer if state.closed else None,
        lead=CARDS[state.lead_card] if state.lead_card >= 0 else None,
        lead_is_marriage=state.lead_marriage,
        played=frozenset(cards_of(state.played)),
        tricks=tuple(state.tricks_history()),
        tricks_won=(state.tricks[0], state.tricks[1]),
        my_points=state.score[seat],
        my_held_points=state.held[seat],
        opponent_points=state.score[other],
        opponent_held_points=state.held[other],
        close_snapshot=state.close_snapshot[:2] if state.closed else None,
        opponent_hand_size=state.hands[other].bit_count(),
        opponent_shown=tuple(cards_of(state.shown[other] & state.hands[other])),
        marriages=tuple(state.marriages),
        legal=legal,
        result=state.result,
    )
