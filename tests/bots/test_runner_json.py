"""``match --json`` and ``tournament --json``: the final table as one JSON object for scripts."""

from __future__ import annotations

import json
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import match_cmd, tournament_cmd


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    match_cmd.register(app)
    tournament_cmd.register(app)
    return app


def _json(app: typer.Typer, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout  # one object, nothing else on stdout
    document: dict[str, Any] = json.loads(lines[0])
    return document


def test_match_json_is_the_final_table(app: typer.Typer) -> None:
    doc = _json(app, "match", "random", "greedy", "--hands", "6", "--no-progress")
    assert (doc["format"], doc["version"], doc["unit"], doc["seed"]) == (
        "p2p66-match",
        1,
        "hands",
        1,
    )
    a, b = doc["bots"]
    assert (a["label"], b["label"]) == ("random", "greedy")
    assert a["wins"] + a["losses"] + a["draws"] == doc["summary"]["games"] == 6
    assert (a["wins"], a["losses"]) == (b["losses"], b["wins"])
    low, rate, high = a["win_rate"][1], a["win_rate"][0], a["win_rate"][2]
    assert 0 <= low <= rate <= high <= 1
    assert set(doc["summary"]) >= {"score", "elo", "elo_95", "los", "pentanomial"}
    assert doc["forfeited"] == []


def test_match_json_carries_the_sprt(app: typer.Typer) -> None:
    doc = _json(
        app, "match", "random", "greedy", "--hands", "4", "--no-progress", "--sprt", "0", "10"
    )
    assert doc["summary"]["sprt"]["verdict"] in {"H0", "H1", "continue"}


def test_match_json_for_a_game_of_four(app: typer.Typer) -> None:
    doc = _json(app, "match", "--preset", "north-american", "random", "greedy", "--matches", "2")
    assert (doc["format"], doc["preset"], doc["games"]) == ("p2p66-match", "north-american", 2)
    assert [bot["label"] for bot in doc["bots"]] == ["random", "greedy"]
    assert sum(bot["wins"] for bot in doc["bots"]) <= 2
    assert [(p["a"], p["b"]) for p in doc["pairs"]] == [("A", "B")]


def test_match_json_and_results_on_stdout_are_refused(app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["match", "random", "greedy", "--json", "--out", "-"])
    assert result.exit_code == 2
    assert "--json and --out -" in result.output


def test_tournament_json_has_the_crosstable_and_ratings(app: typer.Typer) -> None:
    doc = _json(app, "tournament", "random", "greedy", "expert", "--hands", "4")
    assert (doc["format"], doc["kind"], doc["games"]) == ("p2p66-tournament", "round-robin", 12)
    assert len(doc["pairings"]) == 3
    standings = doc["standings"]
    assert [row["rank"] for row in standings] == [1, 2, 3]
    assert {row["bot"] for row in standings} == {"random", "greedy", "expert"}
    elos = [row["elo"] for row in standings]
    assert elos == sorted(elos, reverse=True)
    for row in standings:
        assert sum(cell["games"] for cell in row["against"].values()) == row["games"] == 8
