"""``three-handed``: three seats, each deal a two-player hand while the dealer sits out.

RULES.md "Preset three-handed" and ruling 11. The hand itself is the
two-player engine's ``HandState`` under ``hand_rules``, unchanged: the seat
left of the dealer is its seat 0 (the two-player non-dealer, who leads
first), the seat right of the dealer its seat 1 (the two-player dealer).
This module maps table seats to hand seats, gives the sitting-out dealer a
view of the public events only, and keeps the match: the winner's game
points, the dealer's capped share, the rotation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p66.engine.cards import CARDS, Card, cards_of
from p2p66.engine.errors import IllegalMoveError
from p2p66.engine.moves import MOVE_NOTATION, Move
from p2p66.engine.scoring import HandResult
from p2p66.engine.state import HandState, Marriage, Phase, TrickRecord, new_hand
from p2p66.engine.table.options import ThreeHandedOptions
from p2p66.engine.view import PlayerView, view_of


def hand_seats(dealer: int) -> tuple[int, int]:
    """Table seats of the two-player seats 0 (left of the dealer) and 1 (right of the dealer)."""
    return ((dealer + 1) % 3, (dealer + 2) % 3)


@dataclass(frozen=True, slots=True)
class ThreeHandedHand:
    """One deal: the two-player ``state`` and which table seats play it."""

    options: ThreeHandedOptions
    dealer: int
    state: HandState

    @classmethod
    def new(cls, options: ThreeHandedOptions, deck: Sequence[int], dealer: int) -> ThreeHandedHand:
        """A fresh deal from a deck of ``hand_rules``' cards in its canonical layout."""
        if not (isinstance(dealer, int) and 0 <= dealer < 3):
            raise ValueError(f"dealer must be a seat 0..2, not {dealer!r}")
        return cls(options, dealer, new_hand(options.hand_rules, deck, 1))

    @property
    def players(self) -> tuple[int, int]:
        return hand_seats(self.dealer)

    def table_seat(self, hand_seat: int) -> int:
        return self.players[hand_seat] if hand_seat >= 0 else -1

    def hand_seat(self, table_seat: int) -> int | None:
        """The two-player seat of ``table_seat``, None for the dealer."""
        players = self.players
        return players.index(table_seat) if table_seat in players else None

    @property
    def to_act(self) -> int:
        return self.table_seat(self.state.to_act)

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    @property
    def result(self) -> HandResult | None:
        return self.state.result

    @property
    def winner(self) -> int | None:
        """The table seat that won the hand (None: unfinished or tied)."""
        r = self.state.result
        return None if r is None or r.winner is None else self.table_seat(r.winner)

    def legal_codes(self) -> list[int]:
        return self.state.legal_codes()

    def apply(self, move: Move | str | int, seat: int | None = None) -> ThreeHandedHand:
        """A new deal after ``move`` by table ``seat`` (if given); IllegalMoveError says why not."""
        if seat is not None and seat != self.to_act:
            notation = _notation(move)
            if seat == self.dealer:
                raise IllegalMoveError(notation, "not your turn: the dealer sits out this hand")
            if not self.is_over:
                raise IllegalMoveError(notation, f"not your turn: it is seat {self.to_act}'s turn")
        return ThreeHandedHand(self.options, self.dealer, self.state.apply(move))

    def copy(self) -> ThreeHandedHand:
        """A copy whose ``state`` the caller may mutate (search)."""
        return ThreeHandedHand(self.options, self.dealer, self.state.copy())


@dataclass(frozen=True, slots=True)
class PublicHand:
    """What everyone at the table sees of a deal, in table seats."""

    phase: Phase
    to_act: int
    trump_suit: int
    trump_card: Card | None
    talon_size: int
    closed: bool
    closer: int | None
    lead: Card | None
    lead_is_marriage: bool
    tricks: tuple[TrickRecord, ...]  # leader and winner as table seats
    points: dict[int, int]  # card points per playing table seat
    held: dict[int, int]
    hand_sizes: dict[int, int]
    shown: dict[int, tuple[Card, ...]]
    marriages: tuple[Marriage, ...]  # seat as table seat
    result: HandResult | None  # in two-player seats; see ``ThreeHandedView.winner``


@dataclass(frozen=True, slots=True)
class ThreeHandedView:
    """One table seat's view: the two-player view of a player, the public deal for all."""

    seat: int
    options: ThreeHandedOptions
    dealer: int
    players: tuple[int, int]
    scores: tuple[int, int, int]
    public: PublicHand
    hand: PlayerView | None  # the two-player view (in hand seats); None for the dealer
    winner: int | None

    @property
    def sitting_out(self) -> bool:
        return self.seat == self.dealer

    @property
    def my_turn(self) -> bool:
        return self.public.to_act == self.seat


