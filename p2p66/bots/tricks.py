"""Small card arithmetic the bots share: who wins a trick, which cards are masters.

``beats`` and ``higher_in_suit`` are the engine's own (``engine/tricks.py``),
shared with the rules of every game.
"""

from __future__ import annotations

from p2p66.engine.tricks import beats, higher_in_suit

__all__ = ["beats", "higher_in_suit", "is_master"]


def is_master(card: int, others: int) -> bool:
    """No card of ``others`` (cards still out against us) is higher in the same suit."""
    return not higher_in_suit(card, others)
