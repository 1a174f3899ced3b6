"""``strong`` for the bidding games: determinised search within a time budget per move.

Each move it deals the cards it cannot see at random within what the play
so far proves (``worlds.forbidden``), preferring deals in which every call
made fits the caller's hand (``call_misfits``), plays every candidate move out in each
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
from p2p66.bots.table.expert import TableExpert, hand_plan
from p2p66.bots.table.playout import playout
from p2p66.bots.table.worlds import forbidden, sample_world
from p2p66.engine.table import BiddingHand, TablePhase, TableView

POINT_WEIGHT = 0.1  # marks decide; the points margin breaks ties between equal marks


def side_value(world: BiddingHand, side: int) -> float:
    """Final marks of ``side`` minus the best of the others (what decides a match), with
    a small share of the points margin so that moves that keep the marks equal still differ."""
    r = world.result
    assert r is not None
    others = [s for s in range(len(r.marks)) if s != side]
    best = max(others, key=lambda s: (r.marks[s], r.side_points[s]))
    margin = (r.side_points[side] - r.side_points[best]) / 120
    return r.marks[side] - r.marks[best] + POINT_WEIGHT * margin


def call_misfits(view: TableView, original: list[int]) -> int:
    """How many calls of the others the expert's valuation of their guessed hands contradicts:
    a bid of N from a hand worth under N - 1, a pass from one worth two more than the bid
    it passed."""
    misfits = 0
    high = 0
    for seat, bid in view.calls:
        if seat != view.seat:
            worth, _suit = hand_plan(original[seat], view.options)
            if (bid and worth < bid - 1) or (not bid and worth > max(high, 1) + 1):
                misfits += 1
        high = max(high, bid)
    return misfits


class TableStrong(TableBot):
    """PIMC over worlds consistent with the view, expert playouts, ``budget`` seconds a move."""

    name = "strong"

    def __init__(self, seed: int = 0, budget: float = 0.1, min_worlds: int = 1) -> None:
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
        start = time.perf_counter()
        deadline = start + self.budget
        side = view.options.side_of(view.seat)
        bans = forbidden(view)
        totals = dict.fromkeys(legal, 0.0)
        worlds = 0
        slowest = 0.0  # the longest world so far: a new one starts only if it fits the budget
        now = start
        while worlds < self.min_worlds or now + slowest < deadline:
            base = sample_world(view, self._rng, bans, call_misfits, tries=8)
            for code in legal:
                w = base.copy()
                w.apply_code_unchecked(code)
                playout(w)
                totals[code] += side_value(w, side)
            worlds += 1
            done = time.perf_counter()
            slowest = max(slowest, done - now)
            now = done
            if worlds >= 2000:
                break
        expert_pick = self._policy.choose(view)
        return max(legal, key=lambda c: (totals[c], c == expert_pick))
