"""The canonical deal layout (RULES.md "Deal layout"): which deck index goes where.

The deck is an input to the engine, never drawn inside it. The same layout
is used by the mental-poker deal (which deck positions are opened to whom)
and by replays, so it lives here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from p2p66.engine.cards import CARD_CODES, deck_ids
from p2p66.engine.errors import DealError
from p2p66.engine.options import RuleOptions
from p2p66.engine.slots import is_native


@dataclass(frozen=True, slots=True)
class DealLayout:
    """Deck positions: the two hands, the face-up trump card, the talon (top first)."""

    non_dealer: tuple[int, ...]
    dealer: tuple[int, ...]
    trump: int
    talon: tuple[int, ...]

    def hand_positions(self, seat: int, dealer_seat: int) -> tuple[int, ...]:
        return self.dealer if seat == dealer_seat else self.non_dealer

    def draw_positions(self) -> tuple[int, ...]:
        """Deck positions in the order they are drawn: the talon, then the trump card."""
        return (*self.talon, self.trump)


@cache
def _layout(deck_size: int, alternate: bool) -> DealLayout:
    if alternate:
        hand = deck_size // 4
        return DealLayout(
            non_dealer=tuple(range(0, 2 * hand, 2)),
            dealer=tuple(range(1, 2 * hand, 2)),
            trump=deck_size - 1,
            talon=tuple(range(2 * hand, deck_size - 1)),
        )
    if deck_size == 24:
        return DealLayout((0, 1, 2, 6, 7, 8), (3, 4, 5, 9, 10, 11), 12, tuple(range(13, 24)))
    return DealLayout((0, 1, 2, 6, 7), (3, 4, 5, 8, 9), 10, tuple(range(11, 20)))


def deal_layout(options: RuleOptions) -> DealLayout:
    """The layout the options call for (``packets`` or ``alternate``)."""
    return _layout(options.deck_size, options.deal_layout == "alternate")


_FRESH_DECKS: Final = {size: deck_ids(size) for size in (24, 20)}  # read, never changed
_FULL_MASKS: Final = {size: sum(1 << c for c in cards) for size, cards in _FRESH_DECKS.items()}
_INTS_ONLY: Final = frozenset({int})
_COMPILED: Final = is_native(DealLayout)


def is_card_permutation(options: RuleOptions, deck: Sequence[object]) -> bool:
    """True when ``deck`` holds each of the options' card ids once (plain ints, nothing else).

    Every deal asks, so compiled it is one pass setting a bit per card (as many
    cards as the deck holds, and exactly its bits set, is a permutation).
    """
    if len(deck) != options.deck_size:
        return False
    if not _COMPILED:  # interpreted, the C-level builtins beat a loop
        return set(map(type, deck)) == _INTS_ONLY and sorted(deck) == _FRESH_DECKS.get(  # type: ignore[type-var]
            options.deck_size
        )
    mask = 0
    for card in deck:
        if type(card) is not int or not 0 <= card < 24:
            return False
        mask |= 1 << card
    return mask == _FULL_MASKS.get(options.deck_size, -1)


def check_deck(options: RuleOptions, deck: list[int] | tuple[int, ...]) -> None:
    """Raise DealError unless ``deck`` is a permutation of the options' cards."""
    if is_card_permutation(options, deck):
        return  # the common case; anything else gets the slow, detailed look
    expected = _FRESH_DECKS.get(options.deck_size) or deck_ids(options.deck_size)
    if len(deck) != len(expected):
        raise DealError(f"a deck of {len(expected)} cards is needed, got {len(deck)}")
    if sorted(deck) != expected:
        wrong = [CARD_CODES[c] if 0 <= c < 24 else repr(c) for c in deck if c not in expected]
        dupes = sorted({CARD_CODES[c] for c in deck if deck.count(c) > 1 and 0 <= c < 24})
        detail = f"cards not in this deck: {wrong}" if wrong else f"duplicated cards: {dupes}"
        raise DealError(f"the deck is not a permutation of the {len(expected)} cards: {detail}")
