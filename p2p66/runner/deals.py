"""Seeded decks and seeds at the edge: the engine never draws randomness, the runner does.

Every deck is a pure function of (run seed, pair, hand), so duplicate deals
are the same deck for both games of a pair (seats swapped), a resumed run
deals exactly what the interrupted one would have, and any game can be
replayed from its numbers alone.
"""

from __future__ import annotations

import random

from p2p66.engine.cards import deck_ids


def deal_deck(seed: int, pair: int, hand: int, deck_size: int) -> list[int]:
    """The shuffled deck (card ids, index 0 first) for hand ``hand`` of deal pair ``pair``."""
    deck = deck_ids(deck_size)
    random.Random(f"p2p66-deck:{seed}:{pair}:{hand}").shuffle(deck)
    return deck


def bot_seed(seed: int, game: int, side: str) -> int:
    """The seed handed to bot ``side`` ('a' or 'b') for game ``game``."""
    return random.Random(f"p2p66-bot:{seed}:{game}:{side}").getrandbits(63)
