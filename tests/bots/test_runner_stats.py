"""Elo, intervals, LOS and SPRT arithmetic against hand-computed values."""

from __future__ import annotations

import math

import pytest

from p2p66.runner import gsprt
from p2p66.runner.records import GameResult
from p2p66.runner.stats import (
    Sprt,
    Summary,
    counts_of,
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
    counts = (5, 30, 80, 50, 15)
    assert sprt.llr(counts) == pytest.approx(gsprt.llr(counts, 0.0, 10.0))
    assert sprt.llr((0, 0, 0, 0, 0)) == 0.0  # nothing played decides nothing


def test_straight_wins_decide_the_sprt() -> None:
    """No variance in the results must not stall the test (fishtest's regularisation)."""
    assert Sprt(0.0, 50.0).state((0, 0, 0, 0, 30)) == "H1"
    assert Sprt(0.0, 50.0).state((30, 0, 0, 0, 0)) == "H0"
    est = estimate([1.0] * 20)
    assert est.score == 1.0 and est.score_low < 0.95


def test_sprt_decides_both_ways() -> None:
    sprt = Sprt(0.0, 50.0)
    assert sprt.state((30, 0, 0, 0, 70)) == "H1"
    assert sprt.state((70, 0, 0, 0, 30)) == "H0"
    assert sprt.state((3, 0, 0, 0, 3)) == "continue"
    assert sprt.state((0, 70, 30)) == "H1"  # trinomial (L, D, W) without duplicate deals


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
    assert summary.counts == (0, 0, 1, 1, 0)  # pair 0: 1 + 0, pair 1: 1 + ½


def test_pentanomial_counts_take_complete_pairs_only() -> None:
    results = [result(0, "a"), result(1, "a"), result(2, "b"), result(3, "b"), result(4, "a")]
    assert counts_of(results, duplicate=True) == (1, 0, 0, 0, 1)
    assert counts_of(results, duplicate=False) == (2, 0, 3)
    ties = [result(0, None), result(1, None)]
    assert counts_of(ties, duplicate=True) == (0, 0, 1, 0, 0)


# Reference values: fishtest's server/fishtest/stats/LLRcalc.py (LLR_logistic and
# LLR_normalized, with scipy's brentq) run on these counts; 10 digits agree.
FISHTEST = [
    ((10, 20, 40, 20, 10), 0.0, 5.0, -0.0345068510, -0.0207094670),
    ((5, 30, 80, 50, 15), 0.0, 10.0, 2.2829740347, 1.5819503630),
    ((0, 3, 10, 40, 47), 0.0, 100.0, 24.6953698002, 25.1795392984),
    ((300, 2000, 4000, 2100, 320), -1.75, 0.25, 2.7093324201, 1.5286329572),
    ((120, 250, 100), 0.0, 10.0, -1.6423517726, -1.0357624002),
    ((60, 100, 0, 20, 0), 0.0, 5.0, -2.6090171826, -2.7644854893),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "logistic", "normalized"), FISHTEST)
def test_gsprt_matches_fishtest(
    counts: tuple[int, ...], elo0: float, elo1: float, logistic: float, normalized: float
) -> None:
    assert gsprt.llr(counts, elo0, elo1) == pytest.approx(logistic, abs=1e-8)
    assert gsprt.llr(counts, elo0, elo1, "normalized") == pytest.approx(normalized, abs=1e-8)


def test_gsprt_agrees_with_the_brownian_approximation_on_many_pairs() -> None:
    """fishtest's LLR_alt2: N (s1 - s0)(2 mu - s0 - s1) / (2 var), close for large N."""
    counts = (300, 2000, 4000, 2100, 320)
    total, pdf = gsprt.to_pdf(counts)
    mu, var = gsprt.mean_var(pdf)
    s0, s1 = gsprt.logistic_score(-1.75), gsprt.logistic_score(0.25)
    approx = total * (s1 - s0) * (2 * mu - s0 - s1) / var / 2
    assert gsprt.llr(counts, -1.75, 0.25) == pytest.approx(approx, rel=0.01)


def test_normalized_elo() -> None:
    counts = (5, 30, 80, 50, 15)
    nelo, half = gsprt.normalized_elo(counts)
    _, pdf = gsprt.to_pdf(counts)
    mu, var = gsprt.mean_var(pdf)
    assert nelo == pytest.approx((mu - 0.5) / math.sqrt(2 * var) * 800 / math.log(10))
    assert half == pytest.approx(1.959963984540054 * 800 / math.log(10) / math.sqrt(2 * 180))
    assert gsprt.normalized_elo((0, 0, 0, 0, 9)) == (math.inf, math.inf)
    assert gsprt.normalized_elo((0, 0, 4, 0, 0))[0] == 0.0
    with pytest.raises(ValueError, match="trinomial"):
        gsprt.llr((1, 2), 0.0, 5.0)
