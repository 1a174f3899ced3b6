"""The rules under partial knowledge: check moves when some deck positions are unknown.

In a network game neither peer (nor a third party reading a replay before
the seeds are revealed) knows the whole deck. ``PartialHand`` tracks what is
known position by position and judges each move as the rules would, with one
twist: a card-play whose legality depends on hidden cards (the strict duty
to follow, beat or trump) is accepted if *some* arrangement of the hidden
cards makes it legal, and rejected only if none does. That is exact: a
move it rejects is provably illegal; a move it accepts can still be shown
illegal once the hand's seeds are revealed, when ``full_replay`` re-runs the
hand with every card known.

Everything else (turn order, tricks, points, talon, marriages, declarations)
depends only on public cards, so the engine's answers are exact.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeVar

from p2p66.engine.cards import CARD_CODES, SUIT_MASKS, deck_ids
from p2p66.engine.deal import deal_layout
from p2p66.engine.errors import DealError
from p2p66.engine.options import RuleOptions
from p2p66.engine.state import HandState, Phase, new_hand


def _cards_needed(code: int) -> tuple[int | None, ...]:
    """Cards a move shows, which must be opened (known) before it can be judged."""
    if code < 24:
        return (code,)
    if code < 48:
        return (code - 24, (code - 24) ^ 1)
    return ()


class KnowledgeConflict(DealError):
    """Two different cards claimed for one position, or one card at two positions."""


class JudgedState(Protocol):
    """What a partial judge needs of a game's hand state (two-player or table)."""

    hands: list[int]

    @property
    def to_act(self) -> int: ...

    def copy(self) -> Self: ...

    def check_legal(self, code: int) -> None: ...

    def apply_code_unchecked(self, code: int) -> None: ...

    def apply(self, move: int) -> Self: ...


S = TypeVar("S", bound=JudgedState)


@dataclass(frozen=True, slots=True)
class Accepted(Generic[S]):
    """A move judged legal, and the state it leads to."""

    state: S
    provisional: bool  # True when hidden cards were assumed so that the move is legal


