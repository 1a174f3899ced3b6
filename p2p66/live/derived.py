"""Peer secrets derived from a public key string: reproducible games between local peers only.

A match between two peers normally draws every secret (identity keys, coin
nonce, hand seeds) from the OS. When both peers run in this process for a
bot (the match runner, ``p2p66 play --seed``) nobody needs protecting from
anybody, and deriving every secret of every seat from one key makes the
whole match reproducible: the same key, the same rules and the same moves
deal the same cards, on any computer. Never use these for a game against a
person: anyone who knows the key knows every card.
"""

from __future__ import annotations

import hashlib
import random

from p2p66.crypto.handkeys import Rng
from p2p66.net import Identity


def derived_secret(key: str, seat: int, what: str) -> bytes:
    """Seat ``seat``'s 32-byte secret ``what`` for the game named by ``key``."""
    return hashlib.sha256(f"p2p66-loopback:{key}:{seat}:{what}".encode()).digest()


def derived_identity(name: str, key: str, seat: int) -> Identity:
    """Seat ``seat``'s identity (signing key) for the game ``key``, under ``name``."""
    return Identity.from_seed(name, derived_secret(key, seat, "identity"))


def derived_rng(key: str, seat: int) -> Rng:
    """Seat ``seat``'s randomness (coin nonce, hand seeds) for the game ``key``."""
    return random.Random(derived_secret(key, seat, "rng")).randbytes
