"""``p2p66 host --preset north-american --bot-seats 1`` and ``join --table``, as processes.

Three processes over loopback TCP seat a table of four (one bot in the
host's process), every one prints the same signed seating, then all stop
with the clear "not yet playable over the network" error and exit code 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2p66.live.tablelobby import parse_bot_seats

CLI = [sys.executable, "-m", "p2p66.cli.app"]
STEP = 60.0


@pytest.mark.timeout(120)
def test_three_processes_seat_a_table_of_four_and_stop_before_the_deal(tmp_path: Path) -> None:
    env = {**os.environ, "P2P66_HOME": str(tmp_path / "host")}
    host = subprocess.Popen(
        [*CLI, "host", "--preset", "north-american", "--bot-seats", "1", "--bind", "127.0.0.1",
         "--port", "0", "--wait", "60", "--name", "hana"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert host.stdout is not None and host.stderr is not None
    joiners: list[subprocess.Popen[str]] = []
    try:
        code = host.stdout.readline().strip()  # the host prints its code at once
        for name in ("jo", "kai"):
            joiner = subprocess.Popen(
                [*CLI, "join", "--table", code, "--yes", "--name", name],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "P2P66_HOME": str(tmp_path / name)},
            )
            joiners.append(joiner)
        results = [p.communicate(timeout=STEP) for p in joiners]
        host_err = host.communicate(timeout=STEP)[1]
    finally:
        for process in (host, *joiners):
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    assert host.returncode == 2, host_err
    assert "not yet playable over the network" in host_err
    tables = {line for line in host_err.splitlines() if line.startswith("Table ")}
    assert len(tables) == 1
    for process, (_, err) in zip(joiners, results, strict=True):
        assert process.returncode == 2, err
        assert "not yet playable over the network" in err
        assert tables == {line for line in err.splitlines() if line.startswith("Table ")}
        assert "seat 0: hana" in err and "seat 1: expert-1" in err
    seated = [line for line in host_err.splitlines() if "sat down" in line]
    assert len(seated) == 2


def test_bot_seats_are_checked() -> None:
    assert parse_bot_seats("3, 1", 4) == (1, 3)
    assert parse_bot_seats(None, 3) == ()
    for text, error in [("0", "1 to 3"), ("4", "1 to 3"), ("1,1", "twice"), ("1,2,3", "a person")]:
        with pytest.raises(ValueError, match=error):
            parse_bot_seats(text, 4)
