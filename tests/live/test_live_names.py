"""At the table the player is "you", in the verdict line too; alike names carry fingerprints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_live_games import host_then_join

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(90)
def test_the_verdict_after_a_practice_game_calls_the_player_you(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "P2P66_HOME": str(tmp_path)}
    played = subprocess.run(
        [sys.executable, "-m", "p2p66.cli.app", "play", "--plain", "--name", "Zelda"],
        input="q\n", capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert "Verified: valid: you resigned (left the match); Expert Bot wins the match." in (
        played.stdout
    )
    assert "You resigned, so Expert Bot wins the match (you 0, Expert Bot 0)." in played.stdout
    assert played.returncode == 7  # left early: q is a resignation
    # a bot on this computer: no connection or latency to speak of
    assert played.stdout.startswith("Playing against Expert Bot on this computer.\n")
    assert "Connected to" not in played.stdout
    assert "Zelda" not in played.stdout  # the player is never called by their own name


@pytest.mark.timeout(90)
def test_a_human_who_joins_a_namesake_is_you_and_the_other_has_a_fingerprint(
    tmp_path: Path,
) -> None:
    joined, _, host_err = host_then_join(
        tmp_path,
        ["--bot", "random", "--soundness", "0", "--wait", "30", "--name", "root"],
        ["--name", "root"],
        typed="y\nq\n",
    )
    assert "Verified: valid: you resigned (left the match); root (" in joined.stdout, joined.stdout
    assert not re.search(r"\broot resigned", joined.stdout)
    # the host's bot seat is told about both players, each with a fingerprint
    assert re.search(r"Verified: valid: root \([0-9a-f]{4}\) resigned", host_err), host_err
