"""Match statistics: score, Elo with a 95% interval, likelihood of superiority, SPRT.

Samples are per game, or per deal pair when duplicate deals are on (the two
games of a pair share their cards, so their scores are correlated and must
be taken together: the pentanomial model). A pair scores 0, ½, 1, 1½ or 2
for A (a tied hand is ½), tallied as the five pentanomial counts; without
duplicate deals each game is a loss, draw or win (trinomial). Elo is the
logistic model, ``elo = -400 log10(1/score - 1)``; normalized Elo and the
SPRT (the generalised SPRT of fishtest and fastchess, on the pentanomial
counts) are in ``runner/gsprt.py``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from p2p66.runner import gsprt
from p2p66.runner.records import GameResult

Z95 = 1.959963984540054


def elo_of(score: float) -> float:
    """Logistic Elo difference for an expected score in [0, 1] (+-inf at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_of(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean score with its 95% interval, and the same in Elo."""

    n: int
    score: float
    score_low: float
    score_high: float

    @property
    def elo(self) -> float:
        return elo_of(self.score)

    @property
    def elo_low(self) -> float:
        return elo_of(self.score_low)

    @property
    def elo_high(self) -> float:
        return elo_of(self.score_high)

    @property
    def elo_error(self) -> float:
        """Half-width of the Elo interval (inf when a bound is at 0% or 100%)."""
        return (self.elo_high - self.elo_low) / 2.0


def mean_and_variance(samples: list[float]) -> tuple[float, float]:
    """Mean and variance of the samples, the variance regularised by two pseudo-samples 0 and 1.

    Without them a run of straight wins has no variance, so its interval
    would be a point and the SPRT would never decide; with them the
    variance of many samples is unchanged to within 1/n.
    """
    n = len(samples)
    if n == 0:
        return 0.5, 0.25
    mean = sum(samples) / n
    spread = sum((x - mean) ** 2 for x in samples) + mean**2 + (1.0 - mean) ** 2
    return mean, spread / (n + 2)


def estimate(samples: list[float]) -> Estimate:
    """Mean score and its 95% normal interval, clipped to [0, 1]."""
    n = len(samples)
    mean, var = mean_and_variance(samples)
    half = Z95 * math.sqrt(var / n) if n else 0.5
    return Estimate(n, mean, max(0.0, mean - half), min(1.0, mean + half))


def wilson(successes: int, n: int) -> tuple[float, float, float]:
    """Proportion with its 95% Wilson interval (sound near 0% and 100%)."""
    if n == 0:
        return 0.0, 0.0, 1.0
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def samples_of(results: Iterable[GameResult], duplicate: bool) -> list[float]:
    """A's scores, one per game, or one per complete pair (averaged) with duplicate deals."""
    results = list(results)
    if not duplicate:
        return [r.score_a for r in sorted(results, key=lambda r: r.game)]
    pairs: dict[int, list[float]] = {}
    for r in results:
        pairs.setdefault(r.pair, []).append(r.score_a)
    return [sum(v) / len(v) for _, v in sorted(pairs.items())]


def counts_of(results: Iterable[GameResult], duplicate: bool) -> tuple[int, ...]:
    """Pentanomial counts of A's complete pairs (scores 0, ½, 1, 1½, 2), or (L, D, W) per game."""
    results = list(results)
    if not duplicate:
        scores = [r.score_a for r in results]
        return (scores.count(0.0), scores.count(0.5), scores.count(1.0))
    pairs: dict[int, list[float]] = {}
    for r in results:
        pairs.setdefault(r.pair, []).append(r.score_a)
    counts = [0] * 5
    for scores in pairs.values():
        if len(scores) == 2:
            counts[round(2 * sum(scores))] += 1
    return tuple(counts)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority of A: P(A is stronger), from decisive games."""
    if wins + losses == 0:
        return 0.5
    return NormalDist().cdf((wins - losses) / math.sqrt(wins + losses))


SprtState = Literal["continue", "H0", "H1"]


@dataclass(frozen=True, slots=True)
class Sprt:
    """GSPRT of H0: Elo = ``elo0`` against H1: Elo = ``elo1`` with error rates alpha, beta.

    ``model`` says what the Elo bounds mean: ``logistic`` Elo (the expected
    score) or ``normalized`` Elo (fastchess's default); see ``gsprt``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: gsprt.Model = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        for name, p in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < p < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5, not {p}")
        if self.model not in gsprt.MODELS:
            raise ValueError(f"SPRT model is logistic or normalized, not {self.model!r}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: tuple[int, ...]) -> float:
        """Log-likelihood ratio of H1 over H0 for pentanomial (or trinomial) counts."""
        if sum(counts) == 0:
            return 0.0
        return gsprt.llr(counts, self.elo0, self.elo1, self.model)

    def state(self, counts: tuple[int, ...]) -> SprtState:
        value = self.llr(counts)
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return "continue"


@dataclass(frozen=True, slots=True)
class Summary:
    """Everything the final table shows, from A's side."""

    games: int
    wins: int
    losses: int
    draws: int
    forfeits: tuple[int, int]
    points: tuple[int, int]
    estimate: Estimate
    win_rate: tuple[float, float, float]
    los: float
    llr: float | None
    sprt: SprtState | None
    counts: tuple[int, ...] = ()  # pentanomial (complete pairs) or (L, D, W)
    nelo: tuple[float, float] = (0.0, math.inf)  # normalized Elo and its 95% half-width

    @classmethod
    def of(
        cls, results: Iterable[GameResult], duplicate: bool, sprt: Sprt | None = None
    ) -> Summary:
        results = list(results)
        wins = sum(1 for r in results if r.winner == "a")
        losses = sum(1 for r in results if r.winner == "b")
        draws = len(results) - wins - losses
        samples = samples_of(results, duplicate)
        counts = counts_of(results, duplicate)
        return cls(
            games=len(results),
            wins=wins,
            losses=losses,
            draws=draws,
            forfeits=(
                sum(1 for r in results if r.forfeit and r.forfeit.side == "a"),
                sum(1 for r in results if r.forfeit and r.forfeit.side == "b"),
            ),
            points=(sum(r.points[0] for r in results), sum(r.points[1] for r in results)),
            estimate=estimate(samples),
            win_rate=wilson(wins, wins + losses + draws),
            los=los(wins, losses),
            llr=sprt.llr(counts) if sprt else None,
            sprt=sprt.state(counts) if sprt else None,
            counts=counts,
            nelo=gsprt.normalized_elo(counts) if sum(counts) else (0.0, math.inf),
        )

    def to_json(self, sprt: Sprt | None) -> dict[str, object]:
        """The ``summary`` record of a results file (A's side)."""
        est = self.estimate
        record: dict[str, object] = {
            "type": "summary",
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "forfeits": list(self.forfeits),
            ("pentanomial" if len(self.counts) == 5 else "trinomial"): list(self.counts),
            "score": round(est.score, 6),
            "elo": _finite(est.elo),
            "elo_95": [_finite(est.elo_low), _finite(est.elo_high)],
            "nelo": _finite(self.nelo[0]),
            "nelo_95": _finite(self.nelo[1]),
            "los": round(self.los, 6),
        }
        if sprt is not None and self.llr is not None:
            record["sprt"] = {
                "elo0": sprt.elo0,
                "elo1": sprt.elo1,
                "alpha": sprt.alpha,
                "beta": sprt.beta,
                "model": sprt.model,
                "llr": round(self.llr, 6),
                "lower": round(sprt.lower, 6),
                "upper": round(sprt.upper, 6),
                "verdict": self.sprt,
            }
        return record


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded Elo is null."""
    return None if math.isinf(value) or math.isnan(value) else round(value, 3)
