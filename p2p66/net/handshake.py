"""The two handshakes that open a ``SecureChannel`` (see ``p2p66.net`` for the sequence).

Both handshakes first agree on a shared secret and a transcript hash ``t0``:

- *code*: SPAKE2 (joiner = side A, host = side B) with the join code's words as
  the password, then key confirmation: each side proves it derived the same key
  with an HMAC over ``t0``. The host sends its proof first, together with its
  SPAKE2 message, so a wrong code fails on both sides after one round trip with
  ``WrongJoinCode``. The host spends its code on the first well-formed attempt.
- *known*: fresh 32-byte nonces and ephemeral X25519 keys from both sides; the
  identities are then authenticated by signatures, and the host continues only
  if the joiner's key is pinned (and the joiner only if the host's is).

From ``t0`` HKDF-SHA256 derives one ChaCha20-Poly1305 key per direction, and the
rest runs encrypted: both sides exchange their Ed25519 identity keys and names
and sign ``t1`` = H(``t0``, both identities) with them, so each side knows whom
it talks to and that nobody sits in the middle. The flows are plain async
functions over a ``FrameConnection``; the parsing and key derivation are pure.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import os
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import msgpack
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_A, SPAKE2_B

from p2p66.net.channel import (
    DEFAULT_CONFIG,
    ChannelConfig,
    Mode,
    RecordCipher,
    RecordType,
    Role,
    SecureChannel,
)
from p2p66.net.errors import (
    BadSignature,
    ConnectionLost,
    IdentityRejected,
    JoinCodeSpent,
    MalformedFrame,
    MalformedHandshake,
    NetworkError,
    NotThisMatch,
    PeerAborted,
    PeerKeyChanged,
    PeerTimeout,
    TransportError,
    UnknownPeer,
    WrongJoinCode,
)
from p2p66.net.identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    KnownPeers,
    PeerIdentity,
    check_name,
    fingerprint,
)
from p2p66.net.streams import FrameConnection

PROTOCOL: Final = "p2p66-net"
VERSION: Final = 1
SPAKE2_ID_JOINER: Final = b"p2p66-net/v1 joiner"
SPAKE2_ID_HOST: Final = b"p2p66-net/v1 host"
LABEL_CONFIRM_HOST: Final = b"p2p66-net/v1 confirm host"
LABEL_CONFIRM_JOINER: Final = b"p2p66-net/v1 confirm joiner"
LABEL_KEY_HOST_TO_JOINER: Final = b"p2p66-net/v1 key host->joiner"
LABEL_KEY_JOINER_TO_HOST: Final = b"p2p66-net/v1 key joiner->host"
LABEL_SIGNATURE: Final = b"p2p66-net/v1 identity signature"
SPAKE2_MESSAGE_SIZE: Final = 33
NONCE_SIZE: Final = 32
MAC_SIZE: Final = 32
HELLO_TIMEOUT: Final = 5.0
"""Seconds a new connection has to send its hello (idle or trickling ones are dropped)."""
CODE_HOLD_TIMEOUT: Final = 5.0
"""Seconds a join-code attempt may hold the code before its confirmation must arrive."""
_MAX_TEXT: Final = 200


# --- pure parts: transcript, key schedule, message codec ---------------------------------


def transcript_hash(label: bytes, *parts: bytes) -> bytes:
    """SHA-256 over a label and length-prefixed parts (unambiguous concatenation)."""
    h = hashlib.sha256()
    for part in (label, *parts):
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h.digest()


def derive_key(secret: bytes, t0: bytes, label: bytes) -> bytes:
    """HKDF-SHA256(secret, salt=t0, info=label) -> 32 bytes."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=t0, info=label).derive(secret)


@dataclass(frozen=True, slots=True)
class KeySchedule:
    """Every key one handshake needs, derived from its shared secret and ``t0``."""

    t0: bytes
    confirm_host: bytes
    confirm_joiner: bytes
    host_to_joiner: bytes
    joiner_to_host: bytes

    @classmethod
    def derive(cls, secret: bytes, t0: bytes) -> KeySchedule:
        return cls(
            t0,
            derive_key(secret, t0, LABEL_CONFIRM_HOST),
            derive_key(secret, t0, LABEL_CONFIRM_JOINER),
            derive_key(secret, t0, LABEL_KEY_HOST_TO_JOINER),
            derive_key(secret, t0, LABEL_KEY_JOINER_TO_HOST),
        )

    def confirmation(self, role: Role) -> bytes:
        key = self.confirm_host if role == "host" else self.confirm_joiner
        return hmac.new(key, self.t0, hashlib.sha256).digest()

    def cipher(self, role: Role) -> RecordCipher:
        if role == "host":
            return RecordCipher(self.host_to_joiner, self.joiner_to_host)
        return RecordCipher(self.joiner_to_host, self.host_to_joiner)


