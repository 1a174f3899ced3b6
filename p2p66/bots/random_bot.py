"""``random``: a uniformly random legal move from a seeded generator (the floor of strength)."""

from __future__ import annotations

import random

from p2p66.bots.api import Bot, Turn
from p2p66.engine.moves import Move


class RandomBot(Bot):
    """Picks uniformly among the legal moves; the same seed replays the same game."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, turn: Turn) -> Move:
        return self._rng.choice(turn.legal)
