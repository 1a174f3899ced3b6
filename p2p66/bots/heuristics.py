"""Card values shared by ``expert`` and the search bots' playout policy.

Everything is on bitmasks so the playout policy can call it thousands of
times a move: ``mine`` is the player's hand, ``out`` the cards still against
it (the opponent's hand and the talon, unplayed).
"""

from __future__ import annotations

from p2p66.engine.cards import KING, QUEEN


def keep_value(
    card: int, mine: int, out: int, trump: int, talon_open: bool, *, exchange_bonus: int = 0
) -> float:
    """How much holding ``card`` is worth for later tricks (lost when it is played now).

    ``exchange_bonus`` is the face-up trump card's points when ``card`` can
    still be exchanged for it (0 otherwise).
    """
    suit, rank = card // 6, card % 6
    value = 0.0
    if suit == trump:
        value += 8.0 + 2.0 * (5 - rank) + exchange_bonus
    elif rank == 0:
        value += 5.0
    elif rank == 1:
        value += 5.0 if not (out >> (card - 1) & 1) else 2.0
    if rank in (KING, QUEEN):
        partner = card ^ 1
        marriage = 40.0 if suit == trump else 20.0
        if mine >> partner & 1:
            value += marriage * 0.75
        elif talon_open and out >> partner & 1:
            value += marriage * 0.15
    return value
