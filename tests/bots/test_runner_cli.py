"""``p2p66 match`` and ``p2p66 bot`` through typer's CliRunner on a local app."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import bot_cmd, match_cmd

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
    lines = out.read_text().splitlines()
    assert len(lines) == 7 and json.loads(lines[0])["bot_a"] == "expert"


def test_match_resume_continues(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "r.ndjson"
    args = ("match", "random", "random", "--out", str(out), "--no-progress")
    assert invoke(app, *args, "--matches", "4")[0] == 0
    code, text = invoke(app, *args, "--matches", "8", "--resume", "--progress")
    assert code == 0, text
    assert "resuming: 4 of 8 games already played" in text
    assert len(out.read_text().splitlines()) == 9
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


@pytest.mark.timeout(60)
def test_bot_check(app: typer.Typer, tmp_path: Path) -> None:
    code, text = invoke(app, "bot", "check", SAMPLE, "--hands", "1", "--quiet")
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
