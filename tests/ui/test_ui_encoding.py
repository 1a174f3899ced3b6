"""An output that cannot show suit symbols gets the ``--ascii`` table, not a "?" per suit."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from p2p66.cli.output import shows_symbols

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("encoding", "shows"), [("utf-8", True), ("ascii", False), ("latin-1", False)]
)
def test_which_outputs_can_show_the_symbols(encoding: str, shows: bool) -> None:
    assert shows_symbols(io.TextIOWrapper(io.BytesIO(), encoding=encoding)) is shows


@pytest.mark.timeout(90)
def test_play_on_an_ascii_output_names_every_card(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "P2P66_HOME": str(tmp_path)}
    env["PYTHONIOENCODING"] = "ascii"
    played = subprocess.run(
        [sys.executable, "-m", "p2p66.cli.app", "play", "--plain", "--seed", "5", "--delay", "0"],
        input=b"q\n", capture_output=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    out = played.stdout.decode("ascii")  # nothing else was written
    hand = next(line for line in out.splitlines() if line.startswith("Your hand:"))
    assert re.fullmatch(r"Your hand: (\d [2-9TJQKA][CDHS], ){5}\d [2-9TJQKA][CDHS]\.", hand), hand
    assert not re.search(r"(10|[2-9JQKA])\?", out)  # no card shown as "K?"
    assert played.returncode == 7, played.stderr
