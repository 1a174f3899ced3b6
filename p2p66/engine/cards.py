"""Cards, suits and ranks, and their notation (RULES.md "Cards and notation").

A card is a small integer id so that hands can be bitmasks and the search
bots stay fast: ``id = suit * 6 + rank``, with suits in the order C, D, H, S
and ranks from high to low A, T, K, Q, J, 9. A lower rank index is a higher
card. ``Card`` objects are interned, one per id, so comparing and hashing
them is cheap and ``CARDS[i]`` never allocates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from p2p66.engine.errors import NotationError

SUITS: Final = "CDHS"
RANKS: Final = "ATKQJ9"
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS: Final = ("♣", "♦", "♥", "♠")
RANK_NAMES: Final = ("ace", "ten", "king", "queen", "jack", "nine")
RANK_POINTS: Final = (11, 10, 4, 3, 2, 0)

ACE, TEN, KING, QUEEN, JACK, NINE = range(6)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
NUM_CARD_IDS: Final = 24


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card; use ``CARDS[id]`` or ``Card.parse``, never the constructor."""

    id: int
    suit: int
    rank: int

    @property
    def code(self) -> str:
        """Canonical two-letter code, e.g. ``TH``."""
        return RANKS[self.rank] + SUITS[self.suit]

    @property
    def points(self) -> int:
        return RANK_POINTS[self.rank]

    @property
    def bit(self) -> int:
        return 1 << self.id

    def name(self) -> str:
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    @staticmethod
    def parse(text: str) -> Card:
        """Parse a card code, leniently: ``AH``, ``ah``, ``10h``, ``h10``, ``A♥``."""
        return CARDS[parse_card_id(text)]


CARDS: Final = tuple(Card(s * 6 + r, s, r) for s in range(4) for r in range(6))
CARD_POINTS: Final = tuple(RANK_POINTS[i % 6] for i in range(NUM_CARD_IDS))
CARD_SUIT: Final = tuple(i // 6 for i in range(NUM_CARD_IDS))
CARD_CODES: Final = tuple(c.code for c in CARDS)
SUIT_MASKS: Final = tuple(0b111111 << (6 * s) for s in range(4))
_CODE_TO_ID: Final = {code: i for i, code in enumerate(CARD_CODES)}

_RANK_ALIASES: Final = {
    "A": ACE,
    "T": TEN,
    "10": TEN,
    "K": KING,
    "Q": QUEEN,
    "O": QUEEN,  # "Ober" in German-suited Schnapsen
    "J": JACK,
    "U": JACK,  # "Unter"
    "9": NINE,
}
_SUIT_ALIASES: Final = {
    "C": CLUBS,
    "♣": CLUBS,
    "♧": CLUBS,
    "D": DIAMONDS,
    "♦": DIAMONDS,
    "♢": DIAMONDS,
    "H": HEARTS,
    "♥": HEARTS,
    "♡": HEARTS,
    "S": SPADES,
    "♠": SPADES,
    "♤": SPADES,
}


def parse_card_id(text: str) -> int:
    """Return the card id for a (possibly lenient) card code, or raise NotationError."""
    raw = text.strip().upper()
    exact = _CODE_TO_ID.get(raw)
    if exact is not None:
        return exact
    for rank_text, suit_text in ((raw[:-1], raw[-1:]), (raw[1:], raw[:1])):
        rank = _RANK_ALIASES.get(rank_text)
        suit = _SUIT_ALIASES.get(suit_text)
        if rank is not None and suit is not None:
            return suit * 6 + rank
    raise NotationError(
        f"{text!r} is not a card: expected a rank (A, T or 10, K, Q, J, 9) "
        f"and a suit (C, D, H, S), e.g. 'TH' or '10h'"
    )


def _table(offset: int, bits: int) -> tuple[tuple[int, ...], ...]:
    """For every ``bits``-bit mask, its set bit positions plus ``offset``, in increasing order."""
    table: list[tuple[int, ...]] = [()]
    for mask in range(1, 1 << bits):
        low = mask & -mask
        table.append((offset + low.bit_length() - 1, *table[mask ^ low]))
    return tuple(table)


# Card ids of the low and the high 12 bits of a hand: two lookups instead of a loop per card.
_IDS_LOW: Final = _table(0, 12)
_IDS_HIGH: Final = _table(12, 12)
_CARDS_LOW: Final = tuple(tuple(CARDS[i] for i in ids) for ids in _IDS_LOW)
_CARDS_HIGH: Final = tuple(tuple(CARDS[i] for i in ids) for ids in _IDS_HIGH)
_FULL: Final = (1 << NUM_CARD_IDS) - 1


def card_ids(mask: int) -> tuple[int, ...]:
    """The card ids in a bitmask of cards, in increasing order, as a tuple."""
    if mask & _FULL == mask:
        return _IDS_LOW[mask & 0xFFF] + _IDS_HIGH[mask >> 12]
    return tuple(_bits(mask))


def cards_in(mask: int) -> tuple[Card, ...]:
    """The cards in a bitmask of cards, in id order, as a tuple."""
    if mask & _FULL == mask:
        return _CARDS_LOW[mask & 0xFFF] + _CARDS_HIGH[mask >> 12]
    return tuple(CARDS[i] for i in _bits(mask))


def cards_of(mask: int) -> list[Card]:
    """The cards in a bitmask, in id order (suit C, D, H, S; high to low)."""
    return list(cards_in(mask))


def ids_of(mask: int) -> list[int]:
    """The card ids in a bitmask, in increasing order."""
    return list(card_ids(mask))


def _bits(mask: int) -> list[int]:
    """Set bit positions of any non-negative mask (the tables cover card masks only)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[Card | int]) -> int:
    """Bitmask from an iterable of Card or card ids."""
    mask = 0
    for c in cards:
        mask |= 1 << (c.id if isinstance(c, Card) else c)
    return mask


def deck_ids(deck_size: int) -> list[int]:
    """The card ids of a fresh deck in id order: 24 with nines, 20 without."""
    if deck_size == 24:
        return list(range(NUM_CARD_IDS))
    if deck_size == 20:
        return [i for i in range(NUM_CARD_IDS) if i % 6 != NINE]
    raise ValueError(f"deck_size must be 24 or 20, not {deck_size}")
