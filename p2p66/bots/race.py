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
from collections.abc import Mapping, Sequence

MIN_WORLDS = 16  # worlds before any candidate may be dropped
CHECK_EVERY = 4  # worlds between two looks at the standings


class Race:
    """The utilities of each candidate, world by world, and which candidates still run."""

    __slots__ = ("_dropped", "_scores", "min_worlds", "z")

    def __init__(self, candidates: Sequence[int], z: float, min_worlds: int = MIN_WORLDS) -> None:
        if not candidates:
            raise ValueError("a race needs a candidate")
        self.z = z
        self.min_worlds = min_worlds
        self._scores: dict[int, list[float]] = {code: [] for code in candidates}
        self._dropped: dict[int, list[float]] = {}

    @property
    def running(self) -> list[int]:
        """The candidates to score in the next world, in their first order."""
        return list(self._scores)

    @property
    def worlds(self) -> int:
        """Worlds scored by every running candidate."""
        return len(next(iter(self._scores.values())))

    def record(self, utilities: Mapping[int, float]) -> bool:
        """Add one world's utility of every running candidate; True if one was dropped."""
        for code, scores in self._scores.items():
            scores.append(utilities[code])
        n = self.worlds
        if self.z <= 0 or n < self.min_worlds or n % CHECK_EVERY or len(self._scores) == 1:
            return False
        leader = self.best()
        lead = self._scores[leader]
        beaten = [
            code
            for code, scores in self._scores.items()
            if code != leader and _upper_bound(scores, lead, self.z) < 0
        ]
        for code in beaten:
            self._dropped[code] = self._scores.pop(code)
        return bool(beaten)

    def best(self) -> int:
        """The running candidate with the best mean utility (the first of equals)."""
        return max(self._scores, key=lambda code: sum(self._scores[code]))

    def mean(self, code: int) -> float:
        scores = self._scores.get(code) or self._dropped[code]
        return sum(scores) / len(scores)

    def dropped(self) -> list[int]:
        return list(self._dropped)


def _upper_bound(scores: Sequence[float], lead: Sequence[float], z: float) -> float:
    """Mean of ``scores - lead`` world by world, plus ``z`` standard errors of that mean."""
    n = len(scores)
    diffs = [a - b for a, b in zip(scores, lead, strict=True)]
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean + z * math.sqrt(variance / n)