def identity_transcript(t0: bytes, joiner: PeerIdentity, host: PeerIdentity) -> bytes:
    """``t1``: what both identity signatures cover (and the channel binding)."""
    return transcript_hash(
        b"p2p66-net/v1 identities",
        t0,
        joiner.public_key,
        joiner.name.encode("utf-8"),
        host.public_key,
        host.name.encode("utf-8"),
    )


def signed_message(role: Role, t1: bytes) -> bytes:
    """The bytes ``role`` signs: the role is included so no signature can be reflected."""
    return transcript_hash(LABEL_SIGNATURE, role.encode("ascii"), t1)


def encode_message(kind: str, **fields: object) -> bytes:
    """A handshake message: a msgpack map with its type under ``"t"``."""
    return msgpack.packb({"t": kind, **fields}, use_bin_type=True)


def decode_message(frame: bytes) -> dict[str, Any]:
    """Parse a handshake message or raise ``MalformedHandshake`` (the peer's fault)."""
    try:
        message = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise MalformedHandshake(
            f"the peer sent a handshake message that is not msgpack ({exc})"
        ) from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise MalformedHandshake("the peer sent a handshake message without a type")
    return message


def field_bytes(message: dict[str, Any], key: str, size: int) -> bytes:
    value = message.get(key)
    if not isinstance(value, bytes) or len(value) != size:
        raise MalformedHandshake(
            f"the peer's {message['t']!r} message needs {key!r} as {size} bytes"
        )
    return value


def field_text(message: dict[str, Any], key: str) -> str:
    value = message.get(key)
    if not isinstance(value, str):
        raise MalformedHandshake(f"the peer's {message['t']!r} message needs {key!r} as text")
    return value


def field_identity(message: dict[str, Any]) -> PeerIdentity:
    name = field_text(message, "name")
    try:
        check_name(name)
    except ValueError as exc:
        raise MalformedHandshake(f"the peer's name is unusable: {exc}") from None
    return PeerIdentity(name, field_bytes(message, "key", PUBLIC_KEY_SIZE))


def printable(text: str) -> str:
    """The peer's free text, shortened and stripped of control characters."""
    clean = "".join(ch for ch in text if not unicodedata.category(ch).startswith("C"))
    return clean[:_MAX_TEXT]


# Why a side aborts, and the error (with a message for the *receiving* side) it causes.
_ABORTS: Final[dict[str, tuple[type[TransportError], str]]] = {
    "code-spent": (
        JoinCodeSpent,
        "the host refused: this join code was already tried once and allows no second "
        "guess; ask the host for a new code",
    ),
    "no-code": (
        JoinCodeSpent,
        "the host is not taking join codes, only known peers; ask the host for a code",
    ),
    "wrong-code": (
        WrongJoinCode,
        "the join codes did not match (a typo, or a code meant for another game); the "
        "code is now spent, so the host must make a new one",
    ),
    "unknown-peer": (
        UnknownPeer,
        "the peer does not know your identity key (it is not pinned there); connect "
        "with a join code first",
    ),
    "busy": (
        NotThisMatch,
        "the host is waiting for the opponent of its match in progress to reconnect and "
        "refuses everyone else; try again when that match is over",
    ),
    "key-changed": (
        IdentityRejected,
        "the peer has pinned a different identity key for your name, so it refused "
        "yours; it must remove its pin of your name before you can play",
    ),
}
_TELL_TEXT: Final = frozenset({"malformed", "bad-signature", "version", "error"})


