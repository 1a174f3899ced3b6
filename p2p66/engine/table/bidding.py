"""One hand of a bidding game: north-american / south-bend (4 seats) and cut-throat (3).

RULES.md "Games for three and four players": a round of calls, then play
with trump fixed by the first card led, the strict follow duty on every
trick, marriages that count only for a side that takes a trick, and marks
per 33 points. Like the two-player ``HandState`` it is a value for the
public API (``apply`` returns a new state) and a mutable search state for
bots (``copy`` + ``apply_code_unchecked`` on integer codes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from p2p66.engine.cards import (
    CARD_CODES,
    CARD_POINTS,
    CARDS,
    KING,
    QUEEN,
    SUIT_MASKS,
    SUIT_NAMES,
    Card,
    ids_of,
)
from p2p66.engine.errors import IllegalMoveError
from p2p66.engine.moves import MARRY_BASE, PASS
from p2p66.engine.table.deal import check_table_deck, table_layout
from p2p66.engine.table.moves import (
    BID_BASE,
    NUM_TABLE_CODES,
    TABLE_NOTATION,
    bid_of,
    parse_table_move,
)
from p2p66.engine.table.options import BiddingOptions
from p2p66.engine.table.scoring import TableResult, score_bidding, void_result
from p2p66.engine.tricks import marriage_partner, marriage_suits, marriage_value


class TablePhase(IntEnum):
    """The decision points of the bidding games, plus the end of the hand."""

    BID = 0
    LEAD = 1
    FOLLOW = 2
    OVER = 3


@dataclass(frozen=True, slots=True)
class TableTrick:
    """A finished trick: its leader, each card with the seat that played it, the winner."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int


def follow_allowed(
    hand: int, led_suit: int, trump: int, best_led: int, best_trump: int, *, overtrump: bool
) -> int:
    """The follow duty (RULES.md, rulings 1-3) as a card mask.

    ``best_led`` is the highest card of the led suit in the trick, ``best_trump``
    the highest trump in it (-1: none); with trumps led they are the same card.
    """
    same = hand & SUIT_MASKS[led_suit]
    if same:
        if led_suit != trump and best_trump >= 0:
            return same  # already trumped: any card of the led suit
        return same & ((1 << best_led) - 1) or same
    trumps = hand & SUIT_MASKS[trump]
    if trumps:
        if overtrump and best_trump >= 0:
            return trumps & ((1 << best_trump) - 1) or trumps
        return trumps
    return hand


