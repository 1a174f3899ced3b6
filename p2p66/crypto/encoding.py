"""Card encodings: each card is a group element found by hashing its label.

``M(c) = from_hash(H("p2p66/v1/card", session_id, c))`` for card id ``c``.
Hash-to-group means nobody knows a discrete-log relation between two cards
(unlike ``c * G``), and the session id makes every match's encodings fresh.
"""

from __future__ import annotations

from functools import lru_cache

from p2p66.crypto.group import Point, double, hash_to_point
from p2p66.crypto.hashing import TAG_CARD, hash_fields
from p2p66.engine.cards import NUM_CARD_IDS


def card_point(session_id: bytes, card: int) -> Point:
    """The encoding of one card id (0..23) in this session."""
    if not 0 <= card < NUM_CARD_IDS:
        raise ValueError(f"card id must be 0..{NUM_CARD_IDS - 1}, not {card}")
    return hash_to_point(hash_fields(TAG_CARD, session_id, card))


@lru_cache(maxsize=8)
def card_points(session_id: bytes) -> tuple[Point, ...]:
    """The encodings of all 24 card ids, indexed by card id (cached per session)."""
    return tuple(card_point(session_id, c) for c in range(NUM_CARD_IDS))


@lru_cache(maxsize=8)
def codebook(session_id: bytes) -> dict[bytes, int]:
    """Point -> card id, to name a card once it is opened."""
    return {p: c for c, p in enumerate(card_points(session_id))}


@lru_cache(maxsize=8)
def doubled_codebook(session_id: bytes) -> dict[bytes, int]:
    """``2*M(c)`` -> c: the audit's test for the planted-point trick."""
    return {double(p): c for c, p in enumerate(card_points(session_id))}
