"""``p2p66 host --preset north-american --bot-seats 1`` and ``join --table``, as processes.

Three processes over loopback TCP seat a table of four (one bot in the
host's process), every one prints the same signed seating, then they play
the whole match over the star (every seat a bot, ``--plain``): exit code 0
everywhere, and every process's replay is the same bytes and verifies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tablecli import bot_seat, seat_until

from p2p66.live.tablelobby import parse_bot_seats
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file

CLI = [sys.executable, "-m", "p2p66.cli.app"]
STEP = 60.0


@pytest.mark.timeout(240)
def test_three_processes_seat_a_table_of_four_and_play_the_match(tmp_path: Path) -> None:
    env = {**os.environ, "P2P66_HOME": str(tmp_path / "host")}
    host = subprocess.Popen(
        [*CLI, "host", "--preset", "north-american", "--bot-seats", "1", "--bind", "127.0.0.1",
         "--port", "0", "--wait", "60", "--name", "hana", "--bot", "greedy", "--target", "2",
         "--plain", "--replay-dir", str(tmp_path / "r-hana")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert host.stdout is not None and host.stderr is not None
    joiners: list[subprocess.Popen[str]] = []
    try:
        code = host.stdout.readline().strip()  # the host prints its code at once
        for name in ("jo", "kai"):
            joiner = subprocess.Popen(
                [
                    *CLI,
                    "join",
                    "--table",
                    code,
                    "--yes",
                    "--name",
                    name,
                    "--bot",
                    "greedy",
                    "--plain",
                    "--replay-dir",
                    str(tmp_path / f"r-{name}"),
                ],
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
    assert host.returncode == 0, host_err
    assert "The match is over" in host_err
    tables = {line for line in host_err.splitlines() if line.startswith("Table ")}
    assert len(tables) == 1
    for process, (_, err) in zip(joiners, results, strict=True):
        assert process.returncode == 0, err
        assert "The match is over" in err
        assert tables == {line for line in err.splitlines() if line.startswith("Table ")}
        assert "seat 0: hana" in err and "seat 1: greedy-1" in err
    seated = [line for line in host_err.splitlines() if "sat down" in line]
    assert len(seated) == 2
    replays = [next((tmp_path / f"r-{n}").glob("*.p66")) for n in ("hana", "jo", "kai")]
    assert len({path.read_bytes() for path in replays}) == 1
    assert verify_file(replays[0]).report.status is Status.VALID


def test_bot_seats_are_checked() -> None:
    assert parse_bot_seats("3, 1", 4) == (1, 3)
    assert parse_bot_seats(None, 3) == ()
    for text, error in [("0", "1 to 3"), ("4", "1 to 3"), ("1,1", "twice"), ("1,2,3", "a person")]:
        with pytest.raises(ValueError, match=error):
            parse_bot_seats(text, 4)


@pytest.mark.timeout(240)
def test_a_joiner_killed_mid_match_ends_it_as_abandoned_by_that_seat(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [*CLI, "host", "--preset", "three-handed", "--bind", "127.0.0.1", "--port", "0",
         "--wait", "60", "--name", "hana", "--bot", "greedy", "--plain", "--grace", "1",
         "--replay-dir", str(tmp_path / "r-hana")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "P2P66_HOME": str(tmp_path / "host")},
    )  # fmt: skip
    assert host.stdout is not None
    joiners: dict[str, subprocess.Popen[str]] = {}
    try:
        code = host.stdout.readline().strip()
        for name in ("jo", "kai"):
            joiners[name] = subprocess.Popen(
                [*CLI, "join", "--table", code, "--name", name, "--bot", "greedy", "--plain",
                 "--replay-dir", str(tmp_path / f"r-{name}")],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "P2P66_HOME": str(tmp_path / name)},
            )  # fmt: skip
        kai = joiners["kai"]
        seat = seat_until(kai, "Hand 1 over")  # then kill it
        kai.kill()
        kai.communicate(timeout=10)
        host_err = host.communicate(timeout=STEP)[1]
        jo_err = joiners["jo"].communicate(timeout=STEP)[1]
    finally:
        for process in (host, *joiners.values()):
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    assert seat is not None
    assert host.returncode == 3, host_err
    assert f"abandoned by seat {seat}" in host_err
    assert joiners["jo"].returncode == 3, jo_err
    assert f"abandoned by seat {seat}" in jo_err
    replays = [next((tmp_path / f"r-{n}").glob("*.p66")) for n in ("hana", "jo")]
    report = verify_file(replays[0]).report
    # past the grace the host plays on with the others until the hand needs the killed seat,
    # then signs its claim: the replay is a complete match, abandoned by that seat
    assert report.status is Status.VALID, report.headline()
    assert f"abandoned by seat {seat} (kai)" in report.headline(), report.headline()
    assert replays[0].read_bytes() == replays[1].read_bytes()


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "kill_after",
    [
        "Hand 1 over",
        "Playing; replay",
    ],
)
def test_a_joiner_killed_mid_hand_and_restarted_with_resume_finishes_the_match(
    tmp_path: Path, kill_after: str
) -> None:
    """Killed between the first and second hands, or at once after the seating (its setup or
    first deal)."""

    def run(name: str, *args: str) -> subprocess.Popen[str]:
        return bot_seat(tmp_path, name, *args)

    host = run("hana", "host", "--preset", "three-handed", "--bind", "127.0.0.1", "--port", "0",
               "--wait", "60", "--target", "4")  # fmt: skip
    # 4, not 3: a hand scores at most 3 game points, so the first hand cannot end the match; at 3
    # a schwarz in hand 1 (about 1 run in 17) ended it, the host closed as it should, and the
    # joiner killed after "Hand 1 over" came back to nobody
    assert host.stdout is not None
    processes = [host]
    try:
        code = host.stdout.readline().strip()
        jo = run("jo", "join", "--table", code)
        kai = run("kai", "join", "--table", code)
        processes += [jo, kai]
        seat = seat_until(kai, kill_after)
        kai.send_signal(signal.SIGKILL)
        kai.communicate(timeout=10)
        again = run("kai", "join", "--resume")
        processes.append(again)
        outputs = {p: p.communicate(timeout=200)[1] for p in (again, host, jo)}
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
    told = "\n".join(f"--- {p.args[p.args.index('--name') + 1]}:\n{e}" for p, e in outputs.items())
    for process in outputs:
        assert process.returncode == 0, told  # every seat's stderr: whose side closed first
    assert "Resuming three-handed at seat" in outputs[again]
    assert f"seat {seat} (kai): connection lost, reconnecting" in outputs[host]
    replays = [next((tmp_path / f"r-{n}").glob("*.p66")) for n in ("hana", "jo", "kai")]
    assert len({r.read_bytes() for r in replays}) == 1
    report = verify_file(replays[0]).report
    assert report.status is Status.VALID, report.headline()
    assert not (tmp_path / "kai" / "resume" / "table-join.match").exists()  # over: forgotten
