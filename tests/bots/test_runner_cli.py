"""``p2p66 match`` and ``p2p66 bot`` through typer's CliRunner on a local app."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import bot_cmd, match_cmd
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.replay.story import hand_stories
from p2p66.replay.verify import verify_file

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = f"{sys.executable} {ROOT / 'scripts' / 'sample_bot.py'}"


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)  # plain errors: never wrapped to the width

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    match_cmd.register(app)
    bot_cmd.register(app)
    return app


def invoke(app: typer.Typer, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_match_prints_the_table_and_streams_results(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "r.ndjson"
    code, text = invoke(
        app, "match", "expert", "greedy", "--matches", "6", "--out", str(out), "--no-progress"
    )
    assert code == 0, text
    assert "expert vs greedy: 6 matches" in text
    assert "Elo" in text and "LOS" in text and "Win rate" in text
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["start"] + ["game"] * 6 + ["summary"]
    assert lines[0]["bot_a"] == "expert"
    assert lines[-1]["games"] == 6 and sum(lines[-1]["pentanomial"]) == 3


def test_match_resume_continues(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "r.ndjson"
    args = ("match", "random", "random", "--out", str(out), "--no-progress")
    assert invoke(app, *args, "--matches", "4")[0] == 0
    code, text = invoke(app, *args, "--matches", "8", "--resume", "--progress")
    assert code == 0, text
    assert "resuming: 4 of 8 games already played" in text
    types = [json.loads(line)["type"] for line in out.read_text().splitlines()]
    assert types == ["start"] + ["game"] * 8 + ["summary"]  # the old summary is replaced
    code, text = invoke(app, *args, "--matches", "8")
    assert code == 2 and "--resume" in text
    code, text = invoke(app, "match", "random", "random", "--resume", "--out", "-")
    assert code == 2 and "needs --out FILE" in text


def test_match_hands_sprt_and_stdout(app: typer.Typer) -> None:
    code, text = invoke(
        app,
        "match",
        "expert",
        "random",
        "--hands",
        "300",
        "--sprt",
        "0",
        "100",
        "--out",
        "-",
        "--no-progress",
    )
    assert code == 0
    assert "H1 accepted" in text and "Stopped early" in text
    assert '"type":"game"' in text
    summary = json.loads(next(line for line in text.splitlines() if '"summary"' in line))
    sprt = summary["sprt"]
    assert sprt["verdict"] == "H1" and sprt["llr"] >= sprt["upper"] > 0 > sprt["lower"]
    assert "Pairs scored 0-½-1-1½-2:" in text and "nElo" in text


def test_match_reports_forfeits_with_exit_code_1(app: typer.Typer, tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.exit(1)\n")
    code, text = invoke(
        app, "match", f"{sys.executable} {bad}", "random", "--matches", "2", "--no-progress"
    )
    assert code == 1, text
    assert "Forfeits:" in text and "crash" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuchbot-xyz", "random"), "neither a built-in bot"),
        (("random", "random", "--preset", "bridge"), "unknown preset"),
        (("random", "random", "--option", "deck_size=30"), "deck_size"),
        (("random", "random", "--matches", "2", "--hands", "2"), "not both"),
        (("random", "random", "--transport", "pigeon"), "unknown transport"),
        (("random", "random", "--sprt", "10", "0"), "elo0 < elo1"),
        (("strong:budget=1", "random"), "no option"),
        (("vu:rand", "random"), "vu"),
    ],
)
def test_match_bad_input(app: typer.Typer, args: tuple[str, ...], message: str) -> None:
    code, text = invoke(app, "match", *args, "--no-progress")
    assert code == 2, text
    assert message in text


def test_bot_list(app: typer.Typer) -> None:
    code, text = invoke(app, "bot", "list")
    assert code == 0
    for name in ("random", "greedy", "expert", "strong", "strong:ms=", "vu:"):
        assert name in text


@pytest.mark.parametrize("columns", [60, 80])
def test_bot_list_wraps_to_the_terminal(
    app: typer.Typer, columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each option's help wraps between words under its option, not past the edge."""
    monkeypatch.setenv("COLUMNS", str(columns))
    code, text = invoke(app, "bot", "list")
    assert code == 0
    lines = text.splitlines()
    assert max(len(line) for line in lines) < columns
    race = next(i for i, line in enumerate(lines) if "strong:race=" in line)
    assert lines[race + 1].startswith(" " * 14) and lines[race + 1].strip()


@pytest.mark.timeout(60)
def test_bot_check(app: typer.Typer, tmp_path: Path) -> None:
    code, text = invoke(app, "bot", "check", SAMPLE, "--games", "1", "--quiet")
    assert code == 0, text
    assert text.startswith("OK: sample")
    bad = tmp_path / "garbage.py"
    bad.write_text("import sys\nfor line in sys.stdin:\n    print('what?', flush=True)\n")
    code, text = invoke(app, "bot", "check", f"{sys.executable} {bad}", "--quiet")
    assert code == 1
    assert "FAILED" in text and "protocol (handshake)" in text
    code, text = invoke(app, "bot", "check", "/no/such/bot")
    assert code == 2 and "not a command" in text


