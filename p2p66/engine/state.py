"""The state of one hand and its transitions: the rules of RULES.md, steps 1-10.

``HandState`` is built for two audiences. The public API treats it as a
value: ``state.apply(move)`` returns a new state and never changes the old
one. Search bots use the fast path: ``copy()`` plus ``apply_code_unchecked``
mutate in place with hands as bitmasks and moves as integer codes, so a
playout costs a few microseconds per move. Both paths run the same code.

Scoring (who wins the hand and how many game points) is in ``scoring.py``;
this module decides *when* the hand ends and calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, cast

from p2p66.engine import inputs
from p2p66.engine.cards import (
    CARD_CODES,
    CARD_POINTS,
    CARDS,
    KING,
    QUEEN,
    SUIT_MASKS,
    Card,
    ids_of,
)
from p2p66.engine.deal import check_deck, deal_layout, is_card_permutation
from p2p66.engine.errors import EngineInputError, IllegalMoveError
from p2p66.engine.moves import (
    CLOSE,
    DECLARE,
    DRAW,
    EXCHANGE,
    MARRY_BASE,
    MOVE_NOTATION,
    MOVES,
    PASS,
    Move,
    parse_move_code,
)
from p2p66.engine.options import RuleOptions
from p2p66.engine.scoring import HandResult, Outcome, score_hand

_RANK_INDEX: Final = {"9": 5, "J": 4}


class Phase(IntEnum):
    """The five decision points of RULES.md, plus the end of the hand."""

    LEAD = 0
    FOLLOW = 1
    DRAW = 2
    MARRIAGE_DECLARE = 3
    FINAL_DECLARE = 4
    OVER = 5


# The members as module constants: one global lookup instead of two in the hot paths.
_LEAD: Final = Phase.LEAD
_FOLLOW: Final = Phase.FOLLOW
_DRAW: Final = Phase.DRAW
_MARRIAGE_DECLARE: Final = Phase.MARRIAGE_DECLARE
_FINAL_DECLARE: Final = Phase.FINAL_DECLARE
_OVER: Final = Phase.OVER

# Bit of each king whose queen (the next id) is held too: ``hand & hand >> 1 & _KINGS``.
_KINGS: Final = sum(1 << (suit * 6 + KING) for suit in range(4))


def _marriage_codes(king_only: bool) -> dict[int, tuple[int, ...]]:
    """Marriage move codes for every set of kings with their queens, suit by suit."""
    table: dict[int, tuple[int, ...]] = {}
    for pairs in range(16):
        codes: list[int] = []
        for suit in range(4):
            if pairs >> suit & 1:
                king = MARRY_BASE + suit * 6 + KING
                codes.extend((king,) if king_only else (king, king + 1))
        table[sum(1 << (suit * 6 + KING) for suit in range(4) if pairs >> suit & 1)] = tuple(codes)
    return table


_MARRY_EITHER: Final = _marriage_codes(king_only=False)
_MARRY_KING: Final = _marriage_codes(king_only=True)


class _Rules:
    """The options the transitions ask at every move, as plain flags (no string compares).

    One per ``RuleOptions`` object, looked up when a state's options are set.
    """

    __slots__ = (
        "allow_close",
        "automatic",
        "close_before_first_trick",
        "credit_immediate",
        "draw_phase",
        "exchange_min_talon",
        "exchange_requires_trick",
        "last_trick_bonus",
        "marriage_table",
        "marriage_when_closed",
        "marriages_need_trick",
        "options",
    )

    def __init__(self, options: RuleOptions) -> None:
        self.options = options
        self.allow_close = options.allow_close
        self.automatic = options.declare == "automatic"
        self.close_before_first_trick = options.close_before_first_trick
        self.credit_immediate = options.marriage_credit == "immediate"
        self.draw_phase = options.close_before_draw and options.allow_close
        self.exchange_min_talon = options.exchange_min_talon
        self.exchange_requires_trick = options.exchange_requires_trick
        self.last_trick_bonus = options.last_trick_bonus
        self.marriage_table = _MARRY_KING if options.marriage_lead == "king" else _MARRY_EITHER
        self.marriage_when_closed = options.marriage_when_closed
        self.marriages_need_trick = options.marriage_needs_trick == "forbidden"


_RULES: dict[int, _Rules] = {}  # by id(options); each entry keeps its options alive


def _rules_of(options: RuleOptions) -> _Rules:
    rules = _RULES.get(id(options))
    if rules is None or rules.options is not options:
        if len(_RULES) >= 256:  # options made per game (from the wire) must not pile up
            _RULES.clear()
        rules = _RULES[id(options)] = _Rules(options)
    return rules


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """A finished trick: who led, the two cards, who won it."""

    leader: int
    lead: Card
    follow: Card
    winner: int


@dataclass(frozen=True, slots=True)
class Marriage:
    """A marriage announced by ``seat`` in ``suit`` worth ``points`` (20 or 40)."""

    seat: int
    suit: int
    points: int


class HandState:
    """One hand in progress. Treat as immutable unless you called ``copy()`` yourself."""

    __slots__ = (
        "_options",
        "_rules",
        "close_snapshot",
        "closed",
        "closer",
        "dealer",
        "deck",
        "exchange_card_rank",
        "hands",
        "held",
        "history",
        "lead_card",
        "lead_marriage",
        "leader",
        "marriages",
        "phase",
        "played",
        "result",
        "score",
        "shown",
        "stock",
        "stock_pos",
        "talon_left",
        "to_act",
        "tricks",
        "tricks_log",
        "tricks_played",
        "trump_card",
        "trump_suit",
        "won",
    )

    _options: RuleOptions
    _rules: _Rules
    deck: tuple[int, ...]
    dealer: int
    hands: list[int]
    stock: tuple[int, ...]
    stock_pos: int
    talon_left: int
    trump_card: int
    trump_suit: int
    exchange_card_rank: int
    closed: bool
    closer: int
    close_snapshot: tuple[int, int, bool]
    tricks: list[int]
    score: list[int]
    held: list[int]
    won: list[int]
    shown: list[int]
    marriages: list[Marriage]
    leader: int
    to_act: int
    phase: Phase
    lead_card: int
    lead_marriage: bool
    tricks_played: int
    played: int
    tricks_log: list[tuple[int, int, int, int]]
    history: list[int]
    result: HandResult | None

    # ----------------------------------------------------------------- setup

    @classmethod
    def new(cls, options: RuleOptions, deck: Sequence[int], dealer: int) -> HandState:
        """A fresh hand from a deck order (canonical layout) and the dealer's seat."""
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be seat 0 or 1, not {dealer!r}")
        deck_t = tuple(deck)
        check_deck(options, deck_t)
        return cls._deal(options, deck_t, dealer)

    @classmethod
    def _deal(cls, options: RuleOptions, deck_t: tuple[int, ...], dealer: int) -> HandState:
        """``new`` for a deck and dealer already checked."""
        lay = deal_layout(options)
        s = HandState()
        s.options = options
        s.deck = deck_t
        s.dealer = dealer
        non_dealer = 1 - dealer
        dealer_hand = other_hand = 0
        for pos in lay.non_dealer:
            other_hand |= 1 << deck_t[pos]
        for pos in lay.dealer:
            dealer_hand |= 1 << deck_t[pos]
        s.hands = [other_hand, dealer_hand] if dealer else [dealer_hand, other_hand]
        s.stock = tuple([deck_t[p] for p in lay.talon])
        s.stock_pos = 0
        s.trump_card = deck_t[lay.trump]
        s.talon_left = len(s.stock) + 1
        s.trump_suit = s.trump_card // 6
        s.exchange_card_rank = _RANK_INDEX[options.exchange_rank]
        s.closed = False
        s.closer = -1
        s.close_snapshot = (0, 0, False)
        s.tricks = [0, 0]
        s.score = [0, 0]
        s.held = [0, 0]
        s.won = [0, 0]
        s.shown = [0, 0]
        s.marriages = []
        s.leader = non_dealer
        s.to_act = non_dealer
        s.phase = Phase.LEAD
        s.lead_card = -1
        s.lead_marriage = False
        s.tricks_played = 0
        s.played = 0
        s.tricks_log = []
        s.history = []
        s.result = None
        return s

    def copy(self) -> HandState:
        """An independent copy (cheap: a handful of small lists)."""
        c = HandState()
        c._options = self._options
        c._rules = self._rules
        c.deck = self.deck
        c.dealer = self.dealer
        c.hands = self.hands[:]
        c.stock = self.stock
        c.stock_pos = self.stock_pos
        c.talon_left = self.talon_left
        c.trump_card = self.trump_card
        c.trump_suit = self.trump_suit
        c.exchange_card_rank = self.exchange_card_rank
        c.closed = self.closed
        c.closer = self.closer
        c.close_snapshot = self.close_snapshot
        c.tricks = self.tricks[:]
        c.score = self.score[:]
        c.held = self.held[:]
        c.won = self.won[:]
        c.shown = self.shown[:]
        c.marriages = self.marriages[:]
        c.leader = self.leader
        c.to_act = self.to_act
        c.phase = self.phase
        c.lead_card = self.lead_card
        c.lead_marriage = self.lead_marriage
        c.tricks_played = self.tricks_played
        c.played = self.played
        c.tricks_log = self.tricks_log[:]
        c.history = self.history[:]
        c.result = self.result
        return c

    # ------------------------------------------------------------- queries

    @property
    def options(self) -> RuleOptions:
        """The rules of this hand (setting them also sets the flags the moves ask)."""
        return self._options

    @options.setter
    def options(self, options: RuleOptions) -> None:
        self._options = options
        self._rules = _rules_of(options)

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def talon_open(self) -> bool:
        """Open = neither closed nor exhausted: no duty to follow, drawing goes on."""
        return not self.closed and self.talon_left > 0

    @property
    def exchange_card(self) -> int:
        """Card id of the trump card that may be exchanged (trump nine or jack)."""
        return self.trump_suit * 6 + self.exchange_card_rank

    def card_points(self, seat: int) -> int:
        """Captured cards + credited marriages + last-trick bonus (held marriages excluded)."""
        return self.score[seat]

    def legal_codes(self) -> list[int]:
        """Legal move codes for the player to act, in a stable order."""
        phase = self.phase
        if phase == _FOLLOW:
            hand = self.hands[self.to_act]
            if self.closed or self.talon_left <= 0:
                hand = strict_allowed(hand, self.lead_card, self.trump_suit)
            return ids_of(hand)
        if phase == _LEAD:
            return self._lead_codes(self.to_act)
        if phase == _DRAW:
            return [DRAW, CLOSE]
        if phase in (_MARRIAGE_DECLARE, _FINAL_DECLARE):
            return [DECLARE, PASS]
        return []

    def legal_moves(self) -> list[Move]:
        return [MOVES[c] for c in self.legal_codes()]

    def is_legal(self, code: int) -> bool:
        """Whether move ``code`` is legal now: ``code in legal_codes()``, without the list.

        Card plays, the moves that matter for speed, are judged on their own
        bit; the rarer moves ask the full list.
        """
        phase = self.phase
        if 0 <= code < MARRY_BASE and phase <= _FOLLOW:  # leading or following
            hand = self.hands[self.to_act]
            if phase == _FOLLOW and (self.closed or self.talon_left <= 0):
                hand = strict_allowed(hand, self.lead_card, self.trump_suit)
            return bool(hand >> code & 1)
        return code in self.legal_codes()

    def _lead_codes(self, seat: int) -> list[int]:
        hand = self.hands[seat]
        codes = ids_of(hand)
        rules = self._rules
        talon_open = not self.closed and self.talon_left > 0
        won_trick = self.tricks[seat] > 0
        if (talon_open or rules.marriage_when_closed) and (
            won_trick or not rules.marriages_need_trick
        ):
            pairs = hand & hand >> 1 & _KINGS
            if pairs:
                codes.extend(rules.marriage_table[pairs])
        if (
            talon_open
            and self.talon_left >= rules.exchange_min_talon
            and hand >> (self.trump_suit * 6 + self.exchange_card_rank) & 1
            and (won_trick or not rules.exchange_requires_trick)
        ):
            codes.append(EXCHANGE)
        if (
            rules.allow_close
            and talon_open
            and (self.tricks_played > 0 or rules.close_before_first_trick)
        ):
            codes.append(CLOSE)
        if self.tricks_played > 0 and not rules.automatic:
            codes.append(DECLARE)
        return codes

    # --------------------------------------------------------- transitions

    def apply(self, move: Move | str | int, seat: int | None = None) -> HandState:
        """A new state after ``move`` (by ``seat``, if given); IllegalMoveError says why not."""
        code = move.code if type(move) is Move else _code_of(move)
        if seat is not None:
            inputs.seat(seat)
        if seat is not None and seat != self.to_act:
            who = "nobody" if self.to_act < 0 else f"seat {self.to_act}"
            raise IllegalMoveError(MOVE_NOTATION[code], f"not your turn: it is {who}'s turn")
        if not self.is_legal(code):
            raise IllegalMoveError(MOVE_NOTATION[code], self._why_illegal(code))
        nxt = self.copy()
        nxt.apply_code_unchecked(code)
        return nxt

    def check_legal(self, code: int) -> None:
        """Raise IllegalMoveError with the reason unless ``code`` is legal now."""
        if type(code) is not int or not 0 <= code < len(MOVES):
            code = _code_of(code)  # refuses what is no move, with the engine's own error
        if self.is_legal(code):
            return
        raise IllegalMoveError(MOVE_NOTATION[code], self._why_illegal(code))

    def apply_code_unchecked(self, code: int) -> None:
        """Fast path: apply a move known to be legal, in place (search bots only)."""
        self.history.append(code)
        phase = self.phase
        seat = self.to_act
        if phase == _FOLLOW:
            self._follow(seat, code)
        elif code < MARRY_BASE:
            self._lead(seat, code)
        elif code < EXCHANGE:
            self._marry(seat, code - MARRY_BASE)
        elif code == EXCHANGE:
            ex = self.exchange_card
            self.hands[seat] ^= (1 << ex) | (1 << self.trump_card)
            self.shown[seat] |= 1 << self.trump_card
            self.trump_card = ex
        elif code == CLOSE:
            other = 1 - seat
            self.closed = True
            self.closer = seat
            self.close_snapshot = (self.tricks[other], self.score[other], self.tricks_played == 0)
            self.phase = _LEAD
        elif code == DECLARE:
            self._finish(Outcome.DECLARED, seat)
        elif code == DRAW:
            self._draw(seat)
            self.phase = _LEAD
        elif code == PASS:
            if phase == _MARRIAGE_DECLARE:
                self.phase = _FOLLOW
                self.to_act = 1 - seat
            else:
                self._finish(Outcome.RAN_OUT, seat)

    def _lead(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] ^= bit
        self.shown[seat] &= ~bit
        self.played |= bit
        self.lead_card = card
        self.lead_marriage = False
        self.phase = _FOLLOW
        self.to_act = 1 - seat

    def _marry(self, seat: int, card: int) -> None:
        suit = card // 6
        points = 40 if suit == self.trump_suit else 20
        self.marriages.append(Marriage(seat, suit, points))
        partner = card ^ 1 if card % 6 in (KING, QUEEN) else card
        self.shown[seat] |= 1 << partner
        rules = self._rules
        credited_now = rules.credit_immediate and self.tricks[seat] > 0
        if credited_now:
            self.score[seat] += points
        else:
            self.held[seat] += points
        self._lead(seat, card)
        self.lead_marriage = True
        if not rules.automatic:
            self.phase = _MARRIAGE_DECLARE
            self.to_act = seat
        elif credited_now and self.score[seat] >= 66:
            self._finish(Outcome.DECLARED, seat)

    def _follow(self, seat: int, card: int) -> None:
        bit = 1 << card
        hands = self.hands
        hands[seat] ^= bit
        self.shown[seat] &= ~bit
        lead = self.lead_card
        self.played |= bit
        leader = 1 - seat
        if card // 6 == lead // 6:
            winner = seat if card < lead else leader
        else:
            winner = seat if card // 6 == self.trump_suit else leader
        score = self.score
        score[winner] += CARD_POINTS[card] + CARD_POINTS[lead]
        held = self.held[winner]
        if held:
            score[winner] += held
            self.held[winner] = 0
        self.won[winner] |= bit | (1 << lead)
        self.tricks[winner] += 1
        self.tricks_played += 1
        self.tricks_log.append((leader, lead, card, winner))
        self.lead_card = -1
        self.lead_marriage = False
        self.leader = winner
        self.to_act = winner
        rules = self._rules
        automatic = rules.automatic
        if not hands[seat]:  # that was the last trick
            if not self.closed:
                score[winner] += rules.last_trick_bonus
            if automatic and score[winner] >= 66:
                self._finish(Outcome.DECLARED, winner)
            elif not self.closed:
                self._finish(Outcome.EXHAUSTED, winner)
            elif automatic:
                self._finish(Outcome.RAN_OUT, winner)
            else:
                self.phase = _FINAL_DECLARE
            return
        if automatic and score[winner] >= 66:
            self._finish(Outcome.DECLARED, winner)
        elif not self.closed and self.talon_left > 0:
            if rules.draw_phase:
                self.phase = _DRAW
            else:
                self._draw(winner)
                self.phase = _LEAD
        else:
            self.phase = _LEAD

    def _draw(self, winner: int) -> None:
        """Winner takes the top card, loser the next; the face-up trump comes last."""
        hands = self.hands
        for taker in (winner, 1 - winner):
            if self.talon_left == 1:
                card = self.trump_card
                self.shown[taker] |= 1 << card  # everyone sees who takes the face-up card
            else:
                card = self.stock[self.stock_pos]
                self.stock_pos += 1
            hands[taker] |= 1 << card
            self.talon_left -= 1

    def _finish(self, outcome: Outcome, seat: int) -> None:
        self.result = score_hand(self, outcome, seat)
        self.phase = Phase.OVER
        self.to_act = -1

    # ------------------------------------------------------------- reasons

    def _why_illegal(self, code: int) -> str:
        """Plain words for why ``code`` is not legal now (for the UI and for cheaters)."""
        phase = self.phase
        seat = self.to_act
        move = MOVES[code]
        hand = self.hands[seat] if seat >= 0 else 0
        if phase == Phase.OVER:
            return "the hand is over"
        if phase == Phase.DRAW and code not in (DRAW, CLOSE):
            return "you won the trick: first draw from the talon (draw) or close it (close)"
        if phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE) and code not in (DECLARE, PASS):
            return "first answer whether you declare 66 (declare) or not (pass)"
        if move.kind == "draw":
            return "drawing happens only right after winning a trick"
        if move.kind == "pass":
            return "there is nothing to pass on now"
        if move.card is not None and not hand >> move.card.id & 1:
            return f"{move.card.code} is not in your hand"
        if phase == Phase.FOLLOW:
            if move.kind != "play":
                return "you are following: only playing a card is possible now"
            return self._why_not_follow(hand, move.card.id if move.card else 0)
        if move.kind == "marry" and move.card is not None:
            return self._why_not_marry(seat, hand, move.card)
        if move.kind == "exchange":
            return self._why_not_exchange(seat, hand)
        if move.kind == "close":
            if not self.options.allow_close:
                return "closing is not allowed under these rules"
            if not self.talon_open:
                return "the talon is already closed or exhausted"
            return "closing before the first trick is not allowed under these rules"
        if move.kind == "declare":
            if self.options.declare == "automatic":
                return "66 is declared automatically under these rules"
            return "nothing has been won yet: declaring is possible after the first trick"
        return "not allowed now"

    def _why_not_follow(self, hand: int, card: int) -> str:
        lead = self.lead_card
        same = hand & SUIT_MASKS[lead // 6]
        lead_code = CARD_CODES[lead]
        if same:
            if card // 6 != lead // 6:
                return f"the talon is closed or exhausted: you must follow suit to {lead_code}"
            return f"you must win the trick: play a higher card than {lead_code}"
        return "you cannot follow suit, so you must play a trump"

    def _why_not_marry(self, seat: int, hand: int, card: Card) -> str:
        if card.rank not in (KING, QUEEN):
            return "a marriage is announced with its king or queen"
        partner = card.id ^ 1
        if not hand >> partner & 1:
            return f"you need both king and queen of {card.name().split(' of ')[1]} for a marriage"
        if not (self.talon_open or self.options.marriage_when_closed):
            return "marriage not allowed now: the talon is closed or exhausted"
        if self.options.marriage_needs_trick == "forbidden" and self.tricks[seat] == 0:
            return "marriage not allowed before you have won a trick"
        return "a marriage must be led with the king under these rules"

    def _why_not_exchange(self, seat: int, hand: int) -> str:
        if not self.talon_open:
            return "talon closed or exhausted: no exchange"
        if self.talon_left < self.options.exchange_min_talon:
            return "the talon is too small for an exchange"
        if not hand >> self.exchange_card & 1:
            return f"the exchange needs {CARD_CODES[self.exchange_card]} in your hand"
        return "the exchange needs a won trick"

    # -------------------------------------------------------------- viewing

    def hand_of(self, seat: int) -> list[Card]:
        return [CARDS[i] for i in ids_of(self.hands[seat])]

    def tricks_history(self) -> list[TrickRecord]:
        return [TrickRecord(a, CARDS[b], CARDS[c], d) for a, b, c, d in self.tricks_log]

    def moves_played(self) -> list[str]:
        return [MOVE_NOTATION[c] for c in self.history]

    def __repr__(self) -> str:
        return (
            f"HandState(phase={self.phase.name}, to_act={self.to_act}, "
            f"hands={[CARD_CODES[c] for c in ids_of(self.hands[0])]}/"
            f"{[CARD_CODES[c] for c in ids_of(self.hands[1])]}, score={self.score})"
        )


def strict_allowed(hand: int, lead: int, trump_suit: int) -> int:
    """Ruling 8 as a card mask: follow suit (higher if possible), else trump, else anything."""
    same = hand & SUIT_MASKS[lead // 6]
    if same:
        return same & ((1 << lead) - 1) or same
    return hand & SUIT_MASKS[trump_suit] or hand


def _code_of(move: object) -> int:
    if isinstance(move, Move):
        return move.code
    if isinstance(move, str):
        return parse_move_code(move)
    if not isinstance(move, int) or isinstance(move, bool) or not 0 <= move < len(MOVES):
        raise IllegalMoveError(
            repr(move),
            f"not a move code: expected a Move, its notation (like 'play:AC') or a code "
            f"0..{len(MOVES) - 1}",
        )
    return move


def new_hand(options: RuleOptions, deck: Sequence[int | str], dealer: int) -> HandState:
    """Start a hand: options, a deck order in the canonical layout (card ids or card codes
    like 'AC'), and the dealer's seat; EngineError saying what was expected otherwise."""
    if not isinstance(options, RuleOptions):
        raise EngineInputError(f"options must be RuleOptions, not {type(options).__name__}")
    kind = type(deck)
    if (kind is tuple or kind is list) and is_card_permutation(options, deck):
        # Plain card ids, every deal of a bot run: checked once, nothing to convert.
        ids = cast("tuple[int, ...]", tuple(deck))
        return HandState._deal(options, ids, inputs.seat(dealer, "dealer"))
    return HandState.new(options, inputs.deck_ids(deck), inputs.seat(dealer, "dealer"))
