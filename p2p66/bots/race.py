"""Racing PIMC's candidate moves: stop scoring a move the worlds so far show to be worse.

PIMC scores every candidate in every world, but the candidates do not cost
alike: a ``close`` is solved exactly (the talon is shut, everything after it
is one alpha-beta search) while a card is played out by the cheap policy,
so in a position that may be closed the solver takes most of each world's
time. Each world scores every candidate still running on the same deal, so
two candidates can be compared pairwise: when the mean of a candidate's
utility minus the leader's, plus ``z`` standard errors of that mean, is
still below zero after ``min_worlds`` worlds, the candidate is dropped and
the time it cost goes into more worlds for the others. The leader (the best
mean so far) is never dropped, so at least one candidate always runs.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

MIN_WORLDS = 16  # worlds before any candidate may be dropped
CHECK_EVERY = 4  # worlds between two looks at the standings


class Race:
    """Running sums of each candidate's utilities, world by world, and which still run.

    Only sums are kept (of utilities, their squares, and the products of every
    two candidates), so a look at the standings costs the same after ten
    worlds as after ten thousand: a cheap position can run thousands of worlds
    in a move's budget.
    """

    __slots__ = (
        "_costly",
        "_cross",
        "_dropped",
        "_running",
        "_square",
        "_sum",
        "min_worlds",
        "worlds",
        "z",
    )

    def __init__(
        self,
        candidates: Sequence[int],
        z: float,
        min_worlds: int = MIN_WORLDS,
        costly: Collection[int] | None = None,
    ) -> None:
        """``costly``: the candidates that may be dropped (None: every one)."""
        if not candidates:
            raise ValueError("a race needs a candidate")
        self._costly = frozenset(candidates if costly is None else costly)
        self.z = z
        self.min_worlds = min_worlds
        self.worlds = 0  # worlds scored by every running candidate
        self._running = list(candidates)
        self._sum = dict.fromkeys(candidates, 0.0)
        self._square = dict.fromkeys(candidates, 0.0)
        self._cross = {(a, b): 0.0 for i, a in enumerate(candidates) for b in candidates[i + 1 :]}
        self._dropped: dict[int, int] = {}  # dropped candidate -> the worlds it was scored in

    @property
    def running(self) -> list[int]:
        """The candidates to score in the next world, in their first order."""
        return list(self._running)

    def record(self, utilities: Mapping[int, float]) -> bool:
        """Add one world's utility of every running candidate; True if one was dropped."""
        running = self._running
        for i, a in enumerate(running):
            u = utilities[a]
            self._sum[a] += u
            self._square[a] += u * u
            for b in running[i + 1 :]:
                self._cross[a, b] += u * utilities[b]
        self.worlds += 1
        n = self.worlds
        if self.z <= 0 or n < self.min_worlds or n % CHECK_EVERY or len(running) == 1:
            return False
        leader = self.best()
        beaten = [
            c
            for c in running
            if c != leader and c in self._costly and self._upper_bound(c, leader) < 0
        ]
        for code in beaten:
            running.remove(code)
            self._dropped[code] = n
        return bool(beaten)

    def best(self) -> int:
        """The running candidate with the best mean utility (the first of equals)."""
        return max(self._running, key=self._sum.__getitem__)

    def mean(self, code: int) -> float:
        return self._sum[code] / self._dropped.get(code, self.worlds)

    def dropped(self) -> list[int]:
        return list(self._dropped)

    def _upper_bound(self, code: int, leader: int) -> float:
        """Mean of ``code``'s utility minus the leader's, world by world, plus ``z`` standard
        errors of that mean."""
        n = self.worlds
        cross = self._cross.get((code, leader))
        if cross is None:
            cross = self._cross[leader, code]
        mean = (self._sum[code] - self._sum[leader]) / n
        squares = self._square[code] - 2.0 * cross + self._square[leader]
        variance = max(0.0, (squares - n * mean * mean) / (n - 1))
        return mean + self.z * math.sqrt(variance / n)
