"""``strong`` for the bidding games: determinised search within a time budget per move.

Each move it deals the cards it cannot see at random within what the play
so far proves (``worlds.forbidden``), plays every candidate move out in each
world with a fast expert-like policy for all seats on the full state
(``playout.py``, on the engine's integer fast path), and picks the move with the best average final
mark difference for its side. Calls are chosen the same way (bidding by
simulation): each candidate call, from pass up to one above what the expert
would bid, is played out in the same worlds, the later callers passing.
"""

from __future__ import annotations

import random
import time

from p2p66.bots.table.api import TableBot
from p2p66.bots.table.expert import TableExpert
from p2p66.bots.table.playout import playout
from p2p66.bots.table.worlds import forbidden, sample_world
from p2p66.engine.table import BiddingHand, TablePhase, TableView


def side_value(world: BiddingHand, side: int) -> float:
    """Final marks of ``side`` minus the best of the others (what decides a match)."""
    r = world.result
    assert r is not None
    others = [m for s, m in enumerate(r.marks) if s != side]
    return r.marks[side] - (max(others) if len(others) > 1 else others[0])


class TableStrong(TableBot):
    """PIMC over worlds consistent with the view, expert playouts, ``budget`` seconds a move."""

    name = "strong"

    def __init__(self, seed: int = 0, budget: float = 0.1, min_worlds: int = 4) -> None:
        self._rng = random.Random(seed)
        self.budget = budget
        self.min_worlds = min_worlds
        self._policy = TableExpert()

    def choose(self, view: TableView) -> int:
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        if view.phase == TablePhase.BID:
            # not more than one above what the expert would bid: far-fetched bids waste time
            hint = self._policy.choose(view)
            legal = [c for c in legal if c <= max(hint, legal[0]) + 1]
        deadline = time.perf_counter() + self.budget
        side = view.options.side_of(view.seat)
        bans = forbidden(view)
        totals = dict.fromkeys(legal, 0.0)
        worlds = 0
        while worlds < self.min_worlds or time.perf_counter() < deadline:
            base = sample_world(view, self._rng, bans)
            for code in legal:
                w = base.copy()
                w.apply_code_unchecked(code)
                playout(w)
                totals[code] += side_value(w, side)
            worlds += 1
            if worlds >= 2000:
                break
        expert_pick = self._policy.choose(view)
        return max(legal, key=lambda c: (totals[c], c == expert_pick))
