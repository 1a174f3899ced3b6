"""Real loopback TCP (127.0.0.1 and ::1): host, join, one guess per code, pins, failures."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from netkit import MALLORY_SEED, OTHER_WORDS, WORDS, ipv6_loopback_available

from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.net.errors import (
    ConnectFailed,
    FrameTooLarge,
    JoinCodeSpent,
    ListenFailed,
    LocalTransportError,
    MalformedHandshake,
    PeerTimeout,
    UnknownPeer,
    WrongJoinCode,
)
from p2p66.net.framing import encode_frame
from p2p66.net.identity import Identity, KnownPeers, load_or_create_identity
from p2p66.net.joincode import JoinCode
from p2p66.net.tcp import Listener, host, join, join_known

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)


def _free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
    return port


async def _exchange(a: SecureChannel, b: SecureChannel) -> None:
    await a.send(b"ping from " + a.local.name.encode())
    assert await b.recv() == b"ping from " + a.local.name.encode()
    await b.send(b"pong")
    assert await a.recv() == b"pong"


async def _host_and_join(
    listener: Listener, code: JoinCode | str, joiner: Identity, peers: KnownPeers | None
) -> tuple[SecureChannel, SecureChannel]:
    join_task = asyncio.ensure_future(join(code, joiner, known_peers=peers, config=CONFIG))
    hosted = await listener.accept(timeout=5)
    return hosted, await join_task


@pytest.mark.timeout(20)
@pytest.mark.parametrize("address", ["127.0.0.1", "::1"])
def test_host_and_join_with_a_code_over_loopback(address: str, home: Path) -> None:
    if address == "::1" and not ipv6_loopback_available():
        pytest.skip("no IPv6 loopback in this sandbox")
    alice = load_or_create_identity("alice", home / "alice")
    bob = load_or_create_identity("bob", home / "bob")
    alice_peers = KnownPeers.load(home / "alice")
    bob_peers = KnownPeers.load(home / "bob")

    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind=address, port=0, known_peers=alice_peers, config=CONFIG
        ) as listener:
            assert listener.addresses[0][0] == address and listener.port > 0
            code = listener.join_code()
            assert str(code).startswith("fox-lamp-river@")
            hosted, joined = await _host_and_join(listener, str(code), bob, bob_peers)
            assert hosted.peer.name == "bob" and joined.peer.name == "alice"
            assert joined.peer.fingerprint == alice.fingerprint
            assert hosted.remote.startswith(f"[{address}]" if ":" in address else address)
            await _exchange(hosted, joined)
            await _exchange(joined, hosted)
            await hosted.aclose()
            await joined.aclose()

    asyncio.run(main())
    assert KnownPeers.load(home / "alice").key_of("bob") == bob.public_key
    assert KnownPeers.load(home / "bob").key_of("alice") == alice.public_key


@pytest.mark.timeout(20)
def test_wrong_code_then_no_second_guess(alice: Identity, bob: Identity) -> None:
    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as listener:
            right = listener.join_code()
            wrong = JoinCode(OTHER_WORDS, "127.0.0.1", listener.port)
            join_task = asyncio.ensure_future(join(wrong, bob, config=CONFIG))
            with pytest.raises(WrongJoinCode):
                await listener.accept(timeout=5)
            with pytest.raises(WrongJoinCode, match="ask the host for a new one"):
                await join_task
            assert not listener.code_armed
            with pytest.raises(LocalTransportError, match="renew_code"):
                listener.join_code()
            # even the right code gets a clear refusal now
            with pytest.raises(JoinCodeSpent, match="already tried once"):
                await join(right, bob, config=CONFIG)
            assert any(isinstance(e, JoinCodeSpent) for _, e in listener.rejected)
            # a fresh code works again
            listener.renew_code()
            hosted, joined = await _host_and_join(listener, listener.join_code(), bob, None)
            await _exchange(hosted, joined)
            await hosted.aclose()
            await joined.aclose()

    asyncio.run(main())


@pytest.mark.timeout(20)
def test_a_new_key_under_a_known_name_is_another_player(
    alice: Identity, bob: Identity, tmp_path: Path
) -> None:
    alice_peers = KnownPeers(tmp_path / "alice.json")
    other_bob = Identity.from_seed("bob", MALLORY_SEED)

    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, known_peers=alice_peers, config=CONFIG
        ) as listener:
            hosted, joined = await _host_and_join(listener, listener.join_code(), bob, None)
            await hosted.aclose()
            await joined.aclose()
            listener.renew_code()
            hosted, joined = await _host_and_join(listener, listener.join_code(), other_bob, None)
            assert hosted.peer == other_bob.public  # not refused as a man in the middle
            await hosted.aclose()
            await joined.aclose()

    asyncio.run(main())
    assert sorted(alice_peers.keys_named("bob")) == sorted([bob.public_key, other_bob.public_key])


@pytest.mark.timeout(20)
def test_pinned_peer_reconnects_without_a_code(
    alice: Identity, bob: Identity, tmp_path: Path
) -> None:
    alice_peers = KnownPeers(tmp_path / "alice.json")
    bob_peers = KnownPeers(tmp_path / "bob.json")
    mallory = Identity.from_seed("mallory", MALLORY_SEED)

    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, known_peers=alice_peers, config=CONFIG
        ) as listener:
            hosted, joined = await _host_and_join(listener, listener.join_code(), bob, bob_peers)
            await hosted.aclose()
            await joined.aclose()
            assert not listener.code_armed
            rematch = asyncio.ensure_future(
                join_known(
                    "127.0.0.1",
                    listener.port,
                    bob,
                    bob_peers,
                    expect_name="alice",
                    config=CONFIG,
                )
            )
            hosted = await listener.accept(timeout=5)
            joined = await rematch
            assert hosted.mode == joined.mode == "known"
            assert hosted.peer == bob.public and joined.peer == alice.public
            await _exchange(hosted, joined)
            await hosted.aclose()
            await joined.aclose()
            # a stranger without a pin is refused on both sides
            with pytest.raises(UnknownPeer):
                await join_known(
                    "127.0.0.1",
                    listener.port,
                    mallory,
                    KnownPeers(tmp_path / "m.json", {"alice": alice.public_key}),
                    config=CONFIG,
                )
            await asyncio.sleep(0.05)
            assert isinstance(listener.rejected[-1][1], UnknownPeer)

    asyncio.run(main())


@pytest.mark.timeout(20)
def test_host_convenience_reports_the_bound_port(alice: Identity, bob: Identity) -> None:
    async def main() -> None:
        codes: list[JoinCode] = []
        joined: list[SecureChannel] = []

        def listening(listener: Listener) -> None:
            code = listener.join_code()
            codes.append(code)
            joined_task = asyncio.ensure_future(join(code, bob, config=CONFIG))
            joined_task.add_done_callback(lambda t: joined.append(t.result()))

        hosted = await host(
            alice,
            words=WORDS,
            bind="127.0.0.1",
            port=0,
            timeout=5,
            config=CONFIG,
            on_listening=listening,
        )
        await asyncio.sleep(0.05)
        assert codes[0].port > 0 and hosted.peer.name == "bob"
        await _exchange(hosted, joined[0])
        await hosted.aclose()
        await joined[0].aclose()
        with pytest.raises(ConnectFailed, match="refused"):  # the listener is gone
            await join(codes[0], bob, config=CONFIG)

    asyncio.run(main())


@pytest.mark.timeout(20)
def test_connection_refused_and_timeouts_are_clear(alice: Identity, bob: Identity) -> None:
    async def main() -> None:
        port = _free_port()
        with pytest.raises(ConnectFailed, match=f"127.0.0.1:{port} refused the connection"):
            await join(f"fox-lamp-river@127.0.0.1:{port}", bob, config=CONFIG)
        # a server that accepts but never speaks
        silent_writers: list[asyncio.StreamWriter] = []
        silent = await asyncio.start_server(lambda r, w: silent_writers.append(w), "127.0.0.1", 0)
        silent_port = silent.sockets[0].getsockname()[1]
        quick = ChannelConfig(handshake_timeout=0.3)
        with pytest.raises(PeerTimeout, match="did not complete the handshake"):
            await join(f"fox-lamp-river@127.0.0.1:{silent_port}", bob, config=quick)
        for writer in silent_writers:
            writer.close()
        silent.close()
        await silent.wait_closed()
        async with await Listener.open(alice, words=WORDS, bind="127.0.0.1", port=0) as listener:
            with pytest.raises(PeerTimeout, match=r"nobody joined within 0\.1 s"):
                await listener.accept(timeout=0.1)
            with pytest.raises(ListenFailed, match="cannot listen"):
                await Listener.open(alice, words=WORDS, bind="127.0.0.1", port=listener.port)

    asyncio.run(main())


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", FrameTooLarge),
        ((1 << 20).to_bytes(4, "big") + bytes(100), FrameTooLarge),
        (encode_frame(b"\x93\x01\x02\x03"), MalformedHandshake),
    ],
)
def test_garbage_connections_are_rejected_without_spending_the_code(
    raw: bytes, error: type[Exception], alice: Identity, bob: Identity
) -> None:
    async def main() -> None:
        async with await Listener.open(
            alice, words=WORDS, bind="127.0.0.1", port=0, config=CONFIG
        ) as listener:
            reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
            writer.write(raw)
            await writer.drain()
            await asyncio.wait_for(reader.read(), timeout=5)  # the host hangs up
            writer.close()
            await writer.wait_closed()
            assert isinstance(listener.rejected[-1][1], error)
            assert listener.code_armed
            hosted, joined = await _host_and_join(listener, listener.join_code(), bob, None)
            await hosted.aclose()
            await joined.aclose()

    asyncio.run(main())
