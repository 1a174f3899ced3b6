"""Both handshakes over in-memory streams: codes, pins, refusals, forgeries and fuzz."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from netkit import MALLORY_SEED, OTHER_WORDS, WORDS, Relay
from spake2 import SPAKE2_B

from p2p66.net.channel import ChannelConfig, RecordType, SecureChannel
from p2p66.net.errors import (
    BadSignature,
    JoinCodeSpent,
    MalformedHandshake,
    PeerAborted,
    PeerKeyChanged,
    PeerTimeout,
    TransportError,
    UnknownPeer,
    WrongJoinCode,
)
from p2p66.net.handshake import (
    SPAKE2_ID_HOST,
    SPAKE2_ID_JOINER,
    CodeSlot,
    KeySchedule,
    NoJoinCode,
    VersionMismatch,
    abort_reason,
    decode_message,
    encode_message,
    field_identity,
    host_handshake,
    identity_transcript,
    join_handshake,
    signed_message,
    transcript_hash,
)
from p2p66.net.identity import Identity, KnownPeers
from p2p66.net.streams import FrameConnection, memory_stream_pair

QUIET = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)
Outcome = SecureChannel | BaseException


async def _handshake(
    host_id: Identity,
    joiner_id: Identity,
    *,
    slot: CodeSlot,
    words: tuple[str, ...] | None,
    host_peers: KnownPeers | None = None,
    joiner_peers: KnownPeers | None = None,
    expect_name: str | None = None,
    allow_known: bool = True,
) -> tuple[Outcome, Outcome]:
    host_end, joiner_end = memory_stream_pair()
    host_out, joiner_out = await asyncio.gather(
        host_handshake(
            FrameConnection(host_end),
            host_id,
            slot=slot,
            known_peers=host_peers,
            allow_known=allow_known,
            config=QUIET,
        ),
        join_handshake(
            FrameConnection(joiner_end),
            joiner_id,
            words=words,
            known_peers=joiner_peers,
            expect_name=expect_name,
            config=QUIET,
        ),
        return_exceptions=True,
    )
    for out in (host_out, joiner_out):
        if isinstance(out, SecureChannel):
            await out.aclose()
    return host_out, joiner_out


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.timeout(10)
def test_matching_code_authenticates_both_identities(alice: Identity, bob: Identity) -> None:
    host, joiner = run(_handshake(alice, bob, slot=CodeSlot(WORDS), words=WORDS))
    assert isinstance(host, SecureChannel) and isinstance(joiner, SecureChannel)
    assert host.peer == bob.public and joiner.peer == alice.public
    assert host.binding == joiner.binding


@pytest.mark.timeout(10)
def test_wrong_code_fails_cleanly_on_both_sides(alice: Identity, bob: Identity) -> None:
    slot = CodeSlot(WORDS)
    host, joiner = run(_handshake(alice, bob, slot=slot, words=OTHER_WORDS))
    assert isinstance(host, WrongJoinCode) and isinstance(joiner, WrongJoinCode)
    assert "ask the host for a new one" in str(joiner)
    assert "host must make a new one" in str(host)
    assert not slot.armed


@pytest.mark.timeout(10)
def test_spent_code_is_refused_even_when_right(alice: Identity, bob: Identity) -> None:
    slot = CodeSlot(WORDS)
    run(_handshake(alice, bob, slot=slot, words=OTHER_WORDS))
    host, joiner = run(_handshake(alice, bob, slot=slot, words=WORDS))
    assert isinstance(joiner, JoinCodeSpent)
    assert "already tried once" in str(joiner)
    assert isinstance(host, JoinCodeSpent)
    slot.renew(WORDS)
    host, joiner = run(_handshake(alice, bob, slot=slot, words=WORDS))
    assert isinstance(host, SecureChannel) and isinstance(joiner, SecureChannel)


@pytest.mark.timeout(10)
def test_first_contact_pins_and_a_new_key_under_a_known_name_is_another_player(
    alice: Identity, bob: Identity, tmp_path: Path
) -> None:
    host_peers = KnownPeers(tmp_path / "alice_peers.json")
    joiner_peers = KnownPeers(tmp_path / "bob_peers.json")
    run(
        _handshake(
            alice,
            bob,
            slot=CodeSlot(WORDS),
            words=WORDS,
            host_peers=host_peers,
            joiner_peers=joiner_peers,
        )
    )
    assert host_peers.key_of("bob") == bob.public_key
    assert joiner_peers.key_of("alice") == alice.public_key
    other_bob = Identity.from_seed("bob", MALLORY_SEED)  # a second player who is also "bob"
    host, joiner = run(
        _handshake(alice, other_bob, slot=CodeSlot(WORDS), words=WORDS, host_peers=host_peers)
    )
    assert isinstance(host, SecureChannel) and isinstance(joiner, SecureChannel)
    assert host.peer == other_bob.public
    assert sorted(host_peers.keys_named("bob")) == sorted([bob.public_key, other_bob.public_key])
    assert host_peers.label(other_bob.public) == f"bob ({other_bob.fingerprint[:4]})"
    assert host_peers.label(bob.public) == f"bob ({bob.fingerprint[:4]})"
    other_alice = Identity.from_seed("alice", MALLORY_SEED)
    host, joiner = run(
        _handshake(other_alice, bob, slot=CodeSlot(WORDS), words=WORDS, joiner_peers=joiner_peers)
    )
    assert isinstance(host, SecureChannel) and isinstance(joiner, SecureChannel)
    assert len(joiner_peers.keys_named("alice")) == 2


@pytest.mark.timeout(10)
def test_known_peers_rematch_without_code(alice: Identity, bob: Identity, tmp_path: Path) -> None:
    host_peers = KnownPeers(tmp_path / "a.json", {"bob": bob.public_key})
    joiner_peers = KnownPeers(tmp_path / "b.json", {"alice": alice.public_key})
    slot = CodeSlot(None)
    host, joiner = run(
        _handshake(
            alice,
            bob,
            slot=slot,
            words=None,
            host_peers=host_peers,
            joiner_peers=joiner_peers,
            expect_name="alice",
        )
    )
    assert isinstance(host, SecureChannel) and isinstance(joiner, SecureChannel)
    assert host.mode == joiner.mode == "known"
    assert host.peer == bob.public and joiner.peer == alice.public


@pytest.mark.timeout(10)
def test_known_peer_handshake_refuses_unpinned_keys(
    alice: Identity, bob: Identity, tmp_path: Path
) -> None:
    mallory = Identity.from_seed("mallory", MALLORY_SEED)
    host_peers = KnownPeers(tmp_path / "a.json", {"bob": bob.public_key})
    joiner_peers = KnownPeers(tmp_path / "m.json", {"alice": alice.public_key})
    host, joiner = run(
        _handshake(
            alice,
            mallory,
            slot=CodeSlot(None),
            words=None,
            host_peers=host_peers,
            joiner_peers=joiner_peers,
        )
    )
    assert isinstance(host, UnknownPeer) and "not pinned" in str(host)
    assert isinstance(joiner, UnknownPeer) and "join code" in str(joiner)
    # the joiner checks the host too: bob has not pinned mallory-as-host
    bob_peers = KnownPeers(tmp_path / "b.json", {"alice": alice.public_key})
    mallory_peers = KnownPeers(tmp_path / "m2.json", {"bob": bob.public_key})
    host, joiner = run(
        _handshake(
            mallory,
            bob,
            slot=CodeSlot(None),
            words=None,
            host_peers=mallory_peers,
            joiner_peers=bob_peers,
        )
    )
    assert isinstance(joiner, UnknownPeer) and isinstance(host, UnknownPeer)
    # and with expect_name the host must hold exactly that pinned key
    host, joiner = run(
        _handshake(
            mallory,
            bob,
            slot=CodeSlot(None),
            words=None,
            host_peers=mallory_peers,
            joiner_peers=KnownPeers(
                tmp_path / "b3.json", {"alice": alice.public_key, "mallory": mallory.public_key}
            ),
            expect_name="alice",
        )
    )
    assert isinstance(joiner, PeerKeyChanged)


@pytest.mark.timeout(10)
def test_host_without_known_peers_refuses_rematches(
    alice: Identity, bob: Identity, tmp_path: Path
) -> None:
    host, joiner = run(
        _handshake(
            alice,
            bob,
            slot=CodeSlot(WORDS),
            words=None,
            joiner_peers=KnownPeers(tmp_path / "b.json"),
            allow_known=False,
        )
    )
    assert isinstance(host, UnknownPeer) and isinstance(joiner, UnknownPeer)


@pytest.mark.timeout(10)
def test_forged_identity_signature_is_detected(alice: Identity, bob: Identity) -> None:
    """A host that knows the code but claims alice's key without holding it."""
    mallory = Identity.from_seed("mallory", MALLORY_SEED)

    async def evil_host(conn: FrameConnection) -> dict[str, Any]:
        hello = decode_message(await conn.read_frame() or b"")
        spake = SPAKE2_B(
            b"-".join(w.encode() for w in WORDS), idA=SPAKE2_ID_JOINER, idB=SPAKE2_ID_HOST
        )
        message_b = spake.start()
        t0 = transcript_hash(b"p2p66-net/v1 code", hello["pake"], message_b)
        keys = KeySchedule.derive(spake.finish(hello["pake"]), t0)
        await conn.send_frame(
            encode_message("pake", pake=message_b, confirm=keys.confirmation("host"))
        )
        await conn.read_frame()  # the joiner's confirmation
        cipher = keys.cipher("host")
        _, body = cipher.open(await conn.read_frame() or b"")
        joiner = field_identity(decode_message(body))
        t1 = identity_transcript(t0, joiner, alice.public)
        forged = mallory.sign(signed_message("host", t1))
        reply = encode_message("id", name="alice", key=alice.public_key, sig=forged)
        await conn.send_frame(cipher.seal(RecordType.HANDSHAKE, reply))
        _, body = cipher.open(await conn.read_frame() or b"")
        return decode_message(body)

    async def main() -> tuple[dict[str, Any], Outcome]:
        host_end, joiner_end = memory_stream_pair()
        abort, joiner = await asyncio.gather(
            evil_host(FrameConnection(host_end)),
            join_handshake(
                FrameConnection(joiner_end), bob, words=WORDS, known_peers=None, config=QUIET
            ),
            return_exceptions=True,
        )
        return abort, joiner  # type: ignore[return-value]

    abort, joiner = run(main())
    assert isinstance(joiner, BadSignature)
    assert abort["t"] == "abort" and abort["reason"] == "bad-signature"


