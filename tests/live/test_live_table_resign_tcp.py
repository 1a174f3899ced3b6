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
from pathlib import Path

import pytest
from tablecli import CLI, bot_seat, seat_until, stop_all

from p2p66.replay.report import Ending, Status
from p2p66.replay.verify import verify_file

GRACE = "120"  # far longer than the test may take: an end by abandonment would time out


@pytest.mark.timeout(300)
@pytest.mark.parametrize("leaver", ["kai", "hana"])
def test_a_seat_stopped_with_sigterm_resigns_and_the_others_end_at_once(
    tmp_path: Path, leaver: str
) -> None:
    """A joiner (kai) or the host (hana, seat 0) is stopped after the first hand."""

    def run(name: str, *args: str) -> subprocess.Popen[str]:
        return bot_seat(tmp_path, name, *args, "--grace", GRACE)

    host = run("hana", "host", "--preset", "three-handed", "--bind", "127.0.0.1", "--port", "0",
               "--wait", "60", "--target", "4")  # fmt: skip
    assert host.stdout is not None
    processes = {"hana": host}
    outputs: dict[str, str] = {}
    try:
        code = host.stdout.readline().strip()
        processes["jo"] = run("jo", "join", "--table", code)
        processes["kai"] = run("kai", "join", "--table", code)
        stopped = processes[leaver]
        seat = seat_until(stopped, "Hand 1 over")  # then stop it
        stopped.send_signal(signal.SIGTERM)
        outputs = {n: p.communicate(timeout=60)[1] for n, p in processes.items()}
    finally:
        stop_all(processes.values())
    told = "\n".join(f"--- {name}:\n{err}" for name, err in outputs.items())
    assert seat is not None
    why = "(the program was stopped (SIGTERM))"
    for name, process in processes.items():
        assert process.returncode == (7 if name == leaver else 3), told
        said = (
            f"{leaver} (seat {seat}) resigned {why}"
            if name != leaver
            else f"You resigned the match {why}"
        )
        assert said in outputs[name], told
    replays = [next((tmp_path / f"r-{n}").glob("*.p66")) for n in processes]
    assert len({r.read_bytes() for r in replays}) == 1, told
    report = verify_file(replays[0]).report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED, report.headline()
    assert f"seat {seat} ({leaver}) resigned {why}" in report.headline()
    for joiner in ("jo", "kai"):  # over: nothing to resume
        assert not (tmp_path / joiner / "resume" / "table-join.match").exists()


@pytest.mark.timeout(300)
def test_q_piped_to_a_plain_person_seat_resigns_for_it(tmp_path: Path) -> None:
    """A person's ``--plain`` seat (no bot) whose input says ``q`` once the first hand is
    under way: its process resigns and exits 7, the others 3, one replay."""
    host = bot_seat(tmp_path, "hana", "host", "--preset", "three-handed", "--bind",
                    "127.0.0.1", "--port", "0", "--wait", "60", "--grace", GRACE)  # fmt: skip
    assert host.stdout is not None
    processes = {"hana": host}
    outputs: dict[str, str] = {}
    try:
        code = host.stdout.readline().strip()
        processes["jo"] = bot_seat(tmp_path, "jo", "join", "--table", code, "--grace", GRACE)
        kai = subprocess.Popen(
            [*CLI, "join", "--table", code, "--yes", "--name", "kai", "--plain",
             "--grace", GRACE, "--replay-dir", str(tmp_path / "r-kai")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "P2P66_HOME": str(tmp_path / "kai")},
        )  # fmt: skip
        processes["kai"] = kai
        assert kai.stdout is not None and kai.stdin is not None
        first = kai.stdout.readline()  # the story has begun: the first hand is dealt
        kai.stdin.write("q\n")
        kai.stdin.flush()
        outputs = {n: p.communicate(timeout=60)[1] for n, p in processes.items()}
    finally:
        stop_all(processes.values())
    told = "\n".join(f"--- {name}:\n{err}" for name, err in outputs.items())
    assert first, told
    for name, process in processes.items():
        assert process.returncode == (7 if name == "kai" else 3), told
    assert "You resigned the match (left the match)" in outputs["kai"], told
    replays = [next((tmp_path / f"r-{n}").glob("*.p66")) for n in processes]
    assert len({r.read_bytes() for r in replays}) == 1, told
    report = verify_file(replays[0]).report
    assert report.ending is Ending.RESIGNED and "(kai) resigned (left the match)" in (
        report.headline()
    ), report.headline()