@pytest.mark.timeout(60)
def test_match_over_loopback(app: typer.Typer) -> None:
    code, text = invoke(
        app, "match", "expert", "random", "--hands", "2", "--transport", "loopback", "--no-progress"
    )
    assert code == 0, text
    assert "expert vs random: 2 hands" in text


def test_bot_stderr_is_kept_beside_the_results_and_named_in_the_fault(
    app: typer.Typer, tmp_path: Path
) -> None:
    bad = tmp_path / "dying.py"
    bad.write_text("import sys\nprint('dying: no weights file', file=sys.stderr)\nsys.exit(1)\n")
    out = tmp_path / "run.ndjson"
    code, text = invoke(
        app,
        "match",
        f"{sys.executable} {bad}",
        "random",
        "--matches",
        "2",
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 1, text
    logs = sorted((tmp_path / "run-bots").iterdir())
    assert logs and all(log.name.startswith("a-") for log in logs)
    assert "dying: no weights file" in logs[0].read_text()
    assert "its stderr is in" in text and str(tmp_path / "run-bots") in text


@pytest.mark.parametrize("flag", ["--hands", "--matches"])
def test_an_odd_count_with_duplicate_deals_is_refused(app: typer.Typer, flag: str) -> None:
    code, text = invoke(app, "match", "random", "random", flag, "3", "--no-progress")
    assert code == 2 and "odd" in text and "give 4" in text
    code, text = invoke(
        app, "match", "random", "random", flag, "3", "--no-duplicate", "--no-progress"
    )
    assert code == 0 and ": 3 " in text


def test_results_on_stdout_start_with_the_start_line(app: typer.Typer) -> None:
    code, text = invoke(
        app, "match", "random", "random", "--hands", "2", "--out", "-", "--no-progress"
    )
    assert code == 0
    first = json.loads(next(line for line in text.splitlines() if line.startswith("{")))
    assert first["type"] == "start" and first["games"] == 2


RECORD_PEERS = {
    "inproc": (),
    "loopback": ("--transport", "loopback", "--replays", "DIR"),
    "replays": ("--replays", "DIR"),
}


def record_blocks(record: Path) -> list[str]:
    return record.read_text().split('[Event "p2p66 match run"]')[1:]


def record_tag(block: str, name: str) -> str:
    match = re.search(rf'^\[{name} "(.*)"\]$', block, re.MULTILINE)
    assert match is not None, f"no {name} tag"
    return match.group(1)


def record_hands(block: str) -> list[list[str]]:
    """Per hand, its moves as 'SEATNAME MOVE' (the time and info comment cut off)."""
    hands: list[list[str]] = []
    for line in block.splitlines():
        if line.startswith("[Hand "):
            hands.append([])
        elif re.match(r"\d+\. ", line):
            hands[-1].append(line.split(" ", 1)[1].split(" {")[0])
    return hands


@pytest.mark.timeout(120)
@pytest.mark.parametrize("peers", sorted(RECORD_PEERS))
def test_the_game_record_file_holds_every_game_and_move(
    app: typer.Typer, tmp_path: Path, peers: str
) -> None:
    """In process and between peers alike: every game, every move with its time, the decks
    of the results file, and (where replays are written) the moves the replay holds."""
    record, out, replays = tmp_path / "games.txt", tmp_path / "run.ndjson", tmp_path / "replays"
    extra = [str(replays) if arg == "DIR" else arg for arg in RECORD_PEERS[peers]]
    code, text = invoke(
        app, "match", "expert", "strong:samples=2", "--matches", "2", "--record", str(record),
        "--out", str(out), "--no-progress", *extra,
    )  # fmt: skip
    assert code == 0, text
    blocks = record_blocks(record)
    games = [json.loads(line) for line in out.read_text().splitlines()]
    games = [g for g in games if g["type"] == "game"]
    assert len(blocks) == 2
    for block, game in zip(blocks, sorted(games, key=lambda g: g["game"]), strict=True):
        assert f'[Game "{game["game"]}"]' in block
        assert '[BotBOptions "{\\"kind\\": \\"builtin\\", \\"options\\": {\\"endgame\\"' in block
        moves = [line for line in block.splitlines() if re.match(r"\d+\. ", line)]
        assert len(moves) == game["moves"]
        assert all(re.search(r" \{\d+\.\d{3}s( |\})", line) for line in moves)  # time used
        decks = [line for line in block.splitlines() if line.startswith("[Deck ")]
        assert [d[7:-2] for d in decks] == [h["deck"] for h in game["deals"]]
        if peers == "inproc":
            assert "[Replay " not in block
            continue
        replay = replays / record_tag(block, "Replay")
        names = (record_tag(block, "Seat0"), record_tag(block, "Seat1"))
        stories = hand_stories(verify_file(replay))
        played = [[f"{names[st.seat]} {MOVE_NOTATION[st.code]}" for st in s.steps] for s in stories]
        assert record_hands(block) == played
