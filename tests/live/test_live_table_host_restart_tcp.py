"""A table's host process killed mid-hand (SIGKILL) and restarted with ``host --resume``.

Real loopback TCP: the host (seat 0, with a bot at seat 1 in its process) and
two bot joiners play ``north-american``; once the first hand's deal is under
way the host is killed, the joiners redial into nothing, and a new host
process started with ``host --resume`` (same home, same port) takes the
match up from its resume files. Every process ends with exit code 0, and the
three replays (the host's written by two processes) are the same bytes and
verify.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file

CLI = ["nice", "-n", "5", sys.executable, "-m", "p2p66.cli.app"]
"""Niced (``nice`` execs it: the pid is the player's), so that the test's watch on the replay
comes first on a loaded machine."""
STEP = 240.0
"""Seconds any one process may take for its part (generous: a loaded two-core machine)."""
GRACE = "180"
DEALING = 5000
"""Replay bytes past the hellos, rules and coin (about 2.8 kB at four seats) and into the
first deal flight (3.5 kB or more each): the host dies mid-hand, in its first deal."""


class Drain:
    """A process's stderr, read in the background (kept whole, to print on failure)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert process.stderr is not None
        self._stream = process.stderr
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with self._stream:
            for line in self._stream:
                self.lines.append(line)

    def text(self) -> str:
        self._thread.join(timeout=10)
        return "".join(self.lines)


def _replay(folder: Path, timeout: float) -> Path:
    deadline = time.monotonic() + timeout
    while not (found := sorted(folder.glob("*.p66"))):
        if time.monotonic() > deadline:
            raise AssertionError(f"no replay in {folder} within {timeout:g} s")
        time.sleep(0.05)
    return found[0]


@pytest.mark.timeout(900)
def test_a_host_killed_mid_hand_resumes_and_the_match_completes(tmp_path: Path) -> None:
    host_env = {**os.environ, "P2P66_HOME": str(tmp_path / "host")}
    host_args = ["--name", "hana", "--bot", "greedy", "--plain", "--grace", GRACE]
    host = subprocess.Popen(
        [*CLI, "host", "--preset", "north-american", "--bot-seats", "1", "--bind", "127.0.0.1",
         "--port", "0", "--wait", "120", "--target", "3", "--replay-dir",
         str(tmp_path / "r-hana"), *host_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=host_env,
    )  # fmt: skip
    drains = {"host": Drain(host)}
    processes: dict[str, subprocess.Popen[str]] = {"host": host}
    try:
        assert host.stdout is not None
        code = host.stdout.readline().strip()
        for name in ("jo", "kai"):
            processes[name] = subprocess.Popen(
                [*CLI, "join", "--table", code, "--yes", "--name", name, "--bot", "greedy",
                 "--plain", "--grace", GRACE, "--replay-dir", str(tmp_path / f"r-{name}")],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "P2P66_HOME": str(tmp_path / name)},
            )  # fmt: skip
            drains[name] = Drain(processes[name])
        replay = _replay(tmp_path / "r-hana", STEP)
        deadline = time.monotonic() + STEP
        while replay.stat().st_size < DEALING:  # the first hand's deal is under way
            assert host.poll() is None, "the host ended before it could be killed"
            assert time.monotonic() < deadline, "the first deal did not start"
            time.sleep(0.002)
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=30)
        killed_at = replay.stat().st_size
        drains["host"].text()
        time.sleep(1.0)  # the joiners find the host gone and redial into nothing
        again = subprocess.Popen(
            [*CLI, "host", "--resume", *host_args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=host_env,
            )  # fmt: skip
        processes["again"] = again
        drains["again"] = Drain(again)
        for name in ("again", "jo", "kai"):
            processes[name].wait(timeout=STEP)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
            if process.stdout is not None:
                process.stdout.close()
    errs = {name: drain.text() for name, drain in drains.items()}
    everything = "\n".join(f"--- {name} (exit {processes[name].returncode}):\n{err}"
                           for name, err in errs.items())  # fmt: skip
    assert host.returncode == -signal.SIGKILL, everything
    assert killed_at >= DEALING, everything
    assert "Resuming north-american as the host from record" in errs["again"], everything
    for name in ("again", "jo", "kai"):
        assert processes[name].returncode == 0, everything
        assert "The match is over" in errs[name], everything
    print(everything)  # shown with -s, or when an assertion below fails
    for name in ("jo", "kai"):
        assert "the host: connection lost, reconnecting" in errs[name], everything
        assert "the host: reconnected, the match goes on." in errs[name], everything
    replays = [replay, *(_replay(tmp_path / f"r-{n}", 1) for n in ("jo", "kai"))]
    assert len({path.read_bytes() for path in replays}) == 1, everything
    report = verify_file(replay).report
    assert report.status is Status.VALID, report.headline()
    assert not list((tmp_path / "host" / "resume").glob("table-host.*")), "state not forgotten"
    assert (replay.parent / f"{replay.name}.seat1.receipts").stat().st_size > 0