@pytest.mark.timeout(10)
def test_other_protocol_version_is_refused_with_reason(alice: Identity) -> None:
    async def main() -> tuple[Outcome, dict[str, Any]]:
        host_end, joiner_end = memory_stream_pair()
        joiner = FrameConnection(joiner_end)
        joiner.write_frame(encode_message("hello", proto="p2p66-net", v=2, mode="code", pake=b"x"))
        host_task = asyncio.ensure_future(
            host_handshake(
                FrameConnection(host_end),
                alice,
                slot=CodeSlot(WORDS),
                known_peers=None,
                config=QUIET,
            )
        )
        reply = decode_message(await joiner.read_frame() or b"")
        host = (await asyncio.gather(host_task, return_exceptions=True))[0]
        return host, reply

    host, reply = run(main())
    assert isinstance(host, VersionMismatch) and "version 2" in str(host)
    assert reply["reason"] == "version"


@pytest.mark.timeout(10)
def test_silent_peer_hits_the_handshake_timeout(bob: Identity) -> None:
    async def main() -> None:
        _host_end, joiner_end = memory_stream_pair()
        config = ChannelConfig(handshake_timeout=0.2)
        with pytest.raises(PeerTimeout, match=r"within 0\.2 s"):
            await join_handshake(
                FrameConnection(joiner_end), bob, words=WORDS, known_peers=None, config=config
            )

    run(main())


