"""Elo for many bots from one fit: the Bradley-Terry model, with 95% intervals.

Bot i has strength ``r_i`` (natural-log scale) and scores against bot j
``p_ij = 1 / (1 + exp(r_j - r_i))`` per game; a draw counts half a win
for each. The maximum-likelihood ``r`` comes from Newton's method on the
log-likelihood, with the ratings' mean fixed at 0. Each pairing that was
played also gets ``prior`` virtual drawn games (BayesElo's prior, 2 by
default), so a bot that won or lost everything gets a finite rating; pass
0 for the plain maximum-likelihood fit.

The intervals come from the observed information (the Hessian, a
weighted graph Laplacian ``L``); with the mean fixed at 0 the covariance
is its pseudo-inverse ``(L + J/n)^-1 - J/n`` (J all ones), valid when
every bot is connected to every other through played games. Elo is
``400 / ln 10`` times ``r``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ELO_PER_R = 400.0 / math.log(10.0)
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Rating:
    """One bot's Elo (the field's mean is 0) and the half-width of its 95% interval."""

    name: str
    elo: float
    error: float


class RatingError(ValueError):
    """The results cannot be fitted (a bot with no games, bots in separate groups)."""


def fit(
    names: Sequence[str],
    results: Mapping[tuple[str, str], tuple[float, int]],
    *,
    prior: float = 2.0,
    iterations: int = 100,
) -> list[Rating]:
    """Ratings from ``results[(a, b)] = (a's points, games)`` of every pairing played."""
    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    games = [[0.0] * n for _ in range(n)]
    points = [[0.0] * n for _ in range(n)]  # points[i][j]: i's points against j
    for (a, b), (score, count) in results.items():
        i, j = index[a], index[b]
        games[i][j] += count
        games[j][i] += count
        points[i][j] += score
        points[j][i] += count - score
    for i in range(n):
        for j in range(n):
            if i != j and games[i][j] > 0 and prior > 0:
                games[i][j] += prior
                points[i][j] += prior / 2.0
    _check_connected(names, games)
    r = [0.0] * n
    for _ in range(iterations):
        gradient, info = _derivatives(r, games, points)
        step = _solve_centred(info, gradient)
        r = [x + s for x, s in zip(r, step, strict=True)]
        mean = sum(r) / n
        r = [x - mean for x in r]
        if max(abs(s) for s in step) < 1e-12:
            break
    _, info = _derivatives(r, games, points)
    covariance = _pseudo_inverse(info)
    return [
        Rating(name, ELO_PER_R * r[i], Z95 * ELO_PER_R * math.sqrt(max(0.0, covariance[i][i])))
        for i, name in enumerate(names)
    ]


def _derivatives(
    r: list[float], games: list[list[float]], points: list[list[float]]
) -> tuple[list[float], list[list[float]]]:
    """Gradient of the log-likelihood and the information matrix (minus its Hessian)."""
    n = len(r)
    gradient = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j or games[i][j] == 0:
                continue
            p = 1.0 / (1.0 + math.exp(r[j] - r[i]))
            gradient[i] += points[i][j] - games[i][j] * p
            w = games[i][j] * p * (1.0 - p)
            info[i][j] -= w
            info[i][i] += w
    return gradient, info


def _solve_centred(info: list[list[float]], gradient: list[float]) -> list[float]:
    """The Newton step with mean 0: solve ``(L + J/n) x = g``."""
    n = len(gradient)
    shifted = [[info[i][j] + 1.0 / n for j in range(n)] for i in range(n)]
    return _solve(shifted, gradient)


def _pseudo_inverse(info: list[list[float]]) -> list[list[float]]:
    n = len(info)
    shifted = [[info[i][j] + 1.0 / n for j in range(n)] for i in range(n)]
    columns = [_solve(shifted, [1.0 if k == j else 0.0 for k in range(n)]) for j in range(n)]
    return [[columns[j][i] - 1.0 / n for j in range(n)] for i in range(n)]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the matrices here are tiny)."""
    n = len(vector)
    a = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda k: abs(a[k][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise RatingError("the results do not determine the ratings")
        a[col], a[pivot] = a[pivot], a[col]
        for k in range(col + 1, n):
            factor = a[k][col] / a[col][col]
            for m in range(col, n + 1):
                a[k][m] -= factor * a[col][m]
    x = [0.0] * n
    for k in reversed(range(n)):
        x[k] = (a[k][n] - sum(a[k][m] * x[m] for m in range(k + 1, n))) / a[k][k]
    return x


def _check_connected(names: Sequence[str], games: list[list[float]]) -> None:
    """Every bot must be linked to every other by games, or Elo differences mean nothing."""
    n = len(names)
    if n < 2:
        raise RatingError("ratings need at least two bots")
    seen = {0}
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j in range(n):
            if games[i][j] > 0 and j not in seen:
                seen.add(j)
                frontier.append(j)
    missing = [names[i] for i in range(n) if i not in seen]
    if missing:
        raise RatingError(
            f"{', '.join(missing)} never played (even through others) against {names[0]}"
        )
