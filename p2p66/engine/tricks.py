"""Trick arithmetic every game shares: who beats whom, what a marriage is worth.

The two-player hand and the games for three and four players (``engine/table``)
compare cards the same way: a card id is ``suit * 6 + rank`` with a lower id
the higher card of its suit, so "higher in the suit" is "lower id".
"""

from __future__ import annotations

from p2p66.engine.cards import KING, QUEEN, SUIT_MASKS


def beats(follow: int, lead: int, trump: int) -> bool:
    """True when ``follow`` played to ``lead`` wins the trick (lower id = higher card)."""
    if follow // 6 == lead // 6:
        return follow < lead
    return follow // 6 == trump


def higher_in_suit(card: int, mask: int) -> int:
    """The cards of ``mask`` in ``card``'s suit that beat it."""
    return mask & SUIT_MASKS[card // 6] & ((1 << card) - 1)


def marriage_value(suit: int, trump: int) -> int:
    """20 card points for a marriage, 40 in trumps."""
    return 40 if suit == trump else 20


def marriage_partner(card: int) -> int:
    """The other half of the marriage ``card`` (a king or queen) belongs to."""
    return card ^ 1 if card % 6 in (KING, QUEEN) else card


def marriage_suits(hand: int) -> list[int]:
    """The suits in which ``hand`` holds both king and queen (adjacent ids)."""
    return [suit for suit in range(4) if hand >> (suit * 6 + KING) & 3 == 3]
