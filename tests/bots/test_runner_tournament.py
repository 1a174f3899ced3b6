"""Tournaments: pairings, the Bradley-Terry fit against exact values, the CLI's crosstable."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import tournament_cmd
from p2p66.runner.ratings import RatingError, fit
from p2p66.runner.tournament import pairings


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    tournament_cmd.register(app)
    return app


def invoke(app: typer.Typer, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_pairings() -> None:
    assert [(p.a, p.b) for p in pairings(4, "round-robin")] == [
        (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3),
    ]  # fmt: skip
    assert [(p.a, p.b) for p in pairings(4, "gauntlet")] == [(0, 1), (0, 2), (0, 3)]
    assert [p.number for p in pairings(3, "round-robin")] == [0, 1, 2]
    with pytest.raises(ValueError, match="two bots"):
        pairings(1, "gauntlet")


def test_the_fit_recovers_consistent_odds_exactly() -> None:
    """Odds 3:1, 3:1 and 9:1 fit exactly: 400 log10 3 Elo between neighbours."""
    results = {("a", "b"): (75.0, 100), ("b", "c"): (75.0, 100), ("a", "c"): (90.0, 100)}
    a, b, c = fit(["a", "b", "c"], results, prior=0)
    step = 400 * math.log10(3)
    assert (a.elo, b.elo, c.elo) == pytest.approx((step, 0.0, -step), abs=1e-9)
    assert a.error == pytest.approx(c.error) and b.error < a.error


def test_two_bots_give_the_logistic_elo_and_the_binomial_interval() -> None:
    a, b = fit(["a", "b"], {("a", "b"): (60.0, 100)}, prior=0)
    assert a.elo - b.elo == pytest.approx(400 * math.log10(60 / 40))
    # var(r_a - r_b) = 1 / (n p q); each rating carries half the difference
    half = 1.959963984540054 * 400 / math.log(10) / math.sqrt(100 * 0.6 * 0.4) / 2
    assert a.error == pytest.approx(half)


def test_the_prior_keeps_a_clean_sweep_finite_and_groups_must_connect() -> None:
    a, b = fit(["a", "b"], {("a", "b"): (10.0, 10)})
    assert math.isfinite(a.elo) and a.elo > 150 and a.elo == pytest.approx(-b.elo)
    with pytest.raises(RatingError, match="never played"):
        fit(["a", "b", "c", "d"], {("a", "b"): (5.0, 10), ("c", "d"): (5.0, 10)})


@pytest.mark.timeout(120)
def test_a_gauntlet_with_results_files_and_resume(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ("tournament", "expert", "random", "greedy", "--gauntlet", "--out", str(out))
    code, text = invoke(app, *args, "--matches", "4")
    assert code == 0, text
    assert "gauntlet of 3 bots, 2 pairings, 8 matches" in text
    assert text.index("expert") < text.index("random")  # ranked: expert first
    files = sorted(p.name for p in out.glob("*.ndjson"))
    assert files == ["00-expert-vs-random.ndjson", "01-expert-vs-greedy.ndjson"]
    code, text = invoke(app, *args, "--matches", "6", "--resume")
    assert code == 0, text
    assert "12 matches" in text
    games = [json.loads(line) for line in (out / files[0]).read_text().splitlines()]
    assert [g["game"] for g in games if g["type"] == "game"] == [0, 1, 2, 3, 4, 5]


@pytest.mark.timeout(120)
def test_every_pairing_plays_the_same_deals(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, text = invoke(app, "tournament", "random", "greedy", "expert", "--hands", "4",
                        "--out", str(out))  # fmt: skip
    assert code == 0, text
    decks = []
    for path in sorted(out.glob("*.ndjson")):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        decks.append([g["deals"][0]["deck"] for g in lines if g["type"] == "game"])
    assert len(decks) == 3 and decks[0] == decks[1] == decks[2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("random",), "at least two bots"),
        (("random", "random"), "appear once"),
        (("random", "greedy", "--resume"), "needs --out DIR"),
        (("random", "greedy", "--hands", "3"), "odd"),
    ],
)
def test_bad_tournaments(app: typer.Typer, args: tuple[str, ...], message: str) -> None:
    code, text = invoke(app, "tournament", *args)
    assert code == 2 and message in text, text
