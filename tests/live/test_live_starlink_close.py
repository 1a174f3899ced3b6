"""A joiner keeps the host's last record even when the host closed before its acknowledgement."""

from __future__ import annotations

import asyncio

import pytest
from starkit import Star

from p2p66.live.star import StarSpoke
from p2p66.live.starlink import SpokeLink
from p2p66.net.errors import PeerAborted


class _ClosedAfterOne:
    """A link that delivers one message, then is closed by the other side."""

    def __init__(self, data: bytes) -> None:
        self.data: list[bytes] = [data]

    async def recv(self) -> bytes:
        if self.data:
            return self.data.pop()
        raise PeerAborted("the peer closed the connection: the match is over")

    async def send(self, data: bytes) -> None:
        raise PeerAborted("the peer closed the connection: the match is over")


@pytest.mark.timeout(10)
def test_the_last_record_is_delivered_though_its_acknowledgement_cannot_be_sent() -> None:
    star = Star.of(3)
    record = star.record(0, b"the last move")
    data = dict(star.hub.own(record))[1]
    spoke = StarSpoke(star.seats, 1, star.ids[1].sign)

    async def main() -> None:
        async with SpokeLink(spoke, _ClosedAfterOne(data)) as link:
            assert await link.next_record(timeout=5) == record
            with pytest.raises(PeerAborted):
                await link.next_record(timeout=5)

    asyncio.run(main())
