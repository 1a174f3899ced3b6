"""External bots in the bidding games: the sample bot plays and passes the check;
faulty bots are caught (check) and forfeit (match); the request carries the table view."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from test_bots_external import HEADER, MATCH_ONLY
from typer.testing import CliRunner

from p2p66.bots.table.wire import table_request_json
from p2p66.cli.app import app
from p2p66.engine.table import new_bidding_hand, table_options, table_preset, table_view
from p2p66.runner.check import TABLE_CHECK_PRESETS, check_bot
from p2p66.runner.table_run import TableRunConfig, run_table

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (sys.executable, str(ROOT / "scripts" / "sample_bot.py"))


def bot(tmp_path: Path, body: str) -> tuple[str, ...]:
    path = tmp_path / "bot.py"
    path.write_text(HEADER + textwrap.indent(body, " " * 8) + "\n")
    return (sys.executable, str(path))


def test_the_request_of_a_bidding_game() -> None:
    h = new_bidding_hand(table_preset("cut-throat"), list(range(24)), 0)
    h = h.apply("bid:2").apply("pass")
    msg = table_request_json(table_view(h, 0), 3, 0.5, 0.05)
    assert msg["game"] == "bidding" and msg["legal"] == ["pass", "bid:3", "bid:4"]
    assert msg["hand_number"] == 1
    assert msg["moves"] == [{"seat": 1, "move": "bid:2"}, {"seat": 2, "move": "pass"}]
    view = msg["view"]
    assert view["phase"] == "bid" and view["players"] == 3 and len(view["hand"]) == 7
    assert view["widow"] == [] and view["trump_suit"] is None
    json.dumps(msg)  # plain JSON values only


@pytest.mark.timeout(60)
def test_check_passes_the_sample_bot_on_the_bidding_games() -> None:
    report = check_bot(SAMPLE, games_per_preset=1, presets=(), table_presets=TABLE_CHECK_PRESETS)
    assert report.ok, report.faults
    assert report.hands > 2 and report.moves > 5


# What only a bidding match shows (the two-player twins are in test_bots_external.py).
ONLY_IN_TABLE_MATCHES = {
    "second new_game": "games > 1",
    "hand_number above 1": 'm.get("hand_number", 1) > 1',
    "marks in the match": 'any(m["view"]["scores"])',
    "request after hand_end": "after_end",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("preset", TABLE_CHECK_PRESETS)
@pytest.mark.parametrize("what", sorted(ONLY_IN_TABLE_MATCHES))
def test_check_plays_bidding_matches_as_a_match_does(
    tmp_path: Path, what: str, preset: str
) -> None:
    """A bot that passes single fresh hands of a bidding game but fails in a real match."""
    path = tmp_path / "bot.py"
    path.write_text(MATCH_ONLY.replace("BROKEN", ONLY_IN_TABLE_MATCHES[what]))
    report = check_bot((sys.executable, str(path)), presets=(), table_presets=(preset,))
    assert not report.ok, what
    assert {f.kind for f in report.faults} == {"crash"}
    assert all(preset in f.where for f in report.faults)


@pytest.mark.timeout(60)
def test_one_process_plays_every_bidding_match_of_a_preset(tmp_path: Path) -> None:
    """The second match's new_game reaches the process that played the first one, and the
    hand numbers count up from 1 in each match."""
    log = tmp_path / "log.txt"
    path = tmp_path / "bot.py"
    path.write_text(
        MATCH_ONLY.replace("BROKEN", "False").replace(
            'elif m["type"] == "request":',
            'elif m["type"] == "request":\n'
            f"        open({str(log)!r}, 'a').write(f\"{{games}} {{m['hand_number']}}\\n\")",
        )
    )
    report = check_bot((sys.executable, str(path)), presets=(), table_presets=("cut-throat",))
    assert report.ok, report.faults
    seen = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    assert {game for game, _ in seen} == {1, 2}  # one process: its own count reached 2
    for game in (1, 2):
        numbers = [hand for g, hand in seen if g == game]
        assert numbers[0] == 1 and numbers == sorted(numbers) and numbers[-1] > 1


@pytest.mark.timeout(60)
def test_check_lists_illegal_and_malformed_bids(tmp_path: Path) -> None:
    illegal = bot(tmp_path, 'send({"type": "action", "id": m["id"], "move": "bid:9"})')
    report = check_bot(illegal, games_per_preset=1, presets=(), table_presets=("north-american",))
    assert {f.kind for f in report.faults} == {"protocol"}  # bid:9 is no move at all
    lowest = bot(tmp_path, 'send({"type": "action", "id": m["id"], "move": "declare"})')
    report = check_bot(lowest, games_per_preset=1, presets=(), table_presets=("cut-throat",))
    assert {f.kind for f in report.faults} == {"illegal"}
    assert all("cut-throat" in f.where for f in report.faults) and report.hands > 1


@pytest.mark.timeout(60)
def test_a_crashing_bot_forfeits_its_partnership_the_match(tmp_path: Path) -> None:
    crash = " ".join(bot(tmp_path, "sys.exit(3)"))
    opts = table_options("north-american", {"match_target": 3})
    records = run_table(TableRunConfig(opts, (crash, "random"), 2))
    for r in records:
        assert r.winner == "B" and r.forfeit is not None and r.forfeit.startswith("A: crash")
        assert r.places == (2, 1)


@pytest.mark.timeout(60)
def test_bot_check_command_covers_the_new_presets() -> None:
    result = CliRunner().invoke(app, ["bot", "check", " ".join(SAMPLE), "--hands", "1"])
    assert result.exit_code == 0, result.output
    assert "north-american game 1" in result.output and "cut-throat game 1" in result.output