@pytest.mark.timeout(10)
def test_unknown_abort_reason_is_reported_as_peer_aborted(bob: Identity) -> None:
    async def main() -> None:
        host_end, joiner_end = memory_stream_pair()
        FrameConnection(host_end).write_frame(
            encode_message("abort", reason="maintenance\x1b[2J", text="back soon")
        )
        with pytest.raises(PeerAborted, match=r"\(maintenance\[2J\): back soon"):
            await join_handshake(
                FrameConnection(joiner_end), bob, words=WORDS, known_peers=None, config=QUIET
            )

    run(main())


_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
_messages = st.builds(
    lambda t, extra: msgpack.packb({"t": t, **extra}),
    st.sampled_from(["hello", "pake", "confirm", "id", "auth", "ready", "abort", "dh", "zzz"]),
    st.dictionaries(
        st.sampled_from(
            [
                "proto",
                "v",
                "mode",
                "pake",
                "confirm",
                "nonce",
                "dh",
                "name",
                "key",
                "sig",
                "reason",
                "text",
            ]
        ),
        _values,
        max_size=6,
    ),
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.binary(max_size=80) | _messages, max_size=4))
def test_fuzz_decode_message_parses_or_raises_malformed(frames: list[bytes]) -> None:
    for frame in frames:
        try:
            message = decode_message(frame)
        except MalformedHandshake:
            continue
        assert isinstance(message["t"], str)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    frames=st.lists(_messages | st.binary(min_size=1, max_size=80), max_size=4),
    as_host=st.booleans(),
)
def test_fuzz_either_side_fed_garbage_raises_only_transport_errors(
    frames: list[bytes], as_host: bool, alice: Identity
) -> None:
    async def main() -> None:
        ours, theirs = memory_stream_pair()
        wire = FrameConnection(theirs)
        for frame in frames:
            wire.write_frame(frame)
        theirs.close()
        conn = FrameConnection(ours)
        with pytest.raises(TransportError):
            if as_host:
                await host_handshake(
                    conn, alice, slot=CodeSlot(WORDS), known_peers=None, config=QUIET
                )
            else:
                await join_handshake(conn, alice, words=WORDS, known_peers=None, config=QUIET)

    run(main())


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    target=st.integers(min_value=0, max_value=5),
    position=st.integers(min_value=0, max_value=200),
    mask=st.integers(min_value=1, max_value=255),
)
def test_fuzz_one_corrupted_handshake_frame_fails_both_sides_cleanly(
    target: int, position: int, mask: int, alice: Identity, bob: Identity
) -> None:
    def corrupt(index: int, frame: bytes) -> list[bytes]:
        if index != target:
            return [frame]
        at = position % len(frame)
        return [frame[:at] + bytes([frame[at] ^ mask]) + frame[at + 1 :]]

    async def main() -> tuple[Outcome, Outcome]:
        host_end, relay_host = memory_stream_pair()
        joiner_end, relay_joiner = memory_stream_pair()
        relay = Relay(corrupt)
        relay.armed = True
        pumps = [
            asyncio.ensure_future(relay.pump(relay_joiner, relay_host, rewrite=True)),
            asyncio.ensure_future(relay.pump(relay_host, relay_joiner, rewrite=False)),
        ]
        outcomes = await asyncio.gather(
            host_handshake(
                FrameConnection(host_end),
                alice,
                slot=CodeSlot(WORDS),
                known_peers=None,
                config=QUIET,
            ),
            join_handshake(
                FrameConnection(joiner_end), bob, words=WORDS, known_peers=None, config=QUIET
            ),
            return_exceptions=True,
        )
        for out in outcomes:
            if isinstance(out, SecureChannel):
                await out.aclose()
        await asyncio.gather(*pumps, return_exceptions=True)
        return outcomes[0], outcomes[1]

    host, joiner = run(main())
    if target < 4:  # hello, confirm, id, auth: the handshake must not succeed
        assert isinstance(host, TransportError), host
        assert isinstance(joiner, TransportError), joiner
        assert not isinstance(host, PeerTimeout) and not isinstance(joiner, PeerTimeout)
    else:
        assert isinstance(host, SecureChannel) and isinstance(joiner, SecureChannel)


