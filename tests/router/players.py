"""``p2p66 host`` and ``p2p66 join`` as processes inside the lab's namespaces."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parents[2]
BOT_MATCH: Final = ("--bot", "random", "--seed", "7")
STEP: Final = 30.0


@dataclass
class Player:
    """One CLI process: its stdout read line by line, its stderr kept in a file."""

    proc: subprocess.Popen[str]
    err_path: Path
    lines: list[str]
    queue: queue.Queue[str] = field(default_factory=queue.Queue)
    pump: threading.Thread | None = None

    def __post_init__(self) -> None:
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.queue.put(line)
        self.queue.put("")

    def read_line(self, want: str, timeout: float = STEP) -> str:
        """The next stdout line containing ``want`` (AssertionError with stderr if none)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.queue.get(timeout=left)
            except queue.Empty:
                break
            if not line:
                break
            self.lines.append(line)
            if want in line:
                return line.strip()
        raise AssertionError(f"no line with {want!r}; stdout {self.lines}; stderr:\n{self.err}")

    def wait_err(self, want: str, timeout: float = STEP) -> None:
        """Until stderr holds ``want`` (AssertionError with stderr if it never does)."""
        deadline = time.monotonic() + timeout
        while want not in self.err:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                if want in self.err:
                    return
                raise AssertionError(f"stderr never said {want!r}:\n{self.err}")
            time.sleep(0.02)

    def type_line(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    @property
    def err(self) -> str:
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def finish(self, timeout: float = 90.0) -> int:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"still running after {timeout} s; stderr:\n{self.err}") from None
        return self.proc.returncode

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.finish(30)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        if self.pump is not None:
            self.pump.join(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


RUNNING: list[Player] = []


def kill_all() -> None:
    """Stop every player a test started (the lab fixture calls it, pass or fail)."""
    while RUNNING:
        RUNNING.pop().kill()


def start(ns: str, workdir: Path, who: str, *args: str) -> Player:
    """Run ``p2p66 ARGS`` in namespace ``ns`` with its own P2P66_HOME under ``workdir``."""
    env = {**os.environ, "P2P66_HOME": str(workdir / who), "PYTHONPATH": str(REPO)}
    err_path = workdir / f"{who}.err"
    with err_path.open("w") as err:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-m", "p2p66.cli.app", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        )
    player = Player(proc, err_path, [])
    RUNNING.append(player)
    return player


def host(ns: str, workdir: Path, *extra: str) -> Player:
    return start(
        ns, workdir, "host", "host", "--port", "6666", "--target", "2", "--soundness", "off",
        "--wait", "60", "--replay-dir", str(workdir / "host-replays"), *BOT_MATCH, *extra,
    )  # fmt: skip


def join(ns: str, workdir: Path, code: str, *extra: str) -> Player:
    return start(
        ns, workdir, "joiner", "join", code, "--replay-dir", str(workdir / "joiner-replays"),
        *BOT_MATCH, *extra,
    )  # fmt: skip


def hand_over_reply_code(host: Player, joiner: Player) -> str:
    """The joiner's reply code (its public address, 198.51.100.2), typed into the host."""
    reply = joiner.read_line("198.51.100.2:")
    host.type_line(reply)
    return reply


def both_finish(host: Player, joiner: Player) -> None:
    """Both played the match to the end (exit 0); else their stderr says why."""
    assert joiner.finish() == 0, joiner.err
    assert host.finish() == 0, host.err


def same_replays(workdir: Path) -> bool:
    (h_file,) = (workdir / "host-replays").glob("*.p66")
    (j_file,) = (workdir / "joiner-replays").glob("*.p66")
    return h_file.read_bytes() == j_file.read_bytes()
