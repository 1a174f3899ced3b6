"""Leaving on purpose is a signed resignation, even by a signal; silence is abandonment.

The real CLI over loopback: a bot hosts, a human joins with ``--plain`` and
never types. Closing the joiner's terminal (SIGHUP) or stopping it (SIGTERM)
resigns the match: the host is told at once (not after its time limit), both
replays end with the resignation and ``verify`` names the resigner and the
winner; the exit codes are those of ``p2p66/cli/exits.py`` (7 you left, 3 the
other player left). In-process: a silent opponent past the time limit is
claimed to have abandoned the match, with a signed record the verifier accepts.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from livekit import LoopbackMatch

from p2p66.cli.exits import EXIT_LEFT, EXIT_NETWORK
from p2p66.engine import PlayerView
from p2p66.live.game import LiveGame, LiveGameError
from p2p66.live.table import bot_decider
from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.replay.fileio import ReplayWriter, read_replay
from p2p66.replay.report import Ending, Status
from p2p66.replay.verify import verify_file
from p2p66.session import messages as msg
from p2p66.ui.bots import make_table_bot

CMD = [sys.executable, "-m", "p2p66.cli.app"]
FAST = ChannelConfig(heartbeat_interval=0.2, idle_timeout=5.0)


def _records(directory: Path) -> int:
    files = list(directory.glob("*.p66"))
    return len(read_replay(files[0]).records) if files else 0


@pytest.mark.timeout(240)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_resigns_and_the_other_side_is_told_at_once(
    tmp_path: Path, sig: signal.Signals
) -> None:
    env = {**os.environ, "P2P66_HOME": str(tmp_path / "h")}
    host = subprocess.Popen(
        [*CMD, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random", "--soundness",
         "0", "--replay-dir", str(tmp_path / "hr")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    joiner = None
    try:
        assert host.stdout is not None
        code = host.stdout.readline().strip()
        assert "@127.0.0.1:" in code
        joiner = subprocess.Popen(
            [*CMD, "join", code, "--yes", "--plain", "--name", "jo", "--replay-dir",
             str(tmp_path / "jr")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "P2P66_HOME": str(tmp_path / "j"), "PYTHONFAULTHANDLER": "1"},
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while _records(tmp_path / "jr") < 11:  # setup and the deal: the human will move (never)
            assert joiner.poll() is None, joiner.communicate()
            assert time.monotonic() < deadline, "the deal never completed"
            time.sleep(0.1)
        joiner.send_signal(sig)
        try:  # stdin stays open: the signal alone makes it leave
            joiner.wait(timeout=60)
        except subprocess.TimeoutExpired:  # show where it hangs (faulthandler dumps on SIGABRT)
            joiner.send_signal(signal.SIGABRT)
            raise AssertionError(
                f"the joiner did not leave: {joiner.communicate(timeout=5)[1]}"
            ) from None
        _, join_err = joiner.communicate(timeout=5)
        # told at once, not after the 600 s the host waits for a move: under load its
        # exit (replay checked, files closed) can take a while, so allow 60 s of it
        _, host_err = host.communicate(timeout=60)
    finally:
        for proc in (host, joiner):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert joiner.returncode == EXIT_LEFT, join_err
    assert host.returncode == EXIT_NETWORK, host_err
    assert "Traceback" not in join_err + host_err
    why = "terminal was closed" if sig == signal.SIGHUP else "stopped (SIGTERM)"
    assert "You leave the match" in join_err and why in join_err
    files = [next((tmp_path / d).glob("*.p66")) for d in ("hr", "jr")]
    a, b = (read_replay(f).records for f in files)
    assert [(r.seq, r.author) for r in a] == [(r.seq, r.author) for r in b], host_err
    assert files[0].read_bytes() == files[1].read_bytes()
    last = read_replay(files[0]).records[-1]
    assert last.author == 1 and isinstance(msg.decode(last.body), msg.Resign)
    report = verify_file(files[0]).report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED
    assert (report.resigned, report.winner) == (1, 0)
    assert report.headline().startswith("valid: jo resigned") and why in report.headline()


@pytest.mark.timeout(30)
def test_a_silent_opponent_is_claimed_to_have_abandoned_the_match(tmp_path: Path) -> None:
    async def main() -> LiveGameError:
        match = await LoopbackMatch.open(3, FAST)
        writer = ReplayWriter(tmp_path / "host.p66", fsync=False)
        bot = make_table_bot("random", 1, match.options)
        host = match.host
        host_game = LiveGame(host, bot_decider(host, bot), writer=writer, wait_limit=1.0)

        async def silent(view: PlayerView) -> int:
            await asyncio.Event().wait()  # never answers, stays connected
            raise AssertionError("unreachable")

        try:
            return await match.until_the_host_stops(host_game, LiveGame(match.guest, silent))
        finally:
            writer.close()

    exc = asyncio.run(main())
    assert exc.kind == "abandoned" and exc.culprit == 1
    assert "abandoned the match at record" in str(exc) and "win by forfeit" in str(exc)
    report = verify_file(tmp_path / "host.p66").report
    assert report.status is Status.VALID and report.ending is Ending.ABANDONED
    assert (report.abandoned, report.winner) == (1, 0)
    assert "bob abandoned the match at record" in report.headline()
    assert "bob wins" not in report.headline() and "alice wins by forfeit" in report.headline()


@pytest.mark.timeout(30)
@pytest.mark.parametrize("how", ["drops", "closes"])
def test_an_opponent_who_goes_on_its_turn_and_never_returns_abandoned_the_match(
    tmp_path: Path, how: str
) -> None:
    """A link that drops (no reconnection within the grace) or a channel closed without a
    resignation, when the other owed the next record: a signed claim of abandonment."""

    async def main() -> LiveGameError:
        match = await LoopbackMatch.open(4, FAST)
        writer = ReplayWriter(tmp_path / "host.p66", fsync=False)
        bot = make_table_bot("random", 1, match.options)

        async def never_back() -> SecureChannel:
            raise ConnectionRefusedError("nobody is there")

        host = match.host
        host_game = LiveGame(
            host, bot_decider(host, bot), writer=writer, reconnect=never_back, grace=0.5
        )

        async def crash(view: PlayerView) -> int:
            assert guest_game.channel is not None
            if how == "drops":
                guest_game.channel._conn.stream._writer.transport.abort()  # dies on its turn
            else:
                guest_game.channel.close("not today")  # leaves without resigning
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

        guest_game = LiveGame(match.guest, crash)
        try:
            return await match.until_the_host_stops(host_game, guest_game)
        finally:
            writer.close()

    exc = asyncio.run(main())
    assert exc.kind == "abandoned" and exc.culprit == 1, exc
    why = "did not come back" if how == "drops" else "closed the connection (not today)"
    assert why in str(exc) and "abandoned the match at record" in str(exc)
    report = verify_file(tmp_path / "host.p66").report
    assert report.status is Status.VALID and report.ending is Ending.ABANDONED
    assert (report.abandoned, report.winner) == (1, 0)
