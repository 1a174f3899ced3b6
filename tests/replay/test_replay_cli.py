"""``verify``, ``replay show`` and ``replay export`` through typer's CliRunner on a local app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from replaykit import REPLAYS
from typer.testing import CliRunner

from p2p66.cli.replay_cmd import register
from p2p66.engine import parse_move_code
from p2p66.replay.fileio import read_replay

GOLDEN = REPLAYS / "golden"
INVALID = REPLAYS / "invalid"
MATCH = str(GOLDEN / "sixty-six-match.p66")
EXPECTED = json.loads((GOLDEN / "sixty-six-match.json").read_text())
VERDICT = EXPECTED["summary"]  # e.g. "valid: alice wins the match 8-5"
HANDS = len(EXPECTED["hands"])
RESULT = "1-0" if EXPECTED["match"]["winner"] == 0 else "0-1"


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)  # plain errors: never wrapped to the width

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    register(app)
    return app


def invoke(app: typer.Typer, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_verify_valid_file(app: typer.Typer) -> None:
    code, out, _ = invoke(app, "verify", MATCH)
    assert code == 0
    assert out.startswith(f"{MATCH}: {VERDICT}")
    assert "alice (seat 0, key " in out and "hand 6:" in out


def test_verify_exit_codes_and_worst_wins(app: typer.Typer) -> None:
    bad = str(INVALID / "false-marriage.p66")
    junk = str(INVALID / "not-a-replay.p66")
    assert invoke(app, "verify", bad)[0] == 1
    assert invoke(app, "verify", junk)[0] == 2
    assert invoke(app, "verify", str(GOLDEN / "sixty-six-unfinished.p66"))[0] == 0
    code, out, _ = invoke(app, "verify", MATCH, bad, junk)
    assert code == 2
    assert "INVALID at record" in out and "to blame" in out and "unreadable" in out


def test_verify_json_is_one_versioned_document(app: typer.Typer) -> None:
    code, out, _ = invoke(app, "verify", "--json", MATCH, str(INVALID / "wrong-seed-reveal.p66"))
    assert code == 1
    doc = json.loads(out)
    assert doc["format"] == "p2p66-verify-reports" and doc["version"] == 1
    good, bad = doc["reports"]
    assert good["file"] == MATCH and good["status"] == "valid"
    expected = json.loads((GOLDEN / "sixty-six-match.json").read_text())
    assert {k: v for k, v in good.items() if k not in ("file", "identities")} == expected
    assert bad["status"] == "invalid" and bad["error"]["kind"] == "bad-seed-reveal"
    assert bad["error"]["culprit_name"] == "bob"


def test_verify_needs_a_file(app: typer.Typer) -> None:
    assert invoke(app, "verify")[0] == 2  # usage error


def test_show_all_cards(app: typer.Typer) -> None:
    code, out, _ = invoke(app, "replay", "show", MATCH, "--ascii")
    assert code == 0
    assert "view: all cards open" in out
    assert "talon, top first:" in out
    assert "== Hand 6, dealer bob" in out
    assert out.rstrip().endswith(f"Verdict: {VERDICT}")


def test_show_seat_by_number_or_name(app: typer.Typer) -> None:
    by_number = invoke(app, "replay", "show", MATCH, "--seat", "1", "--ascii")
    by_name = invoke(app, "replay", "show", MATCH, "--seat", "Bob", "--ascii")
    assert by_number == by_name
    code, out, _ = by_number
    assert code == 0 and "view: as bob (seat 1) saw it" in out
    assert "talon, top first" not in out and "alice holds 6 cards" in out


def test_show_rejects_an_unknown_seat(app: typer.Typer) -> None:
    code, _, err = invoke(app, "replay", "show", MATCH, "--seat", "carol")
    assert code == 2 and "use 0, 1, all or a player's name" in err


def test_show_step_waits_for_enter_and_stops_on_q(app: typer.Typer) -> None:
    prompt = "-- Enter: next, b: back, h N: hand N, q: stop --"
    code, out, _ = invoke(app, "replay", "show", MATCH, "--step", "--ascii", stdin="\n\nq\n")
    assert code == 0
    assert out.count(prompt) == 3
    assert "Trick 3:" in out and "Trick 4:" not in out
    assert out.rstrip().endswith(VERDICT)  # q stops the game, not the verdict
    code, out, _ = invoke(app, "replay", "show", MATCH, "--step", "--ascii", stdin="")
    assert code == 0 and out.rstrip().endswith(VERDICT)  # end of input: go on


def test_show_invalid_file_shows_the_game_and_the_verdict(app: typer.Typer) -> None:
    code, out, _ = invoke(
        app, "replay", "show", str(INVALID / "revoke-found-by-audit.p66"), "--ascii"
    )
    assert code == 1
    assert "bob plays" in out and "alice plays" in out
    record = json.loads((INVALID / "MANIFEST.json").read_text())["revoke-found-by-audit.p66"][
        "record"
    ]
    assert f"Verdict: INVALID at record {record} (illegal-move)" in out
    assert invoke(app, "replay", "show", str(INVALID / "empty.p66"))[0] == 2


def test_export_text(app: typer.Typer) -> None:
    code, out, _ = invoke(app, "replay", "export", MATCH)
    assert code == 0
    assert '[Seat0 "alice"]' in out and '[Seat1 "bob"]' in out
    assert '[Preset "sixty-six"]' in out and f'[Result "{RESULT}"]' in out
    assert '[Date "????.??.??"]' in out
    assert out.count('[Hand "') == HANDS
    moves = [
        token
        for line in out.splitlines()
        if line[:1].isdigit() and ". " in line
        for token in line.split(". ", 1)[1].split()
        if token not in ("alice", "bob")
    ]
    assert all(parse_move_code(m) >= 0 for m in moves)


def test_export_json_to_a_file(app: typer.Typer, tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    code, out, _ = invoke(app, "replay", "export", MATCH, "--format", "json", "-o", str(target))
    assert code == 0 and out == ""
    doc = json.loads(target.read_text())
    assert doc["format"] == "p2p66-game" and doc["version"] == 1
    assert len(doc["hands"]) == HANDS and doc["result"] == RESULT


def test_export_refuses_invalid_and_unreadable_files(app: typer.Typer) -> None:
    code, out, err = invoke(app, "replay", "export", str(INVALID / "card-never-dealt.p66"))
    assert code == 1 and out == ""
    assert "refusing to export" in err and "not-your-card" in err
    assert invoke(app, "replay", "export", str(INVALID / "future-version.p66"))[0] == 2


def test_export_unfinished_game(app: typer.Typer) -> None:
    code, out, _ = invoke(app, "replay", "export", str(GOLDEN / "sixty-six-unfinished.p66"))
    assert code == 0
    assert '[Termination "unfinished"]' in out and '[Result "*"]' in out
    assert "{unfinished}" in out


def test_export_to_an_unwritable_place(app: typer.Typer, tmp_path: Path) -> None:
    code, _, err = invoke(app, "replay", "export", MATCH, "-o", str(tmp_path))
    assert code == 2 and "cannot write" in err


def test_verify_compares_files_of_the_same_game(app: typer.Typer, tmp_path: Path) -> None:
    copy = tmp_path / "copy.p66"
    copy.write_bytes((GOLDEN / "sixty-six-match.p66").read_bytes())
    short = tmp_path / "short.p66"
    short.write_bytes((GOLDEN / "sixty-six-match.p66").read_bytes()[:60000])
    other = str(GOLDEN / "vu-match.p66")
    code, out, _ = invoke(app, "verify", MATCH, str(copy), str(short), other)
    assert code == 1  # the short copy ends inside a record
    assert f"same game as {copy}: identical records" in out
    fewer = len(read_replay(MATCH).records) - len(read_replay(short).records)
    assert f"same game as {short}, which holds {fewer} fewer records" in out
    assert "vu-match.p66: valid" in out and out.count("same game as") == 3
    forked = [str(INVALID / "illegal-move.p66"), str(INVALID / "dropped-record.p66")]
    code, out, _ = invoke(app, "verify", "--json", *forked)
    (pair,) = json.loads(out)["same_game"]
    assert pair == {"files": forked, "relation": "forked", "record": 11, "extra": 0}