class BiddingHand:
    """One hand in progress. Treat as immutable unless you called ``copy()`` yourself."""

    __slots__ = (
        "best_led",
        "best_trump",
        "bidder",
        "calls",
        "dealer",
        "deck",
        "forced",
        "hands",
        "high_bid",
        "history",
        "leader",
        "marriages",
        "moon",
        "options",
        "out_seat",
        "phase",
        "played",
        "points",
        "result",
        "shown",
        "to_act",
        "trick",
        "tricks",
        "tricks_log",
        "trump",
        "widow",
        "widow_taker",
    )

    options: BiddingOptions
    deck: tuple[int, ...]
    dealer: int
    hands: list[int]
    widow: int
    widow_taker: int
    calls: list[tuple[int, int]]
    high_bid: int
    bidder: int
    forced: bool
    moon: bool
    out_seat: int
    phase: TablePhase
    to_act: int
    leader: int
    trump: int
    trick: list[tuple[int, int]]
    best_led: int
    best_trump: int
    tricks_log: list[tuple[int, tuple[tuple[int, int], ...], int]]
    points: list[int]
    tricks: list[int]
    marriages: list[tuple[int, int, int]]
    shown: list[int]
    played: int
    history: list[int]
    result: TableResult | None

    # ----------------------------------------------------------------- setup

    @classmethod
    def new(cls, options: BiddingOptions, deck: Sequence[int], dealer: int) -> BiddingHand:
        """A fresh hand from a deck order (canonical layout) and the dealer's seat."""
        n = options.players
        if not (isinstance(dealer, int) and 0 <= dealer < n):
            raise ValueError(f"dealer must be a seat 0..{n - 1}, not {dealer!r}")
        deck_t = tuple(deck)
        check_table_deck(deck_t)
        lay = table_layout(options)
        s = cls.__new__(cls)
        s.options = options
        s.deck = deck_t
        s.dealer = dealer
        s.hands = [0] * n
        for seat in range(n):
            for pos in lay.hand_positions(seat, dealer):
                s.hands[seat] |= 1 << deck_t[pos]
        s.widow = 0
        for pos in lay.widow:
            s.widow |= 1 << deck_t[pos]
        s.widow_taker = -1
        s.calls = []
        s.high_bid = 0
        s.bidder = -1
        s.forced = False
        s.moon = False
        s.out_seat = -1
        s.phase = TablePhase.BID
        s.to_act = (dealer + 1) % n
        s.leader = -1
        s.trump = -1
        s.trick = []
        s.best_led = -1
        s.best_trump = -1
        s.tricks_log = []
        s.points = [0] * n
        s.tricks = [0] * n
        s.marriages = []
        s.shown = [0] * n
        s.played = 0
        s.history = []
        s.result = None
        return s

    def copy(self) -> BiddingHand:
        """An independent copy (cheap: a handful of small lists)."""
        c = BiddingHand.__new__(BiddingHand)
        c.best_led = self.best_led
        c.best_trump = self.best_trump
        c.bidder = self.bidder
        c.calls = self.calls[:]
        c.dealer = self.dealer
        c.deck = self.deck
        c.forced = self.forced
        c.hands = self.hands[:]
        c.high_bid = self.high_bid
        c.history = self.history[:]
        c.leader = self.leader
        c.marriages = self.marriages[:]
        c.moon = self.moon
        c.options = self.options
        c.out_seat = self.out_seat
        c.phase = self.phase
        c.played = self.played
        c.points = self.points[:]
        c.result = self.result
        c.shown = self.shown[:]
        c.to_act = self.to_act
        c.trick = self.trick[:]
        c.tricks = self.tricks[:]
        c.tricks_log = self.tricks_log[:]
        c.trump = self.trump
        c.widow = self.widow
        c.widow_taker = self.widow_taker
        return c

    # ------------------------------------------------------------- queries

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def is_over(self) -> bool:
        return self.phase == TablePhase.OVER

    @property
    def led_suit(self) -> int:
        return self.trick[0][1] // 6 if self.trick else -1

    @property
    def active_seats(self) -> int:
        """Seats that play cards this hand (all, or all but a moon bidder's partner)."""
        return self.options.players - (1 if self.out_seat >= 0 else 0)

    def next_seat(self, seat: int) -> int:
        """The next seat clockwise that takes part in play."""
        n = self.options.players
        nxt = (seat + 1) % n
        return (nxt + 1) % n if nxt == self.out_seat else nxt

    def legal_codes(self) -> list[int]:
        """Legal move codes for the seat to act, in a stable order."""
        phase = self.phase
        if phase == TablePhase.BID:
            top = self.options.max_bid
            return [PASS, *range(BID_BASE + self.high_bid, BID_BASE + top)]
        hand = self.hands[self.to_act] if self.to_act >= 0 else 0
        if phase == TablePhase.LEAD:
            codes = ids_of(hand)
            for suit in marriage_suits(hand):
                king = suit * 6 + KING
                codes += (MARRY_BASE + king, MARRY_BASE + king + 1)
            return codes
        if phase == TablePhase.FOLLOW:
            return ids_of(self.follow_mask(hand))
        return []

    def follow_mask(self, hand: int) -> int:
        """The cards of ``hand`` the follow duty allows on the trick in progress."""
        return follow_allowed(
            hand,
            self.led_suit,
            self.trump,
            self.best_led,
            self.best_trump,
            overtrump=self.options.overtrump,
        )

    # --------------------------------------------------------- transitions

    def apply(self, move: str | int, seat: int | None = None) -> BiddingHand:
        """A new state after ``move`` (by ``seat``, if given); IllegalMoveError says why not."""
        code = _code_of(move)
        if seat is not None and seat != self.to_act:
            notation = TABLE_NOTATION[code]
            if self.phase == TablePhase.OVER:
                raise IllegalMoveError(notation, "the hand is over")
            what = "call" if self.phase == TablePhase.BID else "turn"
            if seat == self.out_seat:
                raise IllegalMoveError(
                    notation, f"not your {what}: your partner shot the moon and plays alone"
                )
            raise IllegalMoveError(notation, f"not your {what}: it is seat {self.to_act}'s {what}")
        self.check_legal(code)
        nxt = self.copy()
        nxt.apply_code_unchecked(code)
        return nxt

    def check_legal(self, code: int) -> None:
        """Raise IllegalMoveError with the reason unless ``code`` is legal now."""
        if code in self.legal_codes():
            return
        raise IllegalMoveError(TABLE_NOTATION[code], self._why_illegal(code))

    def apply_code_unchecked(self, code: int) -> None:
        """Fast path: apply a move known to be legal, in place (search bots only)."""
        self.history.append(code)
        seat = self.to_act
        if self.phase == TablePhase.BID:
            self._call(seat, bid_of(code))
        elif self.phase == TablePhase.FOLLOW:
            self._follow(seat, code)
        elif code < MARRY_BASE:
            self._lead(seat, code)
        else:
            self._marry(seat, code - MARRY_BASE)

    def _call(self, seat: int, bid: int) -> None:
        self.calls.append((seat, bid))
        if bid:
            self.high_bid = bid
            self.bidder = seat
        n = self.options.players
        if len(self.calls) < n:
            self.to_act = (seat + 1) % n
            return
        if not self.high_bid:
            if self.options.all_pass == "redeal":
                self._finish(void_result(self.options.sides))
                return
            self.high_bid, self.bidder, self.forced = 1, self.dealer, True
        if self.high_bid == 5:
            self.moon = True
            self.out_seat = (self.bidder + 2) % n
        self.phase = TablePhase.LEAD
        self.leader = self.to_act = self.bidder

    def _lead(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] ^= bit
        self.shown[seat] &= ~bit
        self.played |= bit
        suit = card // 6
        if self.trump < 0:
            self.trump = suit  # the first card led fixes trumps
        self.trick = [(seat, card)]
        self.best_led = card
        self.best_trump = card if suit == self.trump else -1
        self.phase = TablePhase.FOLLOW
        self.to_act = self.next_seat(seat)

    def _marry(self, seat: int, card: int) -> None:
        suit = card // 6
        trump = suit if self.trump < 0 else self.trump
        self.marriages.append((seat, suit, marriage_value(suit, trump)))
        self.shown[seat] |= 1 << marriage_partner(card)
        self._lead(seat, card)

    def _follow(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] ^= bit
        self.shown[seat] &= ~bit
        self.played |= bit
        self.trick.append((seat, card))
        suit = card // 6
        if suit == self.trick[0][1] // 6:
            if card < self.best_led:
                self.best_led = card
                if suit == self.trump:
                    self.best_trump = card
        elif suit == self.trump and (self.best_trump < 0 or card < self.best_trump):
            self.best_trump = card
        if len(self.trick) < self.active_seats:
            self.to_act = self.next_seat(seat)
            return
        self._take_trick()

    def _take_trick(self) -> None:
        best = self.best_trump if self.best_trump >= 0 else self.best_led
        winner = next(s for s, c in self.trick if c == best)
        self.points[winner] += sum(CARD_POINTS[c] for _, c in self.trick)
        self.tricks[winner] += 1
        self.tricks_log.append((self.trick[0][0], tuple(self.trick), winner))
        if self.widow and self.widow_taker < 0:
            self.widow_taker = winner  # cut-throat: the first trick's winner takes the widow
            self.points[winner] += sum(CARD_POINTS[c] for c in ids_of(self.widow))
        self.trick = []
        self.best_led = self.best_trump = -1
        if not self.hands[winner]:  # every active hand is empty: the last trick
            self.points[winner] += self.options.last_trick_bonus
            self._finish(score_bidding(self))
            return
        self.phase = TablePhase.LEAD
        self.leader = self.to_act = winner

    def _finish(self, result: TableResult) -> None:
        self.result = result
        self.phase = TablePhase.OVER
        self.to_act = -1

    # ------------------------------------------------------------- reasons

    def _why_illegal(self, code: int) -> str:
        """Plain words for why ``code`` is not legal now (for the UI and for cheaters)."""
        phase = self.phase
        notation = TABLE_NOTATION[code]
        bid = bid_of(code)
        if phase == TablePhase.OVER:
            return "the hand is over"
        if phase == TablePhase.BID:
            if code < BID_BASE and code != PASS:
                return "the bidding comes first: bid:N or pass"
            if bid > self.options.max_bid:
                if self.options.players == 3:
                    return "bids are 1 to 4 in cut-throat: there is no moon without a partner"
                return f"bids are 1 to {self.options.max_bid}"
            return (
                f"bid too low: the highest bid is {self.high_bid}; bid more or pass"
                if self.high_bid < self.options.max_bid
                else f"bid too low: {self.high_bid} is the highest possible bid; pass"
            )
        if bid or code == PASS:
            return "the bidding is over: play a card"
        if notation in ("exchange", "close", "declare", "draw"):
            return f"there is no {notation} in this game: play a card"
        card = code - MARRY_BASE if code >= MARRY_BASE else code
        hand = self.hands[self.to_act]
        if not hand >> card & 1:
            return f"{CARD_CODES[card]} is not in your hand"
        if phase == TablePhase.FOLLOW:
            if code >= MARRY_BASE:
                return "a marriage is announced when leading, not when following"
            return self._why_not_follow(hand, card)
        if card % 6 not in (KING, QUEEN):
            return "a marriage is announced with its king or queen"
        return f"marriage not held: you need both king and queen of {SUIT_NAMES[card // 6]}"

    def _why_not_follow(self, hand: int, card: int) -> str:
        led = self.led_suit
        trump = self.trump
        same = hand & SUIT_MASKS[led]
        if same:
            if card // 6 != led:
                return f"you must follow suit: {SUIT_NAMES[led]} was led"
            best = CARD_CODES[self.best_led]
            return f"you must beat the trick: play a {SUIT_NAMES[led]} higher than {best}"
        if card // 6 != trump:
            return f"you cannot follow suit, so you must trump ({SUIT_NAMES[trump]})"
        best = CARD_CODES[self.best_trump]
        return f"you must overtrump: play a trump higher than {best}"

    # -------------------------------------------------------------- viewing

    def hand_of(self, seat: int) -> list[Card]:
        return [CARDS[i] for i in ids_of(self.hands[seat])]

    def tricks_history(self) -> list[TableTrick]:
        return [
            TableTrick(leader, tuple((s, CARDS[c]) for s, c in plays), winner)
            for leader, plays, winner in self.tricks_log
        ]

    def moves_played(self) -> list[str]:
        return [TABLE_NOTATION[c] for c in self.history]

    def __repr__(self) -> str:
        hands = "/".join(" ".join(c.code for c in self.hand_of(s)) for s in range(self.players))
        return f"BiddingHand(phase={self.phase.name}, to_act={self.to_act}, hands={hands})"


def _code_of(move: str | int) -> int:
    if isinstance(move, str):
        return parse_table_move(move)
    if not 0 <= move < NUM_TABLE_CODES:
        raise IllegalMoveError(repr(move), "not a move code")
    return move


def new_bidding_hand(options: BiddingOptions, deck: Sequence[int], dealer: int) -> BiddingHand:
    """Start a hand: options, a deck order in the canonical layout, and the dealer's seat."""
    return BiddingHand.new(options, deck, dealer)
