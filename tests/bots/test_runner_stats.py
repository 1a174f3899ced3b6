"""Elo, intervals, LOS and SPRT arithmetic against hand-computed values."""

from __future__ import annotations

import math

import pytest

from p2p66.runner.records import GameResult
from p2p66.runner.stats import (
    Sprt,
    Summary,
    elo_of,
    estimate,
    los,
    samples_of,
    score_of,
    wilson,
)


def result(game: int, winner: str | None, pair: int | None = None) -> GameResult:
    return GameResult(
        game=game,
        pair=game // 2 if pair is None else pair,
        a_seat=game % 2,
        winner=winner,  # type: ignore[arg-type]
        points=(7, 3) if winner == "a" else (3, 7),
        hands=4,
        moves=80,
        seconds=1.0,
        think=(0.5, 0.5),
        max_move=(0.01, 0.01),
    )


def test_elo_and_score_are_inverse() -> None:
    assert elo_of(0.5) == 0.0
    assert elo_of(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_of(0.0) == -math.inf and elo_of(1.0) == math.inf
    for elo in (-300.0, -50.0, 0.0, 120.0, 400.0):
        assert elo_of(score_of(elo)) == pytest.approx(elo)


def test_estimate_interval() -> None:
    est = estimate([1.0] * 75 + [0.0] * 25)
    assert est.score == 0.75
    var = (100 * 0.75 * 0.25 + 0.75**2 + 0.25**2) / 102  # two pseudo-samples, 0 and 1
    half = 1.959963984540054 * math.sqrt(var / 100)
    assert est.score_low == pytest.approx(0.75 - half)
    assert est.score_high == pytest.approx(0.75 + half)
    assert est.elo_low < est.elo < est.elo_high


def test_wilson_handles_the_edges() -> None:
    p, low, high = wilson(100, 100)
    assert p == 1.0 and high == 1.0 and 0.95 < low < 0.97
    p, low, high = wilson(0, 0)
    assert (low, high) == (0.0, 1.0)


def test_duplicate_samples_average_pairs() -> None:
    results = [result(0, "a"), result(1, "b"), result(2, "a"), result(3, "a")]
    assert samples_of(results, duplicate=True) == [0.5, 1.0]
    assert samples_of(results, duplicate=False) == [1.0, 0.0, 1.0, 1.0]


def test_los() -> None:
    assert los(10, 10) == pytest.approx(0.5)
    assert los(60, 40) == pytest.approx(0.97725, abs=1e-4)
    assert los(0, 0) == 0.5


def test_sprt_bounds_and_llr() -> None:
    sprt = Sprt(0.0, 10.0, 0.05, 0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05))
    samples = [1.0] * 60 + [0.0] * 40
    s0, s1 = score_of(0.0), score_of(10.0)
    mean, var = 0.6, (100 * 0.24 + 0.6**2 + 0.4**2) / 102
    assert sprt.llr(samples) == pytest.approx(100 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var))
    assert sprt.llr([1.0]) == 0.0  # one sample decides nothing


def test_straight_wins_decide_the_sprt() -> None:
    """No variance in the samples must not stall the test (the pseudo-samples see to it)."""
    assert Sprt(0.0, 50.0).state([1.0] * 20) == "H1"
    assert Sprt(0.0, 50.0).state([0.0] * 20) == "H0"
    est = estimate([1.0] * 20)
    assert est.score == 1.0 and est.score_low < 0.95


def test_sprt_decides_both_ways() -> None:
    sprt = Sprt(0.0, 50.0)
    assert sprt.state([1.0] * 70 + [0.0] * 30) == "H1"
    assert sprt.state([1.0] * 30 + [0.0] * 70) == "H0"
    assert sprt.state([1.0, 0.0] * 3) == "continue"


@pytest.mark.parametrize(
    ("args", "message"),
    [((10.0, 0.0), "elo0 < elo1"), ((0.0, 5.0, 0.0), "alpha"), ((0.0, 5.0, 0.05, 0.7), "beta")],
)
def test_sprt_rejects_bad_settings(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(*args)


def test_summary_counts() -> None:
    results = [result(0, "a"), result(1, "b"), result(2, "a"), result(3, None)]
    summary = Summary.of(results, duplicate=True, sprt=Sprt(-10.0, 10.0))
    assert (summary.wins, summary.losses, summary.draws) == (2, 1, 1)
    assert summary.points == (7 + 3 + 7 + 3, 3 + 7 + 3 + 7)
    assert summary.estimate.n == 2
    assert summary.sprt == "continue"