@pytest.mark.timeout(10)
def test_code_sent_to_a_host_without_one_is_refused_as_such(alice: Identity, bob: Identity) -> None:
    host, joiner = run(_handshake(alice, bob, slot=CodeSlot(None), words=WORDS))
    assert isinstance(host, JoinCodeSpent) and "known peers only" in str(host)
    assert isinstance(joiner, JoinCodeSpent) and "not taking join codes" in str(joiner)


def _hkdf_rfc5869(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()


def test_key_schedule_matches_the_documented_derivation() -> None:
    """An independent HKDF (RFC 5869) and record layout, so the wire format cannot drift."""
    t0 = transcript_hash(b"p2p66-net/v1 code", b"X" * 33, b"Y" * 33)
    expected_t0 = hashlib.sha256(
        b"".join(
            len(p).to_bytes(4, "big") + p for p in (b"p2p66-net/v1 code", b"X" * 33, b"Y" * 33)
        )
    ).digest()
    assert t0 == expected_t0
    keys = KeySchedule.derive(b"s" * 32, t0)
    assert keys.host_to_joiner == _hkdf_rfc5869(b"s" * 32, t0, b"p2p66-net/v1 key host->joiner")
    assert keys.joiner_to_host == _hkdf_rfc5869(b"s" * 32, t0, b"p2p66-net/v1 key joiner->host")
    confirm_key = _hkdf_rfc5869(b"s" * 32, t0, b"p2p66-net/v1 confirm host")
    assert keys.confirmation("host") == hmac.new(confirm_key, t0, hashlib.sha256).digest()
    cipher = keys.cipher("joiner")
    first = cipher.seal(RecordType.DATA, b"hi")
    second = cipher.seal(RecordType.PING, b"12345678")
    aead = ChaCha20Poly1305(keys.joiner_to_host)
    aad = b"p2p66-net/v1 record"
    assert aead.decrypt(bytes(12), first, aad) == b"\x00hi"
    assert aead.decrypt(bytes(4) + (1).to_bytes(8, "big"), second, aad) == b"\x0112345678"


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (WrongJoinCode("x"), "wrong-code"),
        (NoJoinCode("x"), "no-code"),
        (JoinCodeSpent("x"), "code-spent"),
        (PeerKeyChanged("bob", "old", "new", "peers.json"), "key-changed"),
        (UnknownPeer("x"), "unknown-peer"),
        (BadSignature("x"), "bad-signature"),
        (VersionMismatch("x"), "version"),
        (MalformedHandshake("x"), "malformed"),
        (PeerTimeout("x"), "error"),
    ],
)
def test_each_abort_names_its_most_specific_reason(error: TransportError, reason: str) -> None:
    assert abort_reason(error) == reason
