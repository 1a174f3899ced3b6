"""Small card arithmetic the bots share: who wins a trick, which cards are masters."""

from __future__ import annotations

from p2p66.engine.cards import SUIT_MASKS


def beats(follow: int, lead: int, trump: int) -> bool:
    """True when ``follow`` played to ``lead`` wins the trick (lower id = higher card)."""
    if follow // 6 == lead // 6:
        return follow < lead
    return follow // 6 == trump


def higher_in_suit(card: int, mask: int) -> int:
    """The cards of ``mask`` in ``card``'s suit that beat it."""
    return mask & SUIT_MASKS[card // 6] & ((1 << card) - 1)


def is_master(card: int, others: int) -> bool:
    """No card of ``others`` (cards still out against us) is higher in the same suit."""
    return not higher_in_suit(card, others)
