"""The star relay over real (in-memory) channels: records flow in order; a withheld one is named."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from starkit import TABLE, identities

from p2p66.live.star import RelayFault, Seats, StarHub, StarSpoke
from p2p66.live.starlink import HubLinks, SeatLost, SpokeLink
from p2p66.net.channel import ChannelConfig
from p2p66.net.memory import memory_channel_pair
from p2p66.session.records import Chain, Record, make_record

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)


async def _star(n: int) -> tuple[HubLinks, dict[int, SpokeLink], list[Chain], Seats]:
    ids = identities(n)
    seats = Seats(TABLE, tuple(i.public_key for i in ids))
    host_ends, spokes = {}, {}
    for seat in seats.joiners:
        host_end, joiner_end = await memory_channel_pair(ids[0], ids[seat], config=CONFIG)
        host_ends[seat] = host_end
        spokes[seat] = SpokeLink(StarSpoke(seats, seat, ids[seat].sign), joiner_end)
    return HubLinks(StarHub(seats, ids[0].sign), host_ends), spokes, [Chain()], seats


def _next(chain: Chain, author: int, body: bytes) -> Record:
    record = make_record(chain.next_seq, chain.head, author, body, identities(4)[author].sign)
    chain.advance(record)
    return record


@pytest.mark.timeout(30)
@pytest.mark.parametrize("n", [3, 4])
def test_records_reach_every_seat_in_chain_order_over_channels(n: int) -> None:
    async def main() -> None:
        hub, spokes, (chain,), _ = await _star(n)
        async with hub, contextlib.AsyncExitStack() as stack:
            for spoke in spokes.values():
                await stack.enter_async_context(spoke)
            authors = [0, *range(1, n), 0, 1]
            for i, author in enumerate(authors):
                record = _next(chain, author, f"record {i}".encode())
                if author == 0:
                    await hub.send_own(record)
                else:
                    await spokes[author].send_own(record)
                    assert await hub.next_record(timeout=5) == record
                for seat, spoke in spokes.items():
                    if seat != author:
                        assert await spoke.next_record(timeout=5) == record
            async with asyncio.timeout(10):  # receipts and relayed acknowledgements drain
                for spoke in spokes.values():
                    while spoke.spoke.behind() or spoke.spoke.waiting_for_receipt():
                        await asyncio.sleep(0.01)
            assert hub.hub.acked == dict.fromkeys(spokes, len(authors) - 1)

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_record_the_host_never_receipts_is_reported_withheld() -> None:
    async def main() -> None:
        _, spokes, (chain,), _ = await _star(3)
        link = spokes[1]
        link.receipt_timeout = 0.2
        async with link:
            await link.send_own(_next(chain, 1, b"mine"))  # the host reads it and says nothing
            with pytest.raises(RelayFault) as caught:
                await link.next_record(timeout=10)
            assert (caught.value.culprit, caught.value.kind) == (0, "withheld")

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_joiner_whose_channel_ends_is_named_by_the_hub() -> None:
    async def main() -> None:
        hub, spokes, _, _ = await _star(3)
        async with hub:
            spokes[2].link.close("leaving")  # type: ignore[attr-defined]
            with pytest.raises(SeatLost) as caught:
                await hub.next_record(timeout=5)
            assert caught.value.seat == 2

    asyncio.run(main())
