"""What the replay commands print: nobody can forge it, a closed pipe is no verdict,
players are marked against your pins, and ``show`` steps like a game viewer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from replaykit import REPLAYS, load_generator
from typer.testing import CliRunner

from p2p66.cli.replay_cmd import register
from p2p66.net.identity import KnownPeers, PeerIdentity
from p2p66.replay.fileio import read_replay
from p2p66.session.records import Record
from p2p66.ui.escape import printable, printable_lines

ROOT = Path(__file__).resolve().parents[2]
MATCH = REPLAYS / "golden" / "sixty-six-match.p66"
VERDICT = json.loads((REPLAYS / "golden" / "sixty-six-match.json").read_text())["summary"]
TIMEOUT = 120


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "home"))
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    register(app)
    return app


def invoke(app: typer.Typer, *args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout


# -- escaping


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("alice", "alice"),
        ("José 😀", "José 😀"),
        ("a\rvalid: mallory wins", "a\\u000dvalid: mallory wins"),
        ("\x1b[2K", "\\u001b[2K"),
        ("eve\u202egnp", "eve\\u202egnp"),
        ("x\U000e0001", "x\\udb40\\udc01"),
    ],
)
def test_printable_escapes_what_could_rewrite_the_screen(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert json.loads(f'"{shown}"') == text  # the escapes are JSON's


def test_printable_lines_keeps_line_breaks_only() -> None:
    assert printable_lines("a\nb\rc\n") == "a\nb\\u000dc\n"


def test_a_file_name_with_an_escape_sequence_is_shown_escaped(
    app: typer.Typer, tmp_path: Path
) -> None:
    path = tmp_path / "x\x1b[2Ky.p66"
    path.write_bytes(MATCH.read_bytes())
    code, out = invoke(app, "verify", str(path))
    assert code == 0 and "\x1b" not in out and "x\\u001b[2Ky.p66" in out


# -- a closed pipe is not a verdict


def _gone_reader(*args: str) -> tuple[int, str]:
    """Run the CLI with its output going to a reader that left before reading anything."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "P2P66_HOME": str(ROOT / "no-such-home")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "p2p66.cli.app", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the first line written meets a closed pipe
    with proc.stderr:
        err = proc.stderr.read().decode()
    return proc.wait(timeout=TIMEOUT), err


@pytest.mark.parametrize(
    "command",
    [
        ["verify", str(MATCH)],
        ["verify", "--json", str(MATCH)],
        ["replay", "show", str(MATCH)],
        ["replay", "export", str(MATCH)],
    ],
)
def test_a_closed_pipe_is_no_verdict(command: list[str]) -> None:
    assert _gone_reader(*command) == (0, "")


def test_an_invalid_file_into_a_closed_pipe_is_still_invalid() -> None:
    assert _gone_reader("verify", str(REPLAYS / "invalid" / "illegal-move.p66")) == (1, "")


# -- identities


def _players() -> list[tuple[str, bytes]]:
    gen = load_generator()
    return [(name, gen.public_key(gen.KEYS[seat])) for seat, name in enumerate(gen.NAMES)]


def test_players_are_marked_against_your_pins(app: typer.Typer, tmp_path: Path) -> None:
    (alice, alice_key), (bob, _) = _players()
    pins = KnownPeers.load(tmp_path / "home")
    pins.pin(PeerIdentity("ally", alice_key))
    pins.pin(PeerIdentity(bob, bytes(32)))
    code, out = invoke(app, "verify", str(MATCH))
    assert code == 0
    assert f"{alice} (seat 0, key " in out and "known to you as ally" in out
    assert f"key differs from the one you pinned for {bob}" in out
    doc = json.loads(invoke(app, "verify", "--json", str(MATCH))[1])
    marks = doc["reports"][0]["identities"]
    assert [m["status"] for m in marks] == ["known", "key-differs"]
    assert marks[0]["pinned_name"] == "ally" and marks[1]["pinned_name"] == bob


def test_no_pins_means_unknown_keys_and_a_third_party_can_skip_them(app: typer.Typer) -> None:
    code, out = invoke(app, "verify", str(MATCH))
    assert code == 0 and out.count("unknown key") == 2
    code, out = invoke(app, "verify", "--no-known-peers", str(MATCH))
    assert code == 0 and "unknown key" not in out and "known to you" not in out
    doc = json.loads(invoke(app, "verify", "--json", "--no-known-peers", str(MATCH))[1])
    assert {p["status"] for p in doc["reports"][0]["identities"]} == {"not-checked"}


# -- viewing


def test_show_steps_back_and_forward(app: typer.Typer) -> None:
    code, out = invoke(app, "replay", "show", str(MATCH), "--step", "--ascii", stdin="\nb\n\nq\n")
    assert code == 0
    assert out.count("Trick 1:") == 2 and out.count("Trick 2:") == 2
    assert "Trick 3:" not in out and out.rstrip().endswith(VERDICT)


def test_show_jumps_to_a_hand(app: typer.Typer) -> None:
    code, out = invoke(app, "replay", "show", str(MATCH), "--step", "--ascii", stdin="h 3\nq\n")
    assert code == 0 and "== Hand 3," in out and "== Hand 2," not in out
    assert out.rstrip().endswith(VERDICT)
    code, out = invoke(app, "replay", "show", str(MATCH), "--ascii", "--hand", "2")
    assert code == 0 and "== Hand 2," in out
    assert "== Hand 1," not in out and "== Hand 3," not in out
    assert out.rstrip().endswith(VERDICT)
    code, out = invoke(app, "replay", "show", str(MATCH), "--hand", "99")
    assert code == 2


def test_the_text_export_names_the_drawn_cards(app: typer.Typer) -> None:
    code, out = invoke(app, "replay", "export", str(MATCH))
    assert code == 0
    draws = [line for line in out.splitlines() if line.startswith("   {") and "draws" in line]
    assert draws and all("draws a card" not in line for line in draws)
    records: tuple[Record, ...] = read_replay(MATCH).records
    assert records  # the export is of a verified file


def test_match_into_a_closed_pipe_stops_quietly() -> None:
    """The results stream's reader left: the run stops, silently, with its own code."""
    code, err = _gone_reader("match", "random", "random", "--hands", "4", "--out", "-")
    assert (code, err) == (141, "")
    code, err = _gone_reader("match", "random", "random", "--hands", "2", "--no-progress")
    assert (code, err) == (0, "")
