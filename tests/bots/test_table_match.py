"""`p2p66 match` on the games for three and four players: seatings, records, statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2p66.cli.app import app
from p2p66.engine.table import table_options, table_preset
from p2p66.runner.table_run import TableRunConfig, pair_stats, run_table, seating, win_rates


def test_partnerships_swap_sides_on_the_same_deals() -> None:
    config = TableRunConfig(table_preset("north-american"), ("expert", "random"), 4)
    assert [seating(config, g) for g in range(4)] == [
        (0, (0, 1, 0, 1)),
        (0, (1, 0, 1, 0)),
        (1, (0, 1, 0, 1)),
        (1, (1, 0, 1, 0)),
    ]


def test_three_bots_take_every_seat_in_turn() -> None:
    config = TableRunConfig(table_preset("cut-throat"), ("a", "b", "c"), 3)
    assert [seating(config, g)[1] for g in range(3)] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    with pytest.raises(ValueError, match="three bots"):
        TableRunConfig(table_preset("cut-throat"), ("a", "b"), 3)
    with pytest.raises(ValueError, match="two bots"):
        TableRunConfig(table_preset("south-bend"), ("a", "b", "c"), 3)


def test_a_run_records_every_match_and_the_stronger_bot_wins() -> None:
    opts = table_options("north-american", {"match_target": 4})
    config = TableRunConfig(opts, ("expert", "random"), 6, seed=3)
    records = run_table(config)
    assert [r.game for r in records] == list(range(6))
    assert all(r.deal_seed == records[2 * (r.group)].deal_seed for r in records)
    (wins_a, _), (wins_b, _) = win_rates(config, records)
    assert wins_a + wins_b == 6 and wins_a >= 5
    stat = pair_stats(config, records)[0]
    assert (stat.a, stat.b) == ("A", "B") and stat.estimate.score > 0.5
    again = run_table(config)
    same = [(r.scores, r.winner, r.moves) for r in records]
    assert [(r.scores, r.winner, r.moves) for r in again] == same  # seeded: the same run twice


def test_three_handed_round_robin_of_two_player_bots() -> None:
    opts = table_options("three-handed", {"match_target": 3})
    config = TableRunConfig(opts, ("expert", "greedy", "random"), 3, seed=2)
    records = run_table(config)
    for r in records:
        assert sorted(r.places)[0] == 1 and r.winner is not None
        assert r.places["ABC".index(r.winner)] == 1


def test_match_command_writes_ndjson(tmp_path: Path) -> None:
    out = tmp_path / "r.ndjson"
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "match",
            "--preset",
            "cut-throat",
            "expert",
            "greedy",
            "random",
            "--matches",
            "2",
            "-o",
            "match_target=3",
            "--out",
            str(out),
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 3  # rounded up to a whole rotation of the three seatings
    assert {tuple(x["seats"]) for x in lines} == {("A", "B", "C"), ("B", "C", "A"), ("C", "A", "B")}
    assert "A over B: score" in result.output and "Elo" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "cut-throat", "expert", "random"], "played by three bots"),
        (["--preset", "north-american", "expert", "nobody"], "unknown bot 'nobody'"),
        (["--preset", "north-american", "expert", "random", "--sprt", "0", "5"], "--sprt"),
        (["--preset", "north-american", "expert", "random", "-o", "moon=3"], "unknown rule"),
        (["--preset", "sixty-six", "expert", "random", "greedy"], "two-player game"),
    ],
)
def test_match_command_refuses_clearly(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["match", *args, "--no-progress"])
    assert result.exit_code == 2 and message in result.output
