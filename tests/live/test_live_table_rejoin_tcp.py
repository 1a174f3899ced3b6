"""After the seating the host's listener takes back only the seated joiners, over real TCP."""

from __future__ import annotations

import asyncio

import pytest
from dropkit import CONFIG, MemoryTable

from p2p66.live.tablelobby import take_back_only_seated
from p2p66.net.errors import JoinCodeSpent, NotThisMatch
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode, generate_words
from p2p66.net.lobby import SeatedPeers
from p2p66.net.tcp import Listener, join, join_known


@pytest.mark.timeout(60)
def test_the_listener_refuses_codes_and_strangers_and_takes_a_seated_joiner_back() -> None:
    async def main() -> None:
        table = await MemoryTable.seat("three-handed", 3)
        ids = table.ids
        words = generate_words()
        listener = await Listener.open(ids[0], words=words, bind="127.0.0.1", port=0, config=CONFIG)
        async with listener, asyncio.timeout(40):
            take_back_only_seated(listener, table.host)
            host = table.host.seating.seats[0]
            known = SeatedPeers([host])
            stranger = Identity.from_seed("mallory", bytes([9]) * 32)
            with pytest.raises(JoinCodeSpent):
                await join(JoinCode(words, "127.0.0.1", listener.port), stranger, config=CONFIG)
            with pytest.raises(NotThisMatch):
                await join_known(
                    "127.0.0.1", listener.port, stranger, known, expect_key=host, config=CONFIG
                )
            joiner = await join_known(
                "127.0.0.1", listener.port, ids[2], known, expect_key=host, config=CONFIG
            )
            taken = await listener.accept(timeout=10)
            assert taken.peer.public_key == ids[2].public_key
            assert joiner.peer.public_key == ids[0].public_key
            assert not (listener.known_peers and listener.known_peers.path.exists())
            joiner.close()
            taken.close()

    asyncio.run(main())
