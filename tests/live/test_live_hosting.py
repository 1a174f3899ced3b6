"""``p2p66 host`` as a user meets it over loopback: codes, a fresh code after a wrong guess."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest
from typer.testing import CliRunner

from p2p66.cli.app import app

CLI = [sys.executable, "-m", "p2p66.cli.app"]
STEP = 30.0


class Lines:
    """The lines of a child's output, read by a thread (so no wait depends on buffering)."""

    def __init__(self, stream: IO[str]) -> None:
        self._queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put("")

    def next(self) -> str:
        try:
            return self._queue.get(timeout=STEP)
        except queue.Empty:
            raise AssertionError(f"no output within {STEP} s") from None

    def until(self, text: str) -> str:
        seen = ""
        while text not in seen:
            line = self.next()
            assert line, f"the output ended before {text!r}: {seen}"
            seen += line
        return seen

    def rest(self) -> str:
        return "".join(iter(self.next, ""))


@pytest.mark.timeout(120)
def test_after_a_wrong_guess_enter_gives_a_fresh_code_and_the_match_is_played(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "P2P66_HOME": str(tmp_path / "h")}
    host = subprocess.Popen(
        [*CLI, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random", "--target", "2",
         "--soundness", "0", "--wait", "60", "--replay-dir", str(tmp_path / "hr")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert host.stdin is not None and host.stdout is not None and host.stderr is not None
    join_env = {**os.environ, "P2P66_HOME": str(tmp_path / "j")}
    out, err = Lines(host.stdout), Lines(host.stderr)
    try:
        first = out.next().strip()
        words, address = first.split("@")
        wrong = "-".join(reversed(words.split("-"))) + "@" + address
        guessed = subprocess.run(
            [*CLI, "join", wrong, "--bot", "random"], capture_output=True, text=True,
            timeout=STEP, env=join_env, check=False,
        )  # fmt: skip
        assert guessed.returncode == 3 and "cannot join" in guessed.stderr
        told = err.until("Press Enter for a new join code")
        assert "A join attempt failed, so the code is spent" in told
        host.stdin.write("\n")
        host.stdin.flush()
        fresh = out.next().strip()
        assert fresh != first and fresh.endswith("@" + address)
        joined = subprocess.run(
            [*CLI, "join", fresh, "--bot", "random", "--replay-dir", str(tmp_path / "jr")],
            capture_output=True, text=True, timeout=90, env=join_env, check=False,
        )  # fmt: skip
        host.wait(timeout=STEP)
        host_err = err.rest()
    finally:
        if host.poll() is None:
            host.kill()
        host.__exit__(None, None, None)  # waits, closes the pipes
    assert joined.returncode == 0, joined.stderr
    assert host.returncode == 0, host_err
    (h_file,) = (tmp_path / "hr").glob("*.p66")
    (j_file,) = (tmp_path / "jr").glob("*.p66")
    assert h_file.name.endswith("-match.p66") and j_file.name.endswith("-match.p66")
    assert h_file.read_bytes() == j_file.read_bytes()


@pytest.mark.parametrize("bind", [[], ["--bind", "localhost"]])
def test_a_port_outside_0_65535_is_a_usage_error(bind: list[str]) -> None:
    result = CliRunner().invoke(app, ["host", "--port", "99999", *bind, "--bot", "random"])
    assert result.exit_code == 2
    assert "--port" in result.output and "65535" in result.output
    assert "Traceback" not in result.output


@pytest.mark.timeout(60)
def test_nobody_joining_is_said_once_and_plainly(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random", "--wait", "1"],
        capture_output=True, text=True, timeout=STEP, check=False,
        env={**os.environ, "P2P66_HOME": str(tmp_path / "h")},
    )  # fmt: skip
    assert done.returncode == 3
    assert done.stderr.count("nobody joined") == 1
    assert "nobody joined within 1 s" in done.stderr
