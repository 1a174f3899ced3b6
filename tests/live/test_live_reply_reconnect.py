"""Reconnecting a match that began with a reply code or a TCP simultaneous open (loopback).

The joiner's ``ReplyPoint`` and the host's ``Listener`` meet as in the field
(the host dials the reply code from its listening port; for a simultaneous
open the joiner also dials the host's port from its reply port); the link is
cut mid-hand by aborting the TCP connection under the host's channel. Then
each side reconnects its own way (``Hosted`` / ``Joined``, as ``host`` and
``join`` do): the host redials the reply code, the joiner listens again (and
dials again for a simultaneous open). Both resume, the match finishes, and
the two replays are identical and verify.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2p66.cli.internet import Hosted, Joined, host_reconnect
from p2p66.engine import PlayerView, preset
from p2p66.live.game import LiveGame
from p2p66.live.loopback import seeded_rng, signer_of
from p2p66.live.table import bot_decider
from p2p66.net import Identity, KnownPeers, Listener
from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.net.joincode import JoinCode
from p2p66.net.redial import dial_first, targets
from p2p66.net.reply import ReplyPoint
from p2p66.replay.fileio import ReplayWriter
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file
from p2p66.session.peer import Peer
from p2p66.ui.bots import make_table_bot

FAST = ChannelConfig(heartbeat_interval=0.2, idle_timeout=5.0)
ALICE = Identity.from_seed("alice", b"a" * 32)
BOB = Identity.from_seed("bob", b"b" * 32)
WORDS = ("fox", "lamp", "river")
PATHS = ["reply code", "simultaneous open"]


def _cut(channel: SecureChannel) -> None:
    """Drop the TCP connection under ``channel`` (a reset both ends see), like a lost link."""
    channel._conn.stream._writer.transport.abort()  # type: ignore[attr-defined]


async def _closed_port() -> int:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = int(server.sockets[0].getsockname()[1])
    server.close()
    await server.wait_closed()
    return port


async def _match(tmp_path: Path, path: str) -> tuple[LiveGame, LiveGame, Joined, Hosted]:
    options = preset("schnapsen").with_options(match_target=3)
    host_pins = KnownPeers.load(tmp_path / "a.json")
    bob_pins = KnownPeers.load(tmp_path / "b.json")
    listener = await Listener.open(
        ALICE, words=WORDS, bind="127.0.0.1", port=0, known_peers=host_pins, config=FAST
    )
    point = await ReplyPoint.open(BOB, WORDS, known_peers=bob_pins, config=FAST)
    punch = (("127.0.0.1", listener.port),) if path == "simultaneous open" else ()
    # The code's address is what the joiner could not reach (the host's router): a plain
    # reconnection to it fails, as it did before reply matches could resume.
    unreachable = JoinCode(WORDS, "127.0.0.1", await _closed_port())
    host_code = JoinCode(WORDS, "127.0.0.1", listener.port) if punch else unreachable
    reply_code = JoinCode(WORDS, "127.0.0.1", point.port)
    for host, port in punch:
        point.punch(host, port)
    if path == "reply code":  # the host typed the reply code: it dials from its own port
        reader, writer = await dial_first(listener.port, targets([reply_code]), 5)
        adopting = asyncio.create_task(listener.adopt(reader, writer))
    joined_channel = await point.accept(10)
    hosted = Hosted(await listener.accept(10), targets([reply_code]))
    if path == "reply code":
        await adopting
    joined = Joined(joined_channel, [host_code], BOB, bob_pins, point, punch)
    assert joined.path == path
    listener.only_for(hosted.channel.peer)

    host = Peer(0, signer_of(ALICE), options=options, soundness=0, rng=seeded_rng(5, 0))
    guest = Peer(1, signer_of(BOB), rng=seeded_rng(5, 1))
    bots = (make_table_bot("random", 3, options), make_table_bot("random", 4, options))
    host_decide = bot_decider(host, bots[0])
    moves = 0

    async def decide_and_cut(view: PlayerView) -> int:
        nonlocal moves
        moves += 1
        if moves == 3:  # mid-hand: the first hand's third move of the host
            assert host_game.channel is not None
            _cut(host_game.channel)
            await asyncio.sleep(0.1)
        return await host_decide(view)

    host_game = LiveGame(
        host,
        decide_and_cut,
        writer=ReplayWriter(tmp_path / "host.p66"),
        reconnect=host_reconnect(listener, hosted),
        grace=20,
    )
    guest_game = LiveGame(
        guest,
        bot_decider(guest, bots[1]),
        writer=ReplayWriter(tmp_path / "joiner.p66"),
        reconnect=joined.reconnect,
        grace=20,
    )
    try:
        await asyncio.wait_for(
            asyncio.gather(host_game.run(hosted.channel), guest_game.run(joined.channel)), 60
        )
    finally:
        for game in (host_game, guest_game):
            assert game.writer is not None
            game.writer.close()
        await joined.aclose()
        await point.aclose()
        await listener.aclose()
    return host_game, guest_game, joined, hosted


@pytest.mark.timeout(90)
@pytest.mark.parametrize("path", PATHS)
def test_a_dropped_reply_match_resumes_and_finishes(tmp_path: Path, path: str) -> None:
    host, guest, joined, _ = asyncio.run(_match(tmp_path, path))
    assert host.resumes >= 1 and guest.resumes >= 1
    assert host.records == guest.records
    assert (tmp_path / "host.p66").read_bytes() == (tmp_path / "joiner.p66").read_bytes()
    report = verify_file(tmp_path / "host.p66").report
    assert report.status is Status.VALID and report.winner is not None
    assert joined.point is not None and joined.point.expect_key == ALICE.public
    if path == "reply code":
        assert joined.point.came_by == "incoming"  # the host dialled the reply port again
