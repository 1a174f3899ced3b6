"""The generalised SPRT on trinomial or pentanomial counts, as fishtest and fastchess run it.

Results are frequencies of equally spaced scores: (L, D, W) per game, or
per duplicate deal pair the pentanomial (0, ½, 1, 1½, 2 points of 2).
The log-likelihood ratio of H1 over H0 is that of the maximum-likelihood
distributions under each hypothesis (Michel Van den Bergh's GSPRT):

- ``logistic``: H is "the expected score is L(elo)" with
  ``L(elo) = 1 / (1 + 10^(-elo/400))``; the MLE with a given mean solves
  the secular equation ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0``.
- ``normalized``: H is "the normalized Elo is nelo", i.e. the t-value
  ``(mu - 1/2) / sigma`` of one game (of a pair for pentanomial: times
  sqrt 2) is ``nelo / (800 / ln 10)``; its MLE is found by fixed-point
  iteration of the same equation.

Zero counts are replaced by 1e-3 (fishtest's regularisation), so the LLR
is finite from the first result on. Normalized Elo itself is
``(mu - 1/2) / sigma_per_game * 800 / ln 10``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

Model = Literal["logistic", "normalized"]
MODELS: tuple[Model, ...] = ("logistic", "normalized")
NELO_PER_T = 800.0 / math.log(10.0)  # 347.43558552260146
REGULARIZE = 1e-3

Pdf = list[tuple[float, float]]  # (score, probability), scores ascending


def logistic_score(elo: float) -> float:
    """Expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def to_pdf(counts: Sequence[float]) -> tuple[float, Pdf]:
    """Total and empirical distribution of counts of scores 0, 1/(n-1), ..., 1."""
    regular = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(regular)
    last = len(regular) - 1
    return total, [(i / last, c / total) for i, c in enumerate(regular)]


def mean_var(pdf: Pdf) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _root(f: Callable[[float], float], low: float, high: float) -> float:
    """A root of the monotone ``f`` in (low, high), by bisection to machine precision."""
    f_low = f(low)
    for _ in range(200):
        mid = (low + high) / 2.0
        f_mid = f(mid)
        if f_mid == 0.0 or high - low < 1e-15:
            return mid
        if (f_mid < 0.0) == (f_low < 0.0):
            low, f_low = mid, f_mid
        else:
            high = mid
    return (low + high) / 2.0


def _secular(pdf: Pdf) -> float:
    """The x with ``sum p_i a_i / (1 + x a_i) = 0`` (the a_i take both signs)."""
    values = [a for a, _ in pdf]
    v, w = min(values), max(values)
    eps = 1e-9
    return _root(
        lambda x: sum(p * a / (1.0 + x * a) for a, p in pdf), -1.0 / w + eps, -1.0 / v - eps
    )


def mle_with_mean(pdf: Pdf, s: float) -> Pdf:
    """The maximum-likelihood distribution on ``pdf``'s scores whose mean is ``s``."""
    shifted = [(a - s, p) for a, p in pdf]
    x = _secular(shifted)
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdf]


def mle_with_t(pdf: Pdf, ref: float, t: float) -> Pdf:
    """The maximum-likelihood distribution whose ``(mean - ref) / sigma`` is ``t``."""
    mle = [(a, 1.0 / len(pdf)) for a, _ in pdf]
    for _ in range(20):
        before = mle
        mu, var = mean_var(mle)
        sigma = math.sqrt(var)
        shifted = [(a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0, p) for a, p in pdf]
        x = _secular(shifted)
        mle = [(a, p / (1.0 + x * b)) for (a, p), (b, _) in zip(pdf, shifted, strict=True)]
        if max(abs(q0 - q1) for (_, q0), (_, q1) in zip(before, mle, strict=True)) < 1e-9:
            break
    return mle


def llr(counts: Sequence[float], elo0: float, elo1: float, model: Model = "logistic") -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) over H0 (elo0) for ``counts``."""
    if len(counts) not in (3, 5):
        raise ValueError("counts are trinomial (L, D, W) or pentanomial (5 pair scores)")
    total, pdf = to_pdf(counts)
    if model == "logistic":
        pdf0 = mle_with_mean(pdf, logistic_score(elo0))
        pdf1 = mle_with_mean(pdf, logistic_score(elo1))
    else:
        scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
        pdf0 = mle_with_t(pdf, 0.5, elo0 / NELO_PER_T * scale)
        pdf1 = mle_with_t(pdf, 0.5, elo1 / NELO_PER_T * scale)
    per_result = sum(
        p * (math.log(q1) - math.log(q0))
        for (_, p), (_, q0), (_, q1) in zip(pdf, pdf0, pdf1, strict=True)
    )
    return total * per_result


def normalized_elo(counts: Sequence[float], z: float = 1.959963984540054) -> tuple[float, float]:
    """Normalized Elo of the counts and the half-width of its ``z`` interval.

    nElo = (mu - 1/2) / sigma per game * 800/ln 10, where for pentanomial
    counts sigma per game is sqrt(2) times the sigma of a pair's mean score.
    Unbounded (+-inf) while every result is the same score (no variance).
    """
    if sum(1 for c in counts if c > 0) < 2:
        best = max(range(len(counts)), key=lambda i: counts[i])
        centre = (len(counts) - 1) / 2
        sign = 0.0 if best == centre else math.copysign(math.inf, best - centre)
        return sign, math.inf
    total, pdf = to_pdf(counts)
    mu, var = mean_var(pdf)
    sigma_pg = math.sqrt(2.0 * var) if len(counts) == 5 else math.sqrt(var)
    games = 2.0 * total if len(counts) == 5 else total
    nelo = (mu - 0.5) / sigma_pg * NELO_PER_T
    return nelo, z * NELO_PER_T / math.sqrt(games)
