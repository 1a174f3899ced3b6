"""A peer with the code floods us: memory stays bounded; the flooder is blamed, with evidence."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from p2p66.engine import PlayerView, preset
from p2p66.live.game import LiveGame, LiveGameError
from p2p66.live.loopback import seeded_rng, signer_of
from p2p66.live.table import bot_decider
from p2p66.net import Identity, Listener, PeerFlooded, TransportError, join, memory_channel_pair
from p2p66.net.channel import MAX_MESSAGE, ChannelConfig, SecureChannel
from p2p66.replay.fileio import ReplayWriter, read_replay
from p2p66.session.peer import Peer
from p2p66.session.records import make_record
from p2p66.ui.bots import make_table_bot

FAST = ChannelConfig(heartbeat_interval=0.2, idle_timeout=5.0)
BIG = 60_000
FLOOD = 1500  # 90 MB if nothing bounded it


async def _flood(channel: SecureChannel, message: bytes, count: int = FLOOD) -> int:
    """Send ``count`` copies of ``message`` as fast as the link takes them; how many went out."""
    sent = 0
    with contextlib.suppress(TransportError):
        for _ in range(count):
            await channel.send(message)
            sent += 1
    return sent


@pytest.mark.timeout(30)
def test_unread_messages_past_the_bound_end_the_channel_keeping_the_first_ones() -> None:
    async def main() -> tuple[int, list[bytes], BaseException, int]:
        ours, theirs = await memory_channel_pair(config=FAST)
        sent = await _flood(theirs, b"x" * BIG)
        await asyncio.sleep(0.1)
        kept = ours.unread()
        with pytest.raises(PeerFlooded) as info:
            await ours.recv()
        theirs.close()
        return sent, kept, info.value, ours.most_unread

    sent, kept, error, most = asyncio.run(main())
    assert most == len(kept) == FAST.max_in_flight
    assert all(m == b"x" * BIG for m in kept)
    assert sent < FLOOD and f"more than {FAST.max_in_flight} messages" in str(error)


@pytest.mark.timeout(60)
def test_a_flood_while_our_player_thinks_is_bounded_and_blamed_on_the_flooder(
    tmp_path: Path,
) -> None:
    """Real loopback TCP: while Alice thinks, Bob's machine sends 1500 records of 60 KB."""
    options = preset("schnapsen").with_options(match_target=2)
    alice, bob = Identity.from_seed("alice", b"a" * 32), Identity.from_seed("bob", b"b" * 32)

    async def main() -> tuple[LiveGameError, int, int]:
        listener = await Listener.open(
            alice, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0, config=FAST
        )
        host = Peer(0, signer_of(alice), options=options, soundness=0, rng=seeded_rng(5, 0))
        guest = Peer(1, signer_of(bob), rng=seeded_rng(5, 1))
        bot = make_table_bot("random", 2, options)
        thinking = asyncio.Event()

        async def think_forever(view: PlayerView) -> int:
            thinking.set()
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

        writer = ReplayWriter(tmp_path / "alice.p66", fsync=False)
        host_game = LiveGame(host, think_forever, writer=writer)
        guest_game = LiveGame(guest, bot_decider(guest, bot))
        guest_channel = await join(listener.join_code("127.0.0.1"), bob, config=FAST)
        host_channel = await listener.accept(timeout=10)
        guest_task = asyncio.create_task(guest_game.run(guest_channel))
        host_task = asyncio.create_task(host_game.run(host_channel))
        try:
            await asyncio.wait_for(thinking.wait(), 20)
            chain = guest.machine.chain  # a large record, well signed, chained, and unasked for
            big = make_record(chain.next_seq, chain.head, 1, bytes(BIG), signer_of(bob).sign)
            assert len(big.encode()) <= MAX_MESSAGE
            sent = await _flood(guest_channel, big.encode())
            with pytest.raises(LiveGameError) as info:
                await asyncio.wait_for(host_task, 20)
        finally:
            guest_task.cancel()
            with contextlib.suppress(BaseException):
                await guest_task
            listener.close()
            writer.close()
        return info.value, host_channel.most_unread, sent

    error, most, sent = asyncio.run(main())
    assert most <= FAST.max_in_flight and sent < FLOOD
    assert error.culprit == 1 and error.kind in ("cheating", "protocol")
    kept = read_replay(tmp_path / "alice.p66").records
    assert kept[-1].author == 1  # the unasked-for record is in Alice's replay as evidence