class PartialDeal(Generic[S]):
    """One hand seen through partial knowledge of the deck (position -> card).

    The game-independent part: what is known where, the replay of the moves on
    some arrangement of the hidden cards, and the search for an arrangement
    that makes a move legal. A game says how a hand starts from a deck
    (``_new``) and which hidden cards would make a follow illegal (``_harmful``).
    """

    def __init__(self, deck_size: int, dealer: int) -> None:
        self.dealer = dealer
        self.known: list[int | None] = [None] * deck_size
        self.moves: list[int] = []
        self._all = deck_ids(deck_size)
        self._replays: dict[tuple[tuple[int, ...], tuple[int, ...]], S] = {}
        self._base: tuple[tuple[int | None, ...], tuple[int, ...], list[int], S] | None = None
        self._held: tuple[S, tuple[tuple[int, ...], ...]] | None = None

    def _new(self, deck: Sequence[int]) -> S:
        raise NotImplementedError

    def _harmful(self, s: S, code: int) -> int:
        raise NotImplementedError

    def new_state(self, deck: Sequence[int]) -> S:
        """The hand's first state on a whole deck (the audit's re-judging starts here)."""
        return self._new(deck)

    def learn(self, position: int, card: int) -> None:
        """Record that deck ``position`` holds ``card``; KnowledgeConflict if impossible."""
        if not 0 <= position < len(self.known):
            raise KnowledgeConflict(f"there is no deck position {position}")
        if card not in self._all:
            raise KnowledgeConflict(f"{card} is not a card of this deck")
        current = self.known[position]
        if current is not None and current != card:
            raise KnowledgeConflict(
                f"position {position} holds {CARD_CODES[current]}, not {CARD_CODES[card]}"
            )
        if current is None and card in self.known:
            raise KnowledgeConflict(
                f"{CARD_CODES[card]} is already at position {self.known.index(card)}"
            )
        self.known[position] = card

    def card_at(self, position: int) -> int | None:
        return self.known[position]

    def position_of(self, card: int) -> int | None:
        return self.known.index(card) if card in self.known else None

    def state(self) -> S:
        """The current state, hidden positions filled in arbitrarily (public facts are exact)."""
        return self._shared_base()[1].copy()

    def positions_held(self, seat: int) -> list[int]:
        """Deck positions now in ``seat``'s hand (independent of the hidden cards)."""
        deck, state = self._shared_base()
        hand = state.hands[seat]
        return [p for p, c in enumerate(deck) if hand >> c & 1]

    def holdings(self) -> tuple[tuple[int, ...], ...]:
        """Deck positions now in each seat's hand, from one replay (every seat at once).

        Kept with the shared replay it comes from: the debts of every seat ask for it
        several times per record.
        """
        deck, state = self._shared_base()
        cached = self._held
        if cached is not None and cached[0] is state:
            return cached[1]
        held = tuple(tuple(p for p, c in enumerate(deck) if hand >> c & 1) for hand in state.hands)
        self._held = (state, held)
        return held

    def public_due(self) -> tuple[int, ...]:
        """Deck positions the rules have made public by now without a move showing them."""
        return ()

    def check(self, code: int) -> Accepted[S]:
        """Judge ``code`` for the player to act; IllegalMoveError if no arrangement allows it."""
        for card in _cards_needed(code):
            if card is not None and card not in self.known:
                raise KnowledgeConflict(f"{CARD_CODES[card]} was played without being opened")
        base = self._shared_base()[1]
        mover = base.to_act
        harmful = self._harmful(base, code)
        provisional = False
        if harmful:
            hidden_mine = [p for p in self.positions_held(mover) if self.known[p] is None]
            deck = self._deck_with(harmful, avoid_positions=hidden_mine)
            state = self._replay(deck)
            provisional = bool(hidden_mine)
        else:
            state = base
        state.check_legal(code)
        nxt = state.copy()
        nxt.apply_code_unchecked(code)
        return Accepted(nxt, provisional)

    def accept(self, code: int) -> Accepted[S]:
        """``check`` and, if legal, record the move."""
        accepted = self.check(code)
        self.moves.append(code)
        return accepted

    def full_replay(self, deck: Sequence[int]) -> S:
        """Re-run every move with the whole deck known, checking each (IllegalMoveError)."""
        for pos, card in enumerate(self.known):
            if card is not None and deck[pos] != card:
                raise KnowledgeConflict(
                    f"the revealed deck has {CARD_CODES[deck[pos]]} at position {pos}, "
                    f"but {CARD_CODES[card]} was opened there"
                )
        s = self._new(deck)
        for code in self.moves:
            s = s.apply(code)
        return s

    # ------------------------------------------------------------------ internals

    def _shared_base(self) -> tuple[list[int], S]:
        """The deck with hidden cards filled in order and the state after every move on it.

        Asked for several times per record (each player's held positions, the
        move check) while nothing changed, so it is kept until ``known`` or
        ``moves`` differ. Shared: callers only read it (``state()`` copies).
        """
        known, moves = tuple(self.known), tuple(self.moves)
        cached = self._base
        if cached is not None and cached[0] == known and cached[1] == moves:
            return cached[2], cached[3]
        deck = self._deck_with(0)
        state = self._replay(deck)
        self._base = (known, moves, deck, state)
        return deck, state

    def _deck_with(self, harmful: int, avoid_positions: Sequence[int] = ()) -> list[int]:
        """Known cards in place; hidden cards fill the rest, harmless ones first at
        ``avoid_positions`` (the mover's hidden hand positions)."""
        known = set(self.known)
        unknown = [c for c in self._all if c not in known]
        pool = [c for c in unknown if not harmful >> c & 1]
        pool += [c for c in unknown if harmful >> c & 1]
        deck: list[int | None] = list(self.known)
        avoid = set(avoid_positions)
        fill = iter(pool)
        for p in avoid_positions:
            deck[p] = next(fill)
        for p, c in enumerate(deck):
            if c is None and p not in avoid:
                deck[p] = next(fill)
        return [c for c in deck if c is not None]

    def _replay(self, deck: list[int]) -> S:
        """The state after every move on ``deck`` (a fresh copy).

        The last few replays are kept by deck and moves, shared with this judge's
        forks: a fork asked about a move finds the replay its judge needs once the
        move's cards are public, and a replay one move short is extended by it
        instead of replaying the hand from its start.
        """
        key, moves = tuple(deck), tuple(self.moves)
        replays = self._replays
        state = replays.get((key, moves))
        if state is None:
            shorter = replays.get((key, moves[:-1])) if moves else None
            if shorter is not None:
                state = shorter.copy()
                state.apply_code_unchecked(moves[-1])
            else:
                state = self._new(deck)
                for code in moves:
                    state.apply_code_unchecked(code)
            if len(replays) >= _REPLAYS_KEPT:
                del replays[next(iter(replays))]
            replays[(key, moves)] = state
        return state.copy()

    def fork(self) -> Self:
        """A judge that knows what this one knows, to ask "what if" without changing this one.

        It shares this judge's replays (they are keyed by deck and moves, never changed
        once kept), so asking it and then this judge replays the hand once, not twice.
        """
        other = copy.copy(self)
        other.known = list(self.known)
        other.moves = list(self.moves)
        return other


_REPLAYS_KEPT = 8
"""Replays a judge and its forks keep: the plain and the move-checking deck, before and
after a move, with room for the forks of one record."""


class PartialHand(PartialDeal[HandState]):
    """A two-player hand seen through partial knowledge of the deck."""

    def __init__(self, options: RuleOptions, dealer: int) -> None:
        super().__init__(options.deck_size, dealer)
        self.options = options
        self.layout = deal_layout(options)

    def _new(self, deck: Sequence[int]) -> HandState:
        return new_hand(self.options, deck, self.dealer)

    def _harmful(self, s: HandState, code: int) -> int:
        """Hidden cards that would make a strict-duty follow with ``code`` illegal."""
        if s.phase != Phase.FOLLOW or s.talon_open or code >= 24:
            return 0
        lead, suit, trump = s.lead_card, s.lead_card // 6, s.trump_suit
        if code // 6 == suit:
            return 0 if code < lead else SUIT_MASKS[suit] & ((1 << lead) - 1)
        if code // 6 == trump:
            return SUIT_MASKS[suit]
        return SUIT_MASKS[suit] | SUIT_MASKS[trump]
