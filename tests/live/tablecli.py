"""A table seat as a process: ``p2p66 host`` / ``join`` played by a bot, ``--plain``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

CLI = [sys.executable, "-m", "p2p66.cli.app"]


def bot_seat(folder: Path, name: str, *args: str) -> subprocess.Popen[str]:
    """``p2p66 ARGS`` as ``name`` (a greedy bot, ``--plain``), with its own home
    (``folder/name``) and replays (``folder/r-name``); stdout and stderr piped."""
    return subprocess.Popen(
        [*CLI, *args, "--name", name, "--bot", "greedy", "--plain",
         "--replay-dir", str(folder / f"r-{name}")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "P2P66_HOME": str(folder / name)},
    )  # fmt: skip


def stop_all(processes: Iterable[subprocess.Popen[str]]) -> None:
    """Kill whichever of ``processes`` still runs (a test that failed midway)."""
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def seat_until(process: subprocess.Popen[str], until: str) -> int:
    """Read ``process``'s stderr up to a line starting with ``until``; its seat."""
    assert process.stderr is not None
    seat = None
    for line in process.stderr:
        if "<- you" in line:
            seat = int(line.split("seat ")[1].split(":")[0])
        if line.startswith(until):
            break
    assert seat is not None
    return seat