def error_for_abort(message: dict[str, Any]) -> TransportError:
    """Turn the peer's ``abort`` message into the error we raise."""
    reason = message.get("reason")
    text = message.get("text")
    reason_s = printable(reason) if isinstance(reason, str) else "unspecified"
    text_s = printable(text) if isinstance(text, str) else ""
    if reason_s in _ABORTS:
        error, explanation = _ABORTS[reason_s]
        return error(explanation)
    return PeerAborted(
        f"the peer aborted the handshake ({reason_s}){': ' if text_s else ''}{text_s}"
    )


def abort_reason(exc: TransportError) -> str:
    """The ``reason`` we send when ``exc`` stops our side of the handshake."""
    return next((reason for kind, reason in _REASONS if isinstance(exc, kind)), "error")


class VersionMismatch(MalformedHandshake):
    """The peer speaks another version of the p2p66-net protocol."""


class NoJoinCode(JoinCodeSpent):
    """A join code reached a host that was started without one (known peers only)."""


# Our errors and the abort reasons they send, most specific first (subclasses before bases).
_REASONS: Final[tuple[tuple[type[TransportError], str], ...]] = (
    (WrongJoinCode, "wrong-code"),
    (NoJoinCode, "no-code"),
    (JoinCodeSpent, "code-spent"),
    (NotThisMatch, "busy"),
    (PeerKeyChanged, "key-changed"),
    (UnknownPeer, "unknown-peer"),
    (BadSignature, "bad-signature"),
    (VersionMismatch, "version"),
    (MalformedFrame, "malformed"),
)


# --- the host's join code ----------------------------------------------------------------


class CodeSlot:
    """The host's current join code; each attempt spends one use of it, right or wrong.

    A code allows one attempt unless armed for more (``renew(words, attempts)``:
    a lobby seating several joiners with one code allows one per free seat).
    """

    def __init__(self, words: tuple[str, ...] | None = None) -> None:
        self._words = words
        self._attempts = 1 if words is not None else 0
        self.ever_armed = words is not None

    @property
    def armed(self) -> bool:
        """True while a code is waiting for an attempt."""
        return self._words is not None

    def peek(self) -> tuple[str, ...] | None:
        """The words, without spending them (to check an attempt is well-formed first)."""
        return self._words

    def renew(self, words: tuple[str, ...], attempts: int = 1) -> None:
        """Arm a code (after the previous one was spent) for ``attempts`` attempts."""
        if attempts < 1:
            raise ValueError("a join code is armed for at least one attempt")
        self._words = words
        self._attempts = attempts
        self.ever_armed = True

    def take(self) -> tuple[str, ...] | None:
        """The words for one attempt, spending one use; ``None`` if no code is armed."""
        words = self._words
        if words is not None:
            self._attempts -= 1
            if self._attempts <= 0:
                self._words = None
        return words


Admit = Callable[[PeerIdentity], None]


@dataclass
class Attempt:
    """What one incoming connection did; the listener reads it after the handshake."""

    remote: str
    used_code: bool = False
    peer: PeerIdentity | None = None


# --- the flows ---------------------------------------------------------------------------


class _Wire:
    """The handshake's view of the connection: plain messages first, encrypted later."""

    def __init__(self, conn: FrameConnection) -> None:
        self.conn = conn
        self.cipher: RecordCipher | None = None
        self.settled = False  # an abort was sent or received: nothing more to say

    def _payload(self, kind: str, fields: dict[str, object]) -> bytes:
        payload = encode_message(kind, **fields)
        if self.cipher is not None:
            payload = self.cipher.seal(RecordType.HANDSHAKE, payload)
        return payload

    async def send(self, kind: str, **fields: object) -> None:
        await self.conn.send_frame(self._payload(kind, fields))

    async def receive(self, kind: str, within: float | None = None) -> dict[str, Any]:
        """The peer's next message, which must be ``kind``; at most ``within`` s away."""
        try:
            async with asyncio.timeout(within):
                frame = await self.conn.read_frame()
        except TimeoutError:
            raise PeerTimeout(
                f"{self.conn.remote} did not send its {kind!r} message within {within:g} s"
            ) from None
        if frame is None:
            raise ConnectionLost(f"{self.conn.remote} closed the connection during the handshake")
        if self.cipher is not None:
            record_type, frame = self.cipher.open(frame)
            if record_type is not RecordType.HANDSHAKE:
                raise MalformedHandshake("the peer sent channel data before the handshake ended")
        message = decode_message(frame)
        if message["t"] == "abort":
            self.settled = True
            raise error_for_abort(message)
        if message["t"] != kind:
            raise MalformedHandshake(f"expected the peer's {kind!r} message, got {message['t']!r}")
        return message

    def channel(
        self,
        *,
        local: PeerIdentity,
        peer: PeerIdentity,
        role: Role,
        mode: Mode,
        binding: bytes,
        config: ChannelConfig,
    ) -> SecureChannel:
        """The channel the finished handshake hands over (started by ``_run``)."""
        if self.cipher is None:
            raise RuntimeError("the handshake ended before keys were agreed")  # our bug
        return SecureChannel(
            self.conn,
            self.cipher,
            local=local,
            peer=peer,
            role=role,
            mode=mode,
            binding=binding,
            config=config,
        )

    def abort(self, exc: TransportError) -> None:
        """Tell the peer why we stop, without waiting (it may be gone already)."""
        if self.settled:
            return
        self.settled = True
        reason = abort_reason(exc)
        text = str(exc)[:_MAX_TEXT] if reason in _TELL_TEXT else ""
        with contextlib.suppress(TransportError, OSError):
            self.conn.write_frame(self._payload("abort", {"reason": reason, "text": text}))


