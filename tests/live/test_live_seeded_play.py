"""``p2p66 play --seed N``: the seed alone deals the cards, on any computer, and never online."""

from __future__ import annotations

import ast
import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2p66.engine import preset
from p2p66.live.loopback import loopback_table
from p2p66.replay.fileio import read_replay
from p2p66.session.machine import Machine
from p2p66.ui.launch import PlaySettings
from p2p66.ui.table import MatchOver, automatic

REPO = Path(__file__).resolve().parents[2]


def _decks(tmp_path: Path, home: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every hand's deck of a whole seeded match (first legal move each turn), from its replay."""
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / home))
    options = preset("sixty-six")  # to 7: several hands
    settings = PlaySettings(options, "random", seed, "", 0, seeded=True)
    replays = tmp_path / home / "r"

    async def main() -> None:
        async with loopback_table(settings, soundness=0, replay_dir=replays) as table:
            while True:
                event = await asyncio.wait_for(table.next_event(), 20)
                view = getattr(event, "view", None)
                if view is not None and view.my_turn and automatic(view) is None:
                    await table.submit(view.legal[0].code)
                if isinstance(event, MatchOver):
                    assert event.winner is not None
                    return

    asyncio.run(main())
    machine = Machine()  # the third party's verifier: the replay is valid throughout
    for record in read_replay(next(replays.glob("*.p66"))).records:
        machine.receive(record)
    assert machine.match is not None and machine.match.winner is not None
    return [hand.deck for hand in machine.hands]


@pytest.mark.timeout(120)
def test_a_chosen_seed_deals_the_whole_match_again_on_another_computer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _decks(tmp_path, "alice", 5, monkeypatch)
    again = _decks(tmp_path, "bob", 5, monkeypatch)  # another home: another identity
    other = _decks(tmp_path, "carol", 6, monkeypatch)
    assert len(first) >= 2 and all(deck is not None for deck in first)
    assert first == again
    assert other[0] != first[0]


def _first_hand(tmp_path: Path, home: str, seed: str) -> tuple[list[str], str]:
    """The first hand `p2p66 play --plain --seed` shows, and what it printed in all."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "P2P66_HOME": str(tmp_path / home)}
    result = subprocess.run(
        [sys.executable, "-m", "p2p66.cli.app", "play", "--plain", "--seed", seed, "--delay", "0"],
        input="q\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    lines = result.stdout.splitlines()
    shown = [line for line in lines if line.startswith(("Hand 1:", "Your hand:"))]
    return shown, result.stdout


@pytest.mark.timeout(180)
def test_play_seed_on_the_command_line_deals_the_same_first_hand(tmp_path: Path) -> None:
    first, out = _first_hand(tmp_path, "a", "5")
    again, _ = _first_hand(tmp_path, "b", "5")
    other, _ = _first_hand(tmp_path, "a", "6")
    assert len(first) == 2, out
    assert first == again
    assert other != first
    assert "Verified: valid" in out


def test_derived_secrets_serve_only_games_against_bots_on_this_computer() -> None:
    """A secret anyone can derive must never reach a game against a person (host, join)."""
    users = sorted(
        str(path.relative_to(REPO))
        for path in (REPO / "p2p66").rglob("*.py")
        if any(
            isinstance(node, ast.ImportFrom) and node.module == "p2p66.live.derived"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    )
    assert users == ["p2p66/live/loopback.py", "p2p66/runner/loopback.py"]
