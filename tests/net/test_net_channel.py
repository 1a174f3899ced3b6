"""The encrypted channel: records, in-memory pairs, tampering, heartbeats and timeouts."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from netkit import relayed_pair

from p2p66.net.channel import (
    MAX_MESSAGE,
    ChannelConfig,
    RecordCipher,
    RecordType,
)
from p2p66.net.errors import (
    ChannelClosed,
    ConnectionLost,
    FrameTooLarge,
    MalformedFrame,
    PayloadTooLarge,
    PeerClosed,
    PeerTimeout,
    TamperedFrame,
)
from p2p66.net.framing import encode_frame
from p2p66.net.identity import Identity
from p2p66.net.memory import memory_channel_pair

KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))
QUIET = ChannelConfig(heartbeat_interval=None, idle_timeout=None)


def _pair() -> tuple[RecordCipher, RecordCipher]:
    return RecordCipher(KEY_A, KEY_B), RecordCipher(KEY_B, KEY_A)


def test_records_round_trip_in_order() -> None:
    a, b = _pair()
    sealed = [a.seal(RecordType.DATA, bytes([i]) * i) for i in range(5)]
    assert [b.open(s) for s in sealed] == [(RecordType.DATA, bytes([i]) * i) for i in range(5)]
    assert a.open(b.seal(RecordType.PING, b"12345678")) == (RecordType.PING, b"12345678")


@pytest.mark.parametrize("attack", ["replay", "reorder", "flip", "truncate", "drop", "reflect"])
def test_records_reject_replay_reorder_and_tampering(attack: str) -> None:
    a, b = _pair()
    first, second = a.seal(RecordType.DATA, b"one"), a.seal(RecordType.DATA, b"two")
    if attack == "replay":
        b.open(first)
        bad = first
    elif attack in {"reorder", "drop"}:
        bad = second
    elif attack == "flip":
        bad = bytes([first[0] ^ 1]) + first[1:]
    elif attack == "truncate":
        bad = first[:10]
    else:  # our own record sent back to us
        bad = b.seal(RecordType.DATA, b"mine")
    with pytest.raises(TamperedFrame, match="failed authentication") as info:
        b.open(bad)
    assert info.value.culprit == "remote"
    with pytest.raises(TamperedFrame):  # one bad record ends the channel
        b.open(first)


def test_unknown_record_type_is_malformed() -> None:
    _, b = _pair()
    payload = ChaCha20Poly1305(KEY_A).encrypt(bytes(12), b"\x07body", b"p2p66-net/v1 record")
    with pytest.raises(MalformedFrame, match="unknown type 7"):
        b.open(payload)


def test_cipher_needs_two_distinct_keys() -> None:
    with pytest.raises(ValueError, match="distinct"):
        RecordCipher(KEY_A, KEY_A)


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="positive"):
        ChannelConfig(handshake_timeout=0)
    with pytest.raises(ValueError, match="two heartbeat intervals"):
        ChannelConfig(heartbeat_interval=5, idle_timeout=6)


@pytest.mark.timeout(10)
def test_memory_pair_carries_messages_both_ways(alice: Identity, bob: Identity) -> None:
    async def main() -> None:
        host, joiner = await memory_channel_pair(alice, bob, config=QUIET)
        assert host.peer == bob.public and joiner.peer == alice.public
        assert host.binding == joiner.binding and len(host.binding) == 32
        assert (host.role, joiner.role, host.mode) == ("host", "joiner", "code")
        for i in range(20):
            await joiner.send(b"j%d" % i)
            await host.send(b"h%d" % i)
        assert [await host.recv() for _ in range(20)] == [b"j%d" % i for i in range(20)]
        assert [await joiner.recv() for _ in range(20)] == [b"h%d" % i for i in range(20)]
        big = bytes(MAX_MESSAGE)
        await host.send(big)
        assert await joiner.recv() == big
        with pytest.raises(PayloadTooLarge):
            await host.send(bytes(MAX_MESSAGE + 1))
        await host.aclose()
        await joiner.aclose()

    asyncio.run(main())


@pytest.mark.timeout(10)
def test_close_delivers_pending_messages_then_peer_closed() -> None:
    async def main() -> None:
        host, joiner = await memory_channel_pair(config=QUIET)
        await joiner.send(b"last words")
        await joiner.aclose("good game")
        assert await host.recv() == b"last words"
        with pytest.raises(PeerClosed, match="good game"):
            await host.recv()
        with pytest.raises(PeerClosed):  # and on every later call
            await host.recv()
        with pytest.raises(PeerClosed):
            await host.send(b"anyone?")
        with pytest.raises(ChannelClosed):
            await joiner.recv()
        assert host.closed and joiner.closed

    asyncio.run(main())


@pytest.mark.timeout(10)
def test_heartbeats_measure_latency_and_keep_a_quiet_channel_alive() -> None:
    config = ChannelConfig(heartbeat_interval=0.05, idle_timeout=0.3)

    async def main() -> None:
        host, joiner = await memory_channel_pair(config=config)
        assert host.latency is None
        await asyncio.sleep(0.6)  # twice the idle timeout, with no session traffic
        assert not host.closed and not joiner.closed
        assert host.latency is not None and 0 <= host.latency < 0.3
        assert joiner.latency is not None
        assert 0 <= await host.ping() < 1
        await joiner.send(b"still here")
        assert await host.recv() == b"still here"
        await host.aclose()
        await joiner.aclose()

    asyncio.run(main())


@pytest.mark.timeout(10)
def test_silent_peer_times_out() -> None:
    config = ChannelConfig(heartbeat_interval=None, idle_timeout=0.2)
    patient = ChannelConfig(heartbeat_interval=None, idle_timeout=None)

    async def main() -> None:
        host, joiner = await memory_channel_pair(config=config, joiner_config=patient)
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(PeerTimeout, match="nothing heard from joiner"):
            await host.recv()
        assert 0.15 < loop.time() - start < 2
        await joiner.aclose()

    asyncio.run(main())


def _run_relay_attack(mutate_name: str) -> tuple[list[bytes], BaseException]:
    def mutate(index: int, frame: bytes) -> list[bytes]:
        if index != 1:
            return [frame]
        if mutate_name == "flip":
            return [frame[:-1] + bytes([frame[-1] ^ 0x80])]
        if mutate_name == "replay":
            return [frame, frame]
        if mutate_name == "drop":
            return []
        return [frame]

    async def main() -> tuple[list[bytes], BaseException]:
        alice = Identity.from_seed("alice", bytes(32))
        bob = Identity.from_seed("bob", bytes([1]) * 32)
        host, joiner, _relay, _ = await relayed_pair(alice, bob, mutate, QUIET)
        for i in range(3):
            await joiner.send(b"move %d" % i)
        got: list[bytes] = []
        try:
            while True:
                got.append(await host.recv())
        except Exception as exc:  # the test asserts on the type
            error: BaseException = exc
        await joiner.aclose()
        await host.aclose()
        return got, error

    return asyncio.run(main())


@pytest.mark.timeout(10)
@pytest.mark.parametrize("attack", ["flip", "replay", "drop"])
def test_channel_reports_tampered_frames(attack: str) -> None:
    got, error = _run_relay_attack(attack)
    expected_first = [b"move 0", b"move 1"] if attack == "replay" else [b"move 0"]
    assert got == expected_first
    assert isinstance(error, TamperedFrame)


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (b"\xff\xff\xff\xffgarbage", FrameTooLarge),
        (encode_frame(b"random garbage that is long enough to hold a tag"), TamperedFrame),
        (b"\x00\x00\x00\x00", MalformedFrame),
    ],
)
def test_garbage_from_the_network_gives_its_specific_error(
    raw: bytes, error: type[Exception]
) -> None:
    async def main() -> None:
        alice = Identity.from_seed("alice", bytes(32))
        bob = Identity.from_seed("bob", bytes([1]) * 32)
        host, joiner, _relay, to_host = await relayed_pair(alice, bob, lambda i, f: [f], QUIET)
        await joiner.send(b"fine")
        assert await host.recv() == b"fine"
        to_host.write(raw)
        with pytest.raises(error):
            await host.recv()
        await joiner.aclose()
        await host.aclose()

    asyncio.run(main())


@pytest.mark.timeout(10)
def test_connection_dropped_without_close_is_connection_lost() -> None:
    async def main() -> None:
        alice = Identity.from_seed("alice", bytes(32))
        bob = Identity.from_seed("bob", bytes([1]) * 32)
        host, joiner, _relay, to_host = await relayed_pair(alice, bob, lambda i, f: [f], QUIET)
        to_host.close()
        with pytest.raises(ConnectionLost, match="without closing the channel"):
            await host.recv()
        await joiner.aclose()
        await host.aclose()

    asyncio.run(main())