def _password(words: tuple[str, ...]) -> bytes:
    return "-".join(words).encode("ascii")


def _finish_spake(spake: SPAKE2_A | SPAKE2_B, message: bytes) -> bytes:
    try:
        key: bytes = spake.finish(message)
    except Exception:  # spake2 raises assorted errors (and asserts) on a bad point
        raise MalformedHandshake("the peer's SPAKE2 message is not a valid group element") from None
    return key


def _x25519(private: X25519PrivateKey, peer_public: bytes) -> bytes:
    try:
        return private.exchange(X25519PublicKey.from_public_bytes(peer_public))
    except ValueError:
        raise MalformedHandshake("the peer's X25519 key is a low-order point") from None


def _known_hello() -> tuple[X25519PrivateKey, bytes, bytes]:
    private = X25519PrivateKey.generate()
    return private, os.urandom(NONCE_SIZE), private.public_key().public_bytes_raw()


async def _run(
    conn: FrameConnection,
    config: ChannelConfig,
    flow: Callable[[_Wire], Awaitable[SecureChannel]],
) -> SecureChannel:
    wire = _Wire(conn)
    try:
        async with asyncio.timeout(config.handshake_timeout):
            channel = await flow(wire)
    except TimeoutError:
        conn.close()
        raise PeerTimeout(
            f"{conn.remote} did not complete the handshake within {config.handshake_timeout:g} s"
        ) from None
    except TransportError as exc:
        if not isinstance(exc, NetworkError):
            wire.abort(exc)
        conn.close()
        raise
    except BaseException:
        conn.close()
        raise
    channel.start()
    return channel


async def host_handshake(
    conn: FrameConnection,
    identity: Identity,
    *,
    slot: CodeSlot,
    known_peers: KnownPeers | None,
    allow_known: bool = True,
    config: ChannelConfig = DEFAULT_CONFIG,
    attempt: Attempt | None = None,
    admit: Admit | None = None,
) -> SecureChannel:
    """Answer one joiner on ``conn``: a join-code attempt or a known peer's rematch.

    ``admit`` sees the joiner's claimed identity first and may refuse it by
    raising (``NotThisMatch`` while a match waits for its own opponent).
    """
    record = attempt if attempt is not None else Attempt(conn.remote)

    async def flow(wire: _Wire) -> SecureChannel:
        hello = await wire.receive("hello", HELLO_TIMEOUT)
        if hello.get("proto") != PROTOCOL:
            raise MalformedHandshake(f"{conn.remote} does not speak {PROTOCOL}")
        if hello.get("v") != VERSION:
            raise VersionMismatch(
                f"the joiner speaks {PROTOCOL} version {hello.get('v')!r}; this host speaks "
                f"version {VERSION}"
            )
        mode = hello.get("mode")
        if mode == "code":
            t0, keys = await _host_code(wire, hello, slot, record)
        elif mode == "known":
            if known_peers is None or not allow_known:
                raise UnknownPeer(
                    f"{conn.remote} asked for a code-less rematch, which this host does not accept"
                )
            t0, keys = await _host_known(wire, hello)
        else:
            raise MalformedHandshake(f"the joiner asked for an unknown handshake mode {mode!r}")
        wire.cipher = keys.cipher("host")
        return await _host_identities(
            wire,
            identity=identity,
            t0=t0,
            mode=mode,
            known_peers=known_peers,
            record=record,
            config=config,
            admit=admit,
        )

    return await _run(conn, config, flow)


