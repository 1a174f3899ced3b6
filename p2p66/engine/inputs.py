"""Checks on what callers hand the engine's public entry points.

The engine's internals assume well-formed values (they are hot in the bots'
search); these checks run once at the door, so a wrong type or range is the
engine's own error saying what was expected, never a TypeError or
IndexError from deep inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from p2p66.engine.cards import CARD_CODES, parse_card_id
from p2p66.engine.errors import DealError, EngineInputError, NotationError

_INTS_ONLY: Final = frozenset({int})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seat(value: object, what: str = "seat") -> int:
    """A seat number, 0 or 1 (a bool or a string is refused, not coerced)."""
    if not _is_int(value) or value not in (0, 1):
        raise EngineInputError(f"{what} must be seat 0 or 1 (an int), not {value!r}")
    assert isinstance(value, int)
    return value


def deck_ids(deck: object) -> tuple[int, ...]:
    """A deck as card ids, given as ids (0..23) or card codes ('AC', 'TH', ...)."""
    if isinstance(deck, tuple | list) and set(map(type, deck)) == _INTS_ONLY:
        return tuple(deck)  # plain card ids, the common case (every deal of a bot run)
    if isinstance(deck, str | bytes) or not isinstance(deck, Sequence):
        raise DealError(
            "a deck must be a sequence of card ids or card codes like 'AC', "
            f"not {type(deck).__name__}"
        )
    out = []
    for i, item in enumerate(deck):
        if isinstance(item, str):
            try:
                out.append(parse_card_id(item))
            except NotationError as exc:
                raise DealError(f"deck entry {i}: {exc}") from None
        elif _is_int(item):
            out.append(item)
        else:
            raise DealError(
                f"deck entry {i} is {item!r}: expected a card id 0..{len(CARD_CODES) - 1} "
                "or a card code like 'AC'"
            )
    return tuple(out)
