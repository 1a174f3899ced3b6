"""Lobby then star over real loopback TCP: four seats (one a bot) pass records in chain order."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from p2p66.live.starlink import hub_for, spoke_for
from p2p66.net.channel import ChannelConfig
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode, generate_words
from p2p66.net.lobby import host_table, join_table
from p2p66.net.tcp import Listener
from p2p66.session.records import Chain, make_record

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)


@pytest.mark.timeout(60)
def test_a_seated_table_of_four_relays_every_record_to_every_seat_over_tcp() -> None:
    ids = [Identity.from_seed(f"p{i}", bytes([70 + i]) * 32) for i in range(4)]

    async def main() -> None:
        words = generate_words()
        listener = await Listener.open(ids[0], words=words, bind="127.0.0.1", port=0, config=CONFIG)
        async with listener, asyncio.timeout(30), contextlib.AsyncExitStack() as stack:
            code = JoinCode(words, "127.0.0.1", listener.port)
            hosting = asyncio.create_task(
                host_table(
                    listener, ids[0], seats=4, preset="north-american", bots={3: ids[3]},
                    config=CONFIG,
                )
            )  # fmt: skip
            joined = await asyncio.gather(
                *(join_table(code, ids[n], config=CONFIG) for n in (1, 2))
            )
            hosted = await hosting
            tables = {t.seat: t for t in (*joined, hosted.bots[3])}
            hub = await stack.enter_async_context(hub_for(hosted, ids[0]))
            links = {
                seat: await stack.enter_async_context(spoke_for(t, ids[seat]))
                for seat, t in tables.items()
            }
            chain = Chain()
            for i, author in enumerate([0, 1, 2, 3, 3, 0, 2]):
                record = make_record(
                    chain.next_seq, chain.head, author, b"r%d" % i, ids[author].sign
                )
                chain.advance(record)
                if author == 0:
                    await hub.send_own(record)
                else:
                    await links[author].send_own(record)
                    assert await hub.next_record(timeout=10) == record
                for seat, link in links.items():
                    if seat != author:
                        assert await link.next_record(timeout=10) == record
            for link in links.values():
                assert link.spoke.digests == hub.hub.digests
            for table in (hosted, *tables.values()):
                for channel in table.channels.values():
                    await channel.aclose()

    asyncio.run(main())
