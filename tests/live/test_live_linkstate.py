"""Every other seat's link as one seat of the star sees it: linked, quiet N s, lost.

Pure derivations at a given time (no waiting on the clock), then the real
``HubLinks``/``SpokeLink`` over in-memory channels: a joiner whose pump never
runs owes its acknowledgements (quiet); a channel that ends is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import pytest
from starkit import TABLE, identities

from p2p66.live.linkstate import (
    QUIET_AFTER,
    LinkState,
    LinkStatus,
    hub_links,
    link_states,
    spoke_links,
)
from p2p66.live.star import Seats, StarHub, StarSpoke
from p2p66.live.starlink import HubLinks, SpokeLink
from p2p66.net.channel import ChannelConfig
from p2p66.net.memory import memory_channel_pair
from p2p66.session.records import Chain, Record, make_record

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)
LINKED = LinkStatus.LINKED


@dataclass
class Hub:
    acked: dict[int, int]
    lost: set[int] = field(default_factory=set)
    gone: set[int] = field(default_factory=set)
    kept_at: dict[int, float] = field(default_factory=dict)


@dataclass
class Spoke:
    acked: dict[int, int]
    head: int
    held_at: dict[int, float]
    unreceipted: int | None = None
    ended: Exception | None = None
    reconnecting: bool = False
    announced: dict[int, str] = field(default_factory=dict)


def test_the_host_sees_a_joiner_quiet_while_it_owes_an_acknowledgement_then_reconnecting_lost(
) -> None:  # fmt: skip
    hub = Hub({1: 4, 2: 3, 3: 4}, kept_at={3: 100.0, 4: 101.0})
    assert hub_links(hub, now=101.5) == (
        LinkState(1, LINKED),
        LinkState(2, LINKED),  # owes record 4 for only 1.5 s
        LinkState(3, LINKED),
    )
    later = hub_links(hub, now=113.0)
    assert later[1] == LinkState(2, LinkStatus.QUIET, 12.0) and later[1].text() == "quiet 12 s"
    assert later[0].status is LINKED  # nothing owed: a person thinking is not quiet
    hub.lost.add(3)  # its channel ended: its grace runs
    assert hub_links(hub, now=113.0)[2] == LinkState(3, LinkStatus.RECONNECTING)
    hub.gone.add(3)  # past the grace
    assert hub_links(hub, now=113.0)[2] == LinkState(3, LinkStatus.LOST)


def test_a_joiner_sees_the_host_by_its_receipts_and_the_others_by_their_relayed_acks() -> None:
    spoke = Spoke({2: 5, 3: 4}, head=5, held_at={5: 50.0, 6: 60.0})
    host, two, three = spoke_links(spoke, now=50.0 + QUIET_AFTER)
    assert (host.status, two.status, three.status) == (LINKED, LINKED, LinkStatus.QUIET)
    assert three.text() == f"quiet {int(QUIET_AFTER)} s"
    spoke.unreceipted = 6  # our record 6, sent at 60, not receipted
    assert spoke_links(spoke, now=61.0)[0].status is LINKED
    assert spoke_links(spoke, now=70.0)[0] == LinkState(0, LinkStatus.QUIET, 10.0)
    spoke.announced = {2: "reconnecting", 3: "gone"}  # the host's notices
    assert [s.status for s in spoke_links(spoke, now=70.0)[1:]] == [
        LinkStatus.RECONNECTING,
        LinkStatus.LOST,
    ]
    spoke.announced[2] = "back"
    assert spoke_links(spoke, now=70.0)[1].status is LINKED
    spoke.reconnecting = True  # we redial the host
    assert spoke_links(spoke, now=70.0)[0].status is LinkStatus.RECONNECTING
    spoke.ended = ConnectionError("gone")
    assert {s.status for s in spoke_links(spoke, now=70.0)} == {LinkStatus.LOST}


def _record(chain: Chain, author: int, body: bytes) -> Record:
    record = make_record(chain.next_seq, chain.head, author, body, identities(3)[author].sign)
    chain.advance(record)
    return record


@pytest.mark.timeout(30)
def test_over_channels_a_joiner_that_never_answers_goes_quiet_then_lost() -> None:
    async def main() -> None:
        ids = identities(3)
        seats = Seats(TABLE, tuple(i.public_key for i in ids))
        ends, spokes = {}, {}
        for seat in seats.joiners:
            host_end, joiner_end = await memory_channel_pair(ids[0], ids[seat], config=CONFIG)
            ends[seat] = (host_end, joiner_end)
            spokes[seat] = SpokeLink(StarSpoke(seats, seat, ids[seat].sign), joiner_end)
        hub = HubLinks(StarHub(seats, ids[0].sign), {s: e[0] for s, e in ends.items()})
        chain = Chain()
        async with hub, spokes[1]:  # seat 2's pump never runs: it acknowledges nothing
            record = _record(chain, 0, b"hello")
            await hub.send_own(record)
            await spokes[1].next_record(timeout=5)
            async with asyncio.timeout(5):
                while hub.hub.acked[1] < 0:
                    await asyncio.sleep(0.01)
            kept = hub.kept_at[record.seq]
            one, two = link_states(hub, now=kept + 12)
            assert one == LinkState(1, LINKED)
            assert two == LinkState(2, LinkStatus.QUIET, 12.0)
            joiner = link_states(spokes[1], now=spokes[1].held_at[0] + 12)
            assert [s.text() for s in joiner] == ["linked", "quiet 12 s"]  # via the host
            ends[2][1].close("seat 2 goes away")
            async with asyncio.timeout(5):
                while 2 not in hub.lost:
                    with contextlib.suppress(Exception):
                        await hub.send_own(_record(chain, 0, b"more"))
                    await asyncio.sleep(0.05)
            assert link_states(hub)[1].status is LinkStatus.LOST  # no grace: gone at once
        assert link_states(object()) == ()

    asyncio.run(main())