async def _host_code(
    wire: _Wire, hello: dict[str, Any], slot: CodeSlot, record: Attempt
) -> tuple[bytes, KeySchedule]:
    message_a = field_bytes(hello, "pake", SPAKE2_MESSAGE_SIZE)
    words = slot.peek()
    if words is None and not slot.ever_armed:
        raise NoJoinCode(
            f"{wire.conn.remote} tried a join code, but this host takes known peers only; "
            "it was refused"
        )
    if words is None:
        raise JoinCodeSpent(
            f"{wire.conn.remote} tried a join code, but this host's code was already spent; "
            "it was refused"
        )
    spake = SPAKE2_B(_password(words), idA=SPAKE2_ID_JOINER, idB=SPAKE2_ID_HOST)
    message_b: bytes = spake.start()
    secret = _finish_spake(spake, message_a)  # junk is refused here, before the code is spent
    slot.take()  # a well-formed attempt: one guess, right or wrong (no await since peek)
    record.used_code = True
    t0 = transcript_hash(b"p2p66-net/v1 code", message_a, message_b)
    keys = KeySchedule.derive(secret, t0)
    await wire.send("pake", pake=message_b, confirm=keys.confirmation("host"))
    reply = await wire.receive("confirm", CODE_HOLD_TIMEOUT)
    if not hmac.compare_digest(
        field_bytes(reply, "confirm", MAC_SIZE), keys.confirmation("joiner")
    ):
        raise WrongJoinCode(
            f"{wire.conn.remote} did not prove knowledge of the join code; the code is now spent"
        )
    return t0, keys


async def _host_known(wire: _Wire, hello: dict[str, Any]) -> tuple[bytes, KeySchedule]:
    nonce_j = field_bytes(hello, "nonce", NONCE_SIZE)
    dh_j = field_bytes(hello, "dh", PUBLIC_KEY_SIZE)
    private, nonce_h, dh_h = _known_hello()
    secret = _x25519(private, dh_j)
    t0 = transcript_hash(b"p2p66-net/v1 known", nonce_j, dh_j, nonce_h, dh_h)
    await wire.send("dh", nonce=nonce_h, dh=dh_h)
    return t0, KeySchedule.derive(secret, t0)


async def _host_identities(
    wire: _Wire,
    *,
    identity: Identity,
    t0: bytes,
    mode: Mode,
    known_peers: KnownPeers | None,
    record: Attempt,
    config: ChannelConfig,
    admit: Admit | None,
) -> SecureChannel:
    joiner = field_identity(await wire.receive("id"))
    record.peer = joiner
    if admit is not None:
        admit(joiner)
    if (
        mode == "known"
        and known_peers is not None
        and known_peers.name_for_key(joiner.public_key) is None
    ):
        raise UnknownPeer(
            f"{joiner.name!r} ({joiner.fingerprint}) at {wire.conn.remote} asked for a "
            "code-less rematch, but its key is not pinned; refused"
        )
    is_pinned = known_peers.check(joiner) if known_peers is not None else True
    me = identity.public
    t1 = identity_transcript(t0, joiner, me)
    await wire.send(
        "id", name=me.name, key=me.public_key, sig=identity.sign(signed_message("host", t1))
    )
    auth = await wire.receive("auth")
    joiner.verify(field_bytes(auth, "sig", SIGNATURE_SIZE), signed_message("joiner", t1))
    if known_peers is not None and not is_pinned:
        known_peers.pin(joiner)
    await wire.send("ready")
    return wire.channel(local=me, peer=joiner, role="host", mode=mode, binding=t1, config=config)


