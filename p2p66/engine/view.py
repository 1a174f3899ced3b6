"""What one seat may know (the only thing bots and the UI ever see).

A ``PlayerView`` holds the seat's own hand, the public table (trump, talon,
trick, every card played and every trick's winner, announced marriages),
and the opponent's cards that were shown by a marriage or the trump exchange
and are still in their hand. It never holds the opponent's other cards or
the talon order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2p66.engine.cards import CARDS, NUM_CARD_IDS, Card, cards_in
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


def _table_sets(table: tuple[tuple[Card, ...], ...]) -> tuple[frozenset[Card], ...]:
    return tuple(frozenset(cards) for cards in table)


# Every finished trick a view can show, built once: views share them instead of rebuilding.
_TRICKS: Final = {
    (leader, lead, follow, winner): TrickRecord(leader, CARDS[lead], CARDS[follow], winner)
    for leader in (0, 1)
    for lead in range(NUM_CARD_IDS)
    for follow in range(NUM_CARD_IDS)
    for winner in (0, 1)
}
_PLAYED_LOW: Final = _table_sets(tuple(cards_in(mask) for mask in range(1 << 12)))
_PLAYED_HIGH: Final = _table_sets(tuple(cards_in(mask << 12) for mask in range(1 << 12)))


def view_of(state: HandState, seat: int) -> PlayerView:
    """The view of ``seat``; legal moves are filled in only when it is that seat's turn.

    Built at every decision of every game, so it is assembled from shared
    immutable pieces (card tuples and sets from tables, interned tricks)
    rather than card by card.
    """
    other = 1 - seat
    talon_left = state.talon_left
    closed = state.closed
    lead_card = state.lead_card
    hands = state.hands
    played = state.played
    log = state.tricks_log
    to_act = state.to_act
    return PlayerView(
        seat,
        state.options,
        state.dealer,
        state.phase,
        to_act,
        cards_in(hands[seat]),
        state.trump_suit,
        CARDS[state.trump_card] if talon_left > 0 else None,  # face down once closed: seen
        talon_left,
        closed,
        state.closer if closed else None,
        CARDS[lead_card] if lead_card >= 0 else None,
        state.lead_marriage,
        _PLAYED_LOW[played & 0xFFF] | _PLAYED_HIGH[played >> 12],
        tuple([_TRICKS[t] for t in log]) if log else (),
        (state.tricks[0], state.tricks[1]),
        state.score[seat],
        state.held[seat],
        state.score[other],
        state.held[other],
        state.close_snapshot[:2] if closed else None,
        hands[other].bit_count(),
        cards_in(state.shown[other] & hands[other]),
        tuple(state.marriages),
        tuple([MOVES[c] for c in state.legal_codes()]) if to_act == seat else (),
        state.result,
    )
