"""A killed peer restarted with --resume continues its match (real loopback TCP, subprocesses)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest

from p2p66.replay.fileio import read_replay
from p2p66.session.machine import Machine, Stage

CMD = [sys.executable, "-m", "p2p66.cli.app"]
KILL_AT = 25
"""Records in the victim's replay when it is killed: the first hand is being played."""


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "P2P66_HOME": str(home)}


def _start(args: list[str], home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CMD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home)
    )


def _records(folder: Path) -> int:
    files = list(folder.glob("*.p66"))
    return len(read_replay(files[0]).records) if files else 0


def _wait_for_records(folder: Path, count: int, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while _records(folder) < count:
        assert time.monotonic() < deadline, f"no {count} records in {folder} in time"
        time.sleep(0.01)


def _stored_port(home: Path) -> int:
    """The host's port as the joiner's resume state keeps it."""
    return int(msgpack.unpackb((home / "resume" / "join.match").read_bytes())["port"])


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)  # also closes its pipes


def _verify(path: Path) -> Machine:
    machine = Machine()
    for record in read_replay(path).records:
        machine.receive(record)
    return machine


class Match:
    """A bot match between two CLI processes, each with its own p2p66 home."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.hr, self.jr = tmp / "hr", tmp / "jr"
        self.host_args = ["--bot", "random", "--seed", "1", "--replay-dir", str(self.hr)]
        self.join_args = ["--bot", "random", "--seed", "2", "--replay-dir", str(self.jr)]
        self.host = _start(
            ["host", "--port", "0", "--bind", "127.0.0.1", "--soundness", "0", "--target", "7",
             "--name", "hosty", "--wait", "30", *self.host_args],
            tmp / "h",
        )  # fmt: skip
        assert self.host.stdout is not None
        code = self.host.stdout.readline().strip()
        assert "@127.0.0.1:" in code
        self.joiner = _start(["join", code, "--name", "joiny", *self.join_args], tmp / "j")

    def restart(self, side: str) -> subprocess.Popen[str]:
        """``kill -9`` one side once its replay is into the first hand, then ``--resume`` it."""
        victim = self.host if side == "host" else self.joiner
        _wait_for_records(self.hr if side == "host" else self.jr, KILL_AT)
        _kill(victim)
        return self.resume(side)

    def resume(self, side: str) -> subprocess.Popen[str]:
        args = self.host_args if side == "host" else self.join_args
        again = _start([side, "--resume", *args], self.tmp / side[0])
        if side == "host":
            self.host = again
        else:
            self.joiner = again
        return again

    def finish(self) -> tuple[tuple[int, str], tuple[int, str]]:
        try:
            _, j_err = self.joiner.communicate(timeout=90)
            _, h_err = self.host.communicate(timeout=30)
        finally:
            for proc in (self.host, self.joiner):
                if proc.poll() is None:
                    proc.kill()
        return (self.host.returncode, h_err), (self.joiner.returncode, j_err)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("side", ["join", "host"])
def test_a_killed_peer_restarted_with_resume_finishes_the_match(tmp_path: Path, side: str) -> None:
    match = Match(tmp_path)
    secrets = tmp_path / side[0] / "resume" / f"{side}.secrets"
    _wait_for_records(match.hr if side == "host" else match.jr, KILL_AT)
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    assert stat.S_IMODE((secrets.parent / f"{side}.match").stat().st_mode) == 0o600
    match.restart(side)
    (h_code, h_err), (j_code, j_err) = match.finish()
    assert h_code == 0, h_err
    assert j_code == 0, j_err
    assert "Resumed at record" in (h_err if side == "host" else j_err)
    assert "match over" in h_err and "match over" in j_err
    (h_file,) = match.hr.glob("*.p66")
    (j_file,) = match.jr.glob("*.p66")
    assert h_file.read_bytes() == j_file.read_bytes()
    machine = _verify(h_file)
    assert machine.stage == Stage.OVER
    assert not secrets.exists(), "the resume state outlived the match"


@pytest.mark.timeout(180)
def test_without_its_secrets_a_restarted_peer_abandons_the_match(tmp_path: Path) -> None:
    match = Match(tmp_path)
    _wait_for_records(match.jr, KILL_AT)
    _kill(match.joiner)
    (tmp_path / "j" / "resume" / "join.secrets").unlink()
    match.resume("join")
    (h_code, h_err), (j_code, j_err) = match.finish()
    assert "hand secrets of this match are gone" in j_err
    assert j_code == 7, j_err  # left the match: not a cheat, not a lost link
    assert h_code not in (1, 4), h_err
    (h_file,) = match.hr.glob("*.p66")
    (j_file,) = match.jr.glob("*.p66")
    for path in (h_file, j_file):
        machine = _verify(path)
        assert machine.stage == Stage.RESIGNED and machine.resigned == 1
    assert h_file.read_bytes() == j_file.read_bytes()


@pytest.mark.timeout(30)
def test_resume_with_nothing_to_resume_says_so(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CMD, "join", "--resume", "--bot", "random"],
        capture_output=True, text=True, timeout=20, env=_env(tmp_path / "j"), check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "no unfinished match to resume" in done.stderr


@pytest.mark.timeout(180)
def test_a_restart_without_resume_is_not_taken_for_the_old_process(tmp_path: Path) -> None:
    match = Match(tmp_path)
    _wait_for_records(match.jr, KILL_AT)
    secrets = (tmp_path / "j" / "resume" / "join.secrets").read_bytes()
    _kill(match.joiner)
    port = _stored_port(tmp_path / "j")
    fresh = subprocess.run(
        [*CMD, "join", "--rematch", f"127.0.0.1:{port}", *match.join_args],
        capture_output=True, text=True, timeout=60, env=_env(tmp_path / "j"), check=False,
    )  # fmt: skip
    assert "can be resumed with 'p2p66 join --resume'" in fresh.stderr
    assert "waiting to resume an earlier, unfinished match" in fresh.stderr
    assert fresh.returncode == 3, fresh.stderr
    assert (tmp_path / "j" / "resume" / "join.secrets").read_bytes() == secrets
    match.resume("join")
    (h_code, h_err), (j_code, j_err) = match.finish()
    assert (h_code, j_code) == (0, 0), h_err + j_err
    replays = [*match.hr.glob("*.p66"), *match.jr.glob("*.p66")]
    assert len(replays) == 3  # the fresh attempt's own file holds no record of the other
    old = [p for p in match.jr.glob("*.p66") if len(read_replay(p).records) > 1]
    (h_file,) = match.hr.glob("*.p66")
    assert [h_file.read_bytes()] == [p.read_bytes() for p in old]