async def join_handshake(
    conn: FrameConnection,
    identity: Identity,
    *,
    words: tuple[str, ...] | None,
    known_peers: KnownPeers | None,
    expect_name: str | None = None,
    config: ChannelConfig = DEFAULT_CONFIG,
    expect_key: PeerIdentity | None = None,
) -> SecureChannel:
    """Join the host on ``conn`` with a join code's ``words``, or (``None``) as a known peer.

    A known-peer join may demand the host be one key (``expect_key``: the
    opponent of a match to resume) or one of the keys pinned under ``expect_name``.
    """
    if words is None and known_peers is None:
        raise ValueError("a code-less rematch needs the known peers to check the host against")

    async def flow(wire: _Wire) -> SecureChannel:
        mode: Mode
        if words is not None:
            mode, keys = "code", await _join_code(wire, words)
        else:
            mode, keys = "known", await _join_known(wire)
        wire.cipher = keys.cipher("joiner")
        me = identity.public
        await wire.send("id", name=me.name, key=me.public_key)
        reply = await wire.receive("id")
        host = field_identity(reply)
        t1 = identity_transcript(keys.t0, me, host)
        host.verify(field_bytes(reply, "sig", SIGNATURE_SIZE), signed_message("host", t1))
        if mode == "known" and known_peers is not None:
            _check_known_host(known_peers, host, expect_name, expect_key)
        is_pinned = known_peers.check(host) if known_peers is not None else True
        await wire.send("auth", sig=identity.sign(signed_message("joiner", t1)))
        await wire.receive("ready")
        if known_peers is not None and not is_pinned:
            known_peers.pin(host)
        return wire.channel(
            local=me, peer=host, role="joiner", mode=mode, binding=t1, config=config
        )

    return await _run(conn, config, flow)


async def _join_code(wire: _Wire, words: tuple[str, ...]) -> KeySchedule:
    spake = SPAKE2_A(_password(words), idA=SPAKE2_ID_JOINER, idB=SPAKE2_ID_HOST)
    message_a: bytes = spake.start()
    await wire.send("hello", proto=PROTOCOL, v=VERSION, mode="code", pake=message_a)
    reply = await wire.receive("pake")
    message_b = field_bytes(reply, "pake", SPAKE2_MESSAGE_SIZE)
    host_confirmation = field_bytes(reply, "confirm", MAC_SIZE)
    secret = _finish_spake(spake, message_b)
    keys = KeySchedule.derive(secret, transcript_hash(b"p2p66-net/v1 code", message_a, message_b))
    if not hmac.compare_digest(host_confirmation, keys.confirmation("host")):
        raise WrongJoinCode(
            "the host did not accept the join code: it does not match the host's code "
            "(a typo, or a code meant for another game). The code is now spent: ask the "
            "host for a new one"
        )
    await wire.send("confirm", confirm=keys.confirmation("joiner"))
    return keys


async def _join_known(wire: _Wire) -> KeySchedule:
    private, nonce_j, dh_j = _known_hello()
    await wire.send("hello", proto=PROTOCOL, v=VERSION, mode="known", nonce=nonce_j, dh=dh_j)
    reply = await wire.receive("dh")
    nonce_h = field_bytes(reply, "nonce", NONCE_SIZE)
    dh_h = field_bytes(reply, "dh", PUBLIC_KEY_SIZE)
    secret = _x25519(private, dh_h)
    return KeySchedule.derive(
        secret, transcript_hash(b"p2p66-net/v1 known", nonce_j, dh_j, nonce_h, dh_h)
    )


def _check_known_host(
    known_peers: KnownPeers,
    host: PeerIdentity,
    expect_name: str | None,
    expect_key: PeerIdentity | None,
) -> None:
    if expect_key is not None and host.public_key != expect_key.public_key:
        raise NotThisMatch(
            f"the host {host.name!r} ({host.fingerprint}) is not {expect_key.name!r} "
            f"({expect_key.fingerprint}), the opponent of this match; refused"
        )
    if expect_name is not None:
        pinned = known_peers.keys_named(expect_name)
        if not pinned:
            raise UnknownPeer(
                f"no identity key is pinned for {expect_name!r}; connect with a join code first"
            )
        if host.public_key not in pinned:
            raise PeerKeyChanged(
                expect_name, fingerprint(pinned[0]), host.fingerprint, str(known_peers.path)
            )
    if known_peers.name_for_key(host.public_key) is None:
        raise UnknownPeer(
            f"the host {host.name!r} ({host.fingerprint}) is not a known peer (its key is not "
            "pinned); connect with a join code first"
        )