def public_hand(deal: ThreeHandedHand) -> PublicHand:
    s = deal.state
    ts = deal.table_seat
    return PublicHand(
        phase=s.phase,
        to_act=ts(s.to_act),
        trump_suit=s.trump_suit,
        trump_card=CARDS[s.trump_card] if s.talon_left > 0 else None,
        talon_size=s.talon_left,
        closed=s.closed,
        closer=ts(s.closer) if s.closed else None,
        lead=CARDS[s.lead_card] if s.lead_card >= 0 else None,
        lead_is_marriage=s.lead_marriage,
        tricks=tuple(
            TrickRecord(ts(t.leader), t.lead, t.follow, ts(t.winner)) for t in s.tricks_history()
        ),
        points={ts(i): s.score[i] for i in (0, 1)},
        held={ts(i): s.held[i] for i in (0, 1)},
        hand_sizes={ts(i): s.hands[i].bit_count() for i in (0, 1)},
        shown={ts(i): tuple(cards_of(s.shown[i] & s.hands[i])) for i in (0, 1)},
        marriages=tuple(Marriage(ts(m.seat), m.suit, m.points) for m in s.marriages),
        result=s.result,
    )


def three_handed_view(
    deal: ThreeHandedHand, seat: int, scores: tuple[int, int, int] = (0, 0, 0)
) -> ThreeHandedView:
    """The view of table ``seat``: the dealer gets the public deal only."""
    if not 0 <= seat < 3:
        raise ValueError(f"there is no seat {seat} at a table of 3")
    hand_seat = deal.hand_seat(seat)
    return ThreeHandedView(
        seat=seat,
        options=deal.options,
        dealer=deal.dealer,
        players=deal.players,
        scores=scores,
        public=public_hand(deal),
        hand=None if hand_seat is None else view_of(deal.state, hand_seat),
        winner=deal.winner,
    )


@dataclass(frozen=True, slots=True)
class ThreeHandedResult:
    """A finished deal as the match counts it: game points per table seat."""

    dealer: int
    winner: int | None  # table seat; None for a tie under unclaimed_end = points
    hand: HandResult
    gained: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class ThreeHandedMatch:
    """Game points per table seat, the tie carry, the next dealer, the results."""

    options: ThreeHandedOptions
    first_dealer: int
    scores: tuple[int, int, int] = (0, 0, 0)
    results: tuple[ThreeHandedResult, ...] = ()
    carry: int = 0

    @property
    def dealer(self) -> int:
        return (self.first_dealer + len(self.results)) % 3

    @property
    def hand_number(self) -> int:
        return len(self.results) + 1

    @property
    def winner(self) -> int | None:
        """The seat that reached the target (only a hand's winner can)."""
        for seat in range(3):
            if self.scores[seat] >= self.options.match_target:
                return seat
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def standings(self) -> tuple[int, int, int]:
        """Places 1..3 per seat: the winner first, the others by totals (ties shared)."""
        key = [(seat == self.winner, self.scores[seat]) for seat in range(3)]
        return tuple(1 + sum(k > key[s] for k in key) for s in range(3))  # type: ignore[return-value]

    def new_hand(self, deck: Sequence[int]) -> ThreeHandedHand:
        if self.is_over:
            raise ValueError("the match is over")
        return ThreeHandedHand.new(self.options, deck, self.dealer)

    def record(self, deal: ThreeHandedHand) -> ThreeHandedMatch:
        """The match after a finished deal (ruling 11)."""
        if self.is_over:
            raise ValueError("the match is over")
        result = deal.result
        if result is None:
            raise ValueError("the deal is not finished")
        if deal.dealer != self.dealer:
            raise ValueError(f"seat {self.dealer} deals this hand, not seat {deal.dealer}")
        scores = list(self.scores)
        gained = [0, 0, 0]
        carry = self.carry
        winner = deal.winner
        if winner is None:
            carry += 1
        else:
            points = result.game_points + carry
            carry = 0
            gained[winner] = points
            if self.options.dealer_scores == "as-winner-capped":
                cap = self.options.match_target - 1
                dealer_now = scores[deal.dealer]
                gained[deal.dealer] = max(0, min(dealer_now + points, cap) - dealer_now)
            scores = [a + b for a, b in zip(scores, gained, strict=True)]
        return ThreeHandedMatch(
            options=self.options,
            first_dealer=self.first_dealer,
            scores=(scores[0], scores[1], scores[2]),
            results=(
                *self.results,
                ThreeHandedResult(deal.dealer, winner, result, (gained[0], gained[1], gained[2])),
            ),
            carry=carry,
        )


def _notation(move: Move | str | int) -> str:
    if isinstance(move, Move):
        return move.notation
    if isinstance(move, int) and 0 <= move < len(MOVE_NOTATION):
        return MOVE_NOTATION[move]
    return str(move)
