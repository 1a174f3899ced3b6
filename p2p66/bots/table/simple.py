"""``random`` and ``greedy`` for the bidding games: the floor and one step above it."""

from __future__ import annotations

import random

from p2p66.bots.table.api import TableBot
from p2p66.engine.cards import CARD_POINTS
from p2p66.engine.moves import MARRY_BASE, PASS
from p2p66.engine.table import TablePhase, TableView, bid_code
from p2p66.engine.tricks import marriage_suits


class TableRandom(TableBot):
    """Uniformly random legal moves from a seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: TableView) -> int:
        return self._rng.choice(view.legal)


def trick_winner(view: TableView) -> tuple[int, int]:
    """(seat, card id) winning the trick in progress so far."""
    trump = view.trump if view.trump is not None else -1
    led = view.trick[0][1].suit
    best_seat, best = view.trick[0][0], view.trick[0][1].id
    for seat, card in view.trick[1:]:
        c = card.id
        if (c // 6 == best // 6 and c < best) or (c // 6 == trump and best // 6 != trump):
            best_seat, best = seat, c
    del led
    return best_seat, best


def wins_over(card: int, best: int, trump: int) -> bool:
    if card // 6 == best // 6:
        return card < best
    return card // 6 == trump


class TableGreedy(TableBot):
    """Bids 1 on a strong hand, announces every marriage, wins tricks when it can.

    It plays no partnership and keeps no memory of played cards.
    """

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        del seed

    def choose(self, view: TableView) -> int:
        legal = view.legal
        if view.phase == TablePhase.BID:
            hand_points = sum(c.points for c in view.hand)
            want = bid_code(1)
            if hand_points >= 45 and want in legal:
                return want
            return PASS
        marriages = [c for c in legal if c >= MARRY_BASE]
        if marriages:
            return max(marriages)  # the queen: keeps the king
        cards = [c for c in legal if c < MARRY_BASE]
        if not view.trick:
            return max(cards, key=lambda c: (CARD_POINTS[c], -c))
        _, best = trick_winner(view)
        trump = view.trump if view.trump is not None else -1
        winners = [c for c in cards if wins_over(c, best, trump)]
        if winners:
            return max(winners, key=lambda c: (CARD_POINTS[c], -c))
        return min(cards, key=lambda c: (CARD_POINTS[c], c))


__all__ = ["TableGreedy", "TableRandom", "marriage_suits", "trick_winner", "wins_over"]
