"""Seeded decks and seeds at the edge: the engine never draws randomness, the runner does.

Every deck is a pure function of a ``Deal`` and the hand number: by default
the deal of pair ``k`` is (run seed, k), so duplicate deals are the same
deck for both games of a pair (seats swapped), a resumed run deals exactly
what the interrupted one would have, and any game can be replayed from its
numbers alone. A deal book (``runner/dealbook.py``) gives the deals instead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from p2p66.engine.cards import CARD_CODES, deck_ids


def deal_deck(seed: int, pair: int, hand: int, deck_size: int) -> list[int]:
    """The shuffled deck (card ids, index 0 first) for hand ``hand`` of deal pair ``pair``."""
    deck = deck_ids(deck_size)
    random.Random(f"p2p66-deck:{seed}:{pair}:{hand}").shuffle(deck)
    return deck


def bot_seed(seed: int, game: int, side: str) -> int:
    """The seed handed to bot ``side`` ('a' or 'b') for game ``game``."""
    return random.Random(f"p2p66-bot:{seed}:{game}:{side}").getrandbits(63)


@dataclass(frozen=True, slots=True)
class Deal:
    """Where the cards of one deal pair come from.

    Seeded: every hand's deck is ``deal_deck(seed, pair, hand)`` and the
    first dealer is ``dealer``. Explicit (``deck`` given): one hand with
    exactly that deck and dealer; such a deal has no second hand, so it
    serves ``--hands`` runs only.
    """

    seed: int
    pair: int = 0
    deck: tuple[int, ...] | None = None
    dealer: int = 0

    def deck_for(self, hand: int, deck_size: int) -> list[int]:
        if self.deck is None:
            return deal_deck(self.seed, self.pair, hand, deck_size)
        if hand != 0:
            raise ValueError("an explicit deal is one hand: it has no deck for hand 2")
        return list(self.deck)

    @property
    def key(self) -> str:
        """A text naming the deal, from which seeded peers derive their secrets."""
        if self.deck is None:
            return f"{self.seed}:{self.pair}"
        return "deck:" + "".join(CARD_CODES[c] for c in self.deck) + f":{self.dealer}"


def shown_deck(deck: list[int] | tuple[int, ...]) -> str:
    """A deck as RULES.md card codes, index 0 first, space-separated (as results record it)."""
    return " ".join(CARD_CODES[c] for c in deck)
