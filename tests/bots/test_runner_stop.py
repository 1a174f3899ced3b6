"""Stopping a real ``p2p66 match --concurrency 2`` process stops every process it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STUBBORN = """
import json, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only SIGKILL stops this one
print("stubborn bot started", file=sys.stderr, flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "stubborn", "author": "tests"}), flush=True)
    elif m["type"] == "request":
        time.sleep(0.01)
        print(json.dumps({"type": "action", "id": m["id"], "move": m["legal"][0]}), flush=True)
time.sleep(3600)  # ignores the end of its input: nobody but the runner can stop it
"""

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every process."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def _descendants(root: int) -> set[int]:
    table = _processes()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, (ppid, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def _cmdline(pid: int) -> str:
    """The command line of ``pid`` ("" once it has exited: a sample races the processes)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def _alive(pids: set[int]) -> set[int]:
    table = _processes()
    return {pid for pid in pids if pid in table and table[pid][1] not in ("Z", "X")}


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("signum", "concurrency"),
    [(signal.SIGTERM, 2), (signal.SIGKILL, 2), (signal.SIGTERM, 1)],
)
def test_stopping_a_run_stops_workers_tracker_and_bots(
    tmp_path: Path, signum: int, concurrency: int
) -> None:
    """A SIGKILLed serial run cannot stop its bots: they must exit at the end of input."""
    bot = tmp_path / "stubborn.py"
    bot.write_text(STUBBORN)
    out = tmp_path / "run.ndjson"
    command = [
        sys.executable,
        "-m",
        "p2p66.cli.app",
        "match",
        f"{sys.executable} {bot}",
        f"{sys.executable} {bot}",
        "--concurrency",
        str(concurrency),
        "--matches",
        "400",
        "--out",
        str(out),
        "--no-progress",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        want = 2 * concurrency  # two bots per worker
        helpers = 3 if concurrency > 1 else 0  # 2 workers + the resource tracker
        family: set[int] = set()

        def running() -> bool:
            """Every bot and helper is up (a bot just forked shows the runner's command line
            until it has exec'd its own, so one sample may count it out: sample again)."""
            family.clear()
            family.update(_descendants(run.pid))
            bots = {p for p in family if str(bot) in _cmdline(p)}
            return len(bots) >= want and len(family) >= len(bots) + helpers

        assert _wait_for(running, 60), f"the run never had {want} bots and {helpers} helpers"
        os.kill(run.pid, signum)
        run.wait(timeout=30)
        left = family
        assert _wait_for(lambda: not _alive(left), 30), f"still running: {_alive(left)}"
        if signum == signal.SIGTERM:
            assert run.returncode == 128 + signal.SIGTERM
            assert run.stderr is not None and b"stopped by SIGTERM" in run.stderr.read()
        lines = out.read_text().splitlines()
        assert lines and '"type":"start"' in lines[0]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if run.stderr is not None:
            run.stderr.close()
