"""``p2p66 bot serve``: the wire forms parse back exactly, and a served bot passes the check."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.bots import parse_bot_spec
from p2p66.bots.random_bot import RandomBot
from p2p66.bots.serve import serve
from p2p66.bots.wire import request_json, turn_from_json, view_from_json, view_json
from p2p66.engine import preset
from p2p66.engine.view import view_of
from p2p66.runner.check import check_bot
from p2p66.runner.deals import deal_deck
from p2p66.runner.run import RunConfig, run
from p2p66.runner.table import HandTable

ROOT = Path(__file__).resolve().parents[2]
SERVE = (sys.executable, "-m", "p2p66.cli.app", "bot", "serve")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(["sixty-six", "schnapsen", "vu"]))
def test_every_request_parses_back_to_the_same_turn(seed: int, name: str) -> None:
    rules = preset(name)
    table = HandTable.deal(rules, deal_deck(seed, 0, 0, rules.deck_size), seed % 2)
    rng = random.Random(seed)
    while not table.is_over:
        turn = table.turn(0.25 if seed % 2 else None)
        wire = json.loads(json.dumps(request_json(turn, 7, 0.05)))
        assert turn_from_json(wire, rules) == turn
        table.play(rng.choice(turn.legal).code)
    for seat in (0, 1):
        end = view_of(table.state, seat)
        assert view_from_json(json.loads(json.dumps(view_json(end))), rules, []) == end


def test_serve_answers_a_conversation_and_survives_garbage() -> None:
    rules = preset("sixty-six")
    table = HandTable.deal(rules, deal_deck(1, 0, 0, 24), 0)
    turn = table.turn(None)
    lines = [
        {"type": "hello", "protocol": "p2p66-bot/1", "engine": "test"},
        {"type": "x-new-thing"},
        {"type": "new_game", "seat": turn.seat, "preset": "sixty-six", "rules": rules.to_dict()},
        {"type": "request", "id": 1, "view": {}},  # malformed: logged, not answered
        request_json(turn, 2, 0.05),
        {"type": "quit"},
    ]
    stdin = io.StringIO("\n".join(json.dumps(m) for m in lines) + "\nnot json\n")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert (
        serve("random", lambda s, r: RandomBot(s), stdin=stdin, stdout=stdout, stderr=stderr) == 0
    )
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [r["type"] for r in replies] == ["ready", "action"]
    assert replies[0]["name"] == "random" and replies[0]["author"].startswith("p2p66")
    assert replies[1]["id"] == 2 and replies[1]["move"] in {m.notation for m in turn.legal}
    assert "malformed request" in stderr.getvalue()


@pytest.mark.timeout(120)
def test_a_served_bot_passes_the_check() -> None:
    report = check_bot((*SERVE, "expert"), games_per_preset=2)
    assert report.ok, report.faults
    assert report.name == "expert"


@pytest.mark.timeout(120)
def test_a_served_bot_plays_a_run_as_strongly_as_the_built_in_one() -> None:
    """One served process plays every game; expert served still beats random every time."""
    rules = preset("sixty-six")
    served = " ".join((*SERVE, "expert"))
    cfg = RunConfig(parse_bot_spec(served), parse_bot_spec("random"), rules, games=4)
    results = run(cfg).results
    assert [r.forfeit for r in results] == [None] * 4
    assert [r.winner for r in results] == ["a"] * 4


def test_serve_refuses_what_is_not_a_built_in_bot() -> None:
    from typer.testing import CliRunner

    from p2p66.cli.app import app

    for name, message in (("python3 x.py", "not a built-in"), ("strong:ms=-1", "positive")):
        result = CliRunner().invoke(app, ["bot", "serve", name])
        assert result.exit_code == 2 and message in result.output
