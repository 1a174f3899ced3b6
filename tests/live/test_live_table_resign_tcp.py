"""Leaving a network table as processes over loopback TCP: a signed resignation.

A joiner stopped with SIGTERM mid-match resigns with a signed record that
the host relays at once: it exits 7 (it left), the host and the other joiner
exit 3 (another player left), nobody waits out the grace period, and the
three replays are the same bytes, verified as resigned by that seat.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from p2p66.replay.report import Ending, Status
from p2p66.replay.verify import verify_file

CLI = [sys.executable, "-m", "p2p66.cli.app"]
GRACE = "120"  # far longer than the test may take: an end by abandonment would time out


@pytest.mark.timeout(300)
def test_a_joiner_stopped_with_sigterm_resigns_and_the_others_end_at_once(
    tmp_path: Path,
) -> None:
    def run(name: str, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*CLI, *args, "--name", name, "--bot", "greedy", "--plain", "--grace", GRACE,
             "--replay-dir", str(tmp_path / f"r-{name}")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "P2P66_HOME": str(tmp_path / name)},
        )  # fmt: skip

    host = run("hana", "host", "--preset", "three-handed", "--bind", "127.0.0.1", "--port", "0",
               "--wait", "60", "--target", "4")  # fmt: skip
    assert host.stdout is not None
    processes = [host]
    try:
        code = host.stdout.readline().strip()
        jo = run("jo", "join", "--table", code)
        kai = run("kai", "join", "--table", code)
        processes += [jo, kai]
        assert kai.stderr is not None
        seat = None
        for line in kai.stderr:  # its seat, then the end of the first hand: stop it then
            if "<- you" in line:
                seat = int(line.split("seat ")[1].split(":")[0])
            if line.startswith("Hand 1 over"):
                break
        kai.send_signal(signal.SIGTERM)
        outputs = {p: p.communicate(timeout=60)[1] for p in (kai, host, jo)}
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    told = "\n".join(f"--- {p.args[p.args.index('--name') + 1]}:\n{e}" for p, e in outputs.items())
    assert seat is not None
    assert kai.returncode == 7, told
    assert host.returncode == 3 and jo.returncode == 3, told
    assert "You resigned the match (the program was stopped (SIGTERM))" in outputs[kai], told
    for process in (host, jo):
        assert (
            f"kai (seat {seat}) resigned (the program was stopped (SIGTERM))" in (outputs[process])
        ), told
    replays = [next((tmp_path / f"r-{n}").glob("*.p66")) for n in ("hana", "jo", "kai")]
    assert len({r.read_bytes() for r in replays}) == 1, told
    report = verify_file(replays[0]).report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED, report.headline()
    assert f"seat {seat} (kai) resigned (the program was stopped (SIGTERM))" in report.headline()
    assert not (tmp_path / "kai" / "resume" / "table-join.match").exists()  # over: forgotten
