"""``greedy``: grabs points now and never plans (a baseline one step above random).

It declares as soon as it can count 66, takes every marriage and exchange,
never closes, wins a trick with its most valuable winning card, and
otherwise throws its cheapest card. It keeps no memory of played cards.
"""

from __future__ import annotations

from p2p66.bots.api import Bot, Turn
from p2p66.bots.tricks import beats
from p2p66.engine.cards import CARD_POINTS
from p2p66.engine.moves import DECLARE, DRAW, EXCHANGE, MARRY_BASE, PASS, Move
from p2p66.engine.state import Phase


class GreedyBot(Bot):
    """Immediate points first; deterministic, so it needs no seed."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        del seed  # deterministic

    def choose(self, turn: Turn) -> Move:
        view = turn.view
        by_code = {m.code: m for m in turn.legal}
        if DECLARE in by_code and view.my_points >= 66:
            return by_code[DECLARE]
        if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
            return by_code[PASS]
        if view.phase == Phase.DRAW:
            return by_code[DRAW]
        if EXCHANGE in by_code:
            return by_code[EXCHANGE]
        trump = view.trump_suit
        marriages = [c for c in by_code if MARRY_BASE <= c < EXCHANGE]
        if marriages:
            return by_code[max(marriages, key=lambda c: ((c - MARRY_BASE) // 6 == trump, -c))]
        cards = [c for c in by_code if c < MARRY_BASE]
        if view.lead is None:
            side = [c for c in cards if c // 6 != trump] or cards
            return by_code[max(side, key=lambda c: (CARD_POINTS[c], -c))]
        lead = view.lead.id
        winners = [c for c in cards if beats(c, lead, trump)]
        if winners:
            return by_code[max(winners, key=lambda c: (CARD_POINTS[c], c // 6 != trump, -c))]
        return by_code[min(cards, key=lambda c: (CARD_POINTS[c], c // 6 == trump, c))]


__all__ = ["GreedyBot"]
