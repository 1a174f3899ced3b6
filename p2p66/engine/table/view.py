"""What one seat of a bidding game may know (the only thing bots and the UI see).

A ``TableView`` holds the seat's own hand and the public table: every call,
the trump once fixed, every card played and by whom, each trick's winner,
the marriages announced with the card each one showed, the widow once taken,
the cards each seat holds (counts only) and the match scores. It never holds
a hidden card of another seat, a partner's included, nor the widow before it
is shown, nor the cards of a hand laid down under a moon.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine.cards import CARDS, Card, cards_of
from p2p66.engine.table.bidding import BiddingHand, TablePhase, TableTrick
from p2p66.engine.table.options import BiddingOptions
from p2p66.engine.table.scoring import TableResult


@dataclass(frozen=True, slots=True)
class TableMarriage:
    """A marriage announced by ``seat`` in ``suit`` worth ``points`` (20 or 40)."""

    seat: int
    suit: int
    points: int


@dataclass(frozen=True, slots=True)
class TableView:
    """One seat's knowledge of a hand of a bidding game, as plain typed values."""

    seat: int
    options: BiddingOptions
    dealer: int
    phase: TablePhase
    to_act: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    calls: tuple[tuple[int, int], ...]  # (seat, bid), 0 = pass, in calling order
    bidder: int | None
    bid: int
    forced: bool
    moon: bool
    out_seat: int | None  # the moon bidder's partner, whose hand is laid down
    trump: int | None
    trick: tuple[tuple[int, Card], ...]  # the trick in progress, in play order
    tricks: tuple[TableTrick, ...]
    tricks_won: tuple[int, ...]
    points: tuple[int, ...]  # card points captured per seat (widow included)
    marriages: tuple[TableMarriage, ...]
    shown: tuple[tuple[Card, ...], ...]  # per seat: cards shown by a marriage, still held
    widow: tuple[Card, ...]  # empty until the first trick's winner takes it
    widow_taker: int | None
    scores: tuple[int, ...]  # each side's marks in the match before this hand
    legal: tuple[int, ...]  # move codes, only when it is this seat's turn
    result: TableResult | None
    moves: tuple[int, ...]  # every move of the hand so far (all of them are public)

    @property
    def my_turn(self) -> bool:
        return self.to_act == self.seat

    @property
    def my_side(self) -> int:
        return self.options.side_of(self.seat)

    @property
    def partner(self) -> int | None:
        return (self.seat + 2) % 4 if self.options.players == 4 else None

    @property
    def unseen(self) -> frozenset[Card]:
        """Cards this seat has not seen: in other hands or in the face-down widow."""
        seen = set(self.hand) | set(self.widow)
        for t in self.tricks:
            seen.update(c for _, c in t.plays)
        seen.update(c for _, c in self.trick)
        for cards in self.shown:
            seen.update(cards)
        return frozenset(c for c in CARDS if c not in seen)


def table_view(state: BiddingHand, seat: int, scores: tuple[int, ...] = ()) -> TableView:
    """The view of ``seat``; ``scores`` are the match scores per side before this hand."""
    n = state.options.players
    if not 0 <= seat < n:
        raise ValueError(f"there is no seat {seat} at a table of {n}")
    legal = tuple(state.legal_codes()) if state.to_act == seat else ()
    return TableView(
        seat=seat,
        options=state.options,
        dealer=state.dealer,
        phase=state.phase,
        to_act=state.to_act,
        hand=tuple(cards_of(state.hands[seat])),
        hand_sizes=tuple(h.bit_count() for h in state.hands),
        calls=tuple(state.calls),
        bidder=state.bidder if state.bidder >= 0 else None,
        bid=state.high_bid,
        forced=state.forced,
        moon=state.moon,
        out_seat=state.out_seat if state.out_seat >= 0 else None,
        trump=state.trump if state.trump >= 0 else None,
        trick=tuple((s, CARDS[c]) for s, c in state.trick),
        tricks=tuple(state.tricks_history()),
        tricks_won=tuple(state.tricks),
        points=tuple(state.points),
        marriages=tuple(TableMarriage(*m) for m in state.marriages),
        shown=tuple(tuple(cards_of(state.shown[s] & state.hands[s])) for s in range(n)),
        widow=tuple(cards_of(state.widow)) if state.widow_taker >= 0 else (),
        widow_taker=state.widow_taker if state.widow_taker >= 0 else None,
        scores=scores or (0,) * state.options.sides,
        legal=legal,
        result=state.result,
        moves=tuple(state.history),
    )
