"""Reply codes over loopback: the host dials the joiner from its own port, roles unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from netkit import MALLORY_SEED, OTHER_WORDS, WORDS

from p2p66.cli.internet import join_or_reply
from p2p66.net.errors import ConnectFailed, WrongJoinCode
from p2p66.net.identity import Identity, KnownPeers
from p2p66.net.redial import host_rejoin
from p2p66.net.reply import ReplyPoint, dial_from
from p2p66.net.tcp import Listener

pytestmark = pytest.mark.timeout(30)


def test_host_dials_the_reply_point_and_both_authenticate(alice: Identity, bob: Identity) -> None:
    async def main() -> None:
        async with await Listener.open(alice, words=WORDS, bind="127.0.0.1", port=0) as host:
            point = await ReplyPoint.open(bob, WORDS)
            try:
                reader, writer = await dial_from(host.port, "127.0.0.1", point.port, 5)
                assert writer.get_extra_info("sockname")[1] == host.port  # from our own port
                adopted = asyncio.create_task(host.adopt(reader, writer))
                joined = await point.accept(10)
                hosted = await host.accept(10)
                await adopted
                assert joined.peer.name == "alice" and hosted.peer.name == "bob"
                assert joined.binding == hosted.binding
                joined.close()
                hosted.close()
            finally:
                await point.aclose()

    asyncio.run(main())


def test_wrong_words_spend_the_reply_point(alice: Identity, bob: Identity) -> None:
    """A dialer with other words gets one failed guess; the point then refuses everyone."""

    async def main() -> None:
        async with await Listener.open(alice, words=OTHER_WORDS, bind="127.0.0.1", port=0) as h:
            point = await ReplyPoint.open(bob, WORDS)
            try:
                reader, writer = await dial_from(None, "127.0.0.1", point.port, 5)
                adopted = asyncio.create_task(h.adopt(reader, writer))
                with pytest.raises(WrongJoinCode):
                    await point.accept(10)
                await adopted
                assert point.attempts and len(point.attempts) == 1
            finally:
                await point.aclose()

    asyncio.run(main())


def test_simultaneous_open_on_loopback(alice: Identity, bob: Identity) -> None:
    """The joiner keeps dialing the host's port from its own; the host's listener answers."""

    async def main() -> None:
        async with await Listener.open(alice, words=WORDS, bind="127.0.0.1", port=0) as host:
            point = await ReplyPoint.open(bob, WORDS)
            try:
                point.punch("127.0.0.1", host.port)
                joined = await point.accept(10)
                hosted = await host.accept(10)
                assert point.punched
                assert hosted.peer.name == "bob" and joined.peer.name == "alice"
                joined.close()
                hosted.close()
            finally:
                await point.aclose()

    asyncio.run(main())


def test_no_reply_code_for_a_host_on_this_machine(bob: Identity, tmp_path: Path) -> None:
    """A refused loopback code is an error at once: no router to ask, nothing sent elsewhere."""

    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        said: list[str] = []
        peers = KnownPeers(tmp_path / "peers.json")
        with pytest.raises(ConnectFailed, match="refused"):
            await join_or_reply(f"fox-lamp-river@127.0.0.1:{port}", bob, peers, said.append)
        assert said == []

    asyncio.run(main())


def test_dial_from_a_port_that_cannot_be_shared_dials_from_another() -> None:
    """A listener without SO_REUSEPORT (as on Windows) holds the port: dial anyway."""

    async def main() -> None:
        held = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)  # no reuse_port
        target = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        held_port = held.sockets[0].getsockname()[1]
        _, writer = await dial_from(held_port, "127.0.0.1", target.sockets[0].getsockname()[1], 5)
        assert writer.get_extra_info("sockname")[1] != held_port
        writer.close()
        for server in (held, target):
            server.close()
            await server.wait_closed()

    asyncio.run(main())


def test_a_rearmed_reply_point_takes_only_the_opponent_back(
    alice: Identity, bob: Identity, tmp_path: Path
) -> None:
    """After a drop the point wants the opponent's key: another host's dial is refused
    and the point keeps waiting; the opponent's redial (known-peer handshake) gets in."""
    mallory = Identity.from_seed("mallory", MALLORY_SEED)

    async def main() -> None:
        bob_pins = KnownPeers(tmp_path / "bob.json", {"alice": alice.public_key})
        alice_pins = KnownPeers(tmp_path / "alice.json", {"bob": bob.public_key})
        mallory_pins = KnownPeers(tmp_path / "mallory.json", {"bob": bob.public_key})
        point = await ReplyPoint.open(bob, WORDS, known_peers=bob_pins)
        try:
            point.rearm(alice.public)
            waiting = asyncio.create_task(point.accept(10))
            for who, pins in ((mallory, mallory_pins), (alice, alice_pins)):
                async with await Listener.open(
                    who, words=None, bind="127.0.0.1", port=0, known_peers=pins
                ) as host:
                    redialling = asyncio.create_task(host_rejoin(host, [("127.0.0.1", point.port)]))
                    if who is mallory:
                        async with asyncio.timeout(10):
                            while not host.rejected:  # its redial was refused at the point
                                await asyncio.sleep(0.02)
                        assert not waiting.done()
                        redialling.cancel()
                        continue
                    hosted = await asyncio.wait_for(redialling, 10)
            joined = await waiting
            assert joined.peer.public_key == alice.public_key
            assert hosted.peer.public_key == bob.public_key
            assert any(a.startswith("incoming") for a in point.attempts[:-1])  # mallory's
            joined.close()
            hosted.close()
        finally:
            await point.aclose()

    asyncio.run(main())
