"""The encrypted, authenticated channel the session talks through.

After the handshake every frame is one *record*: ChaCha20-Poly1305 over a
one-byte record type and a body, with its own key per direction and a nonce
that is the per-direction record counter. The counter is never sent, so a
replayed, reordered, dropped-then-resumed or altered frame fails to decrypt
and is reported as ``TamperedFrame``; one such frame ends the channel.

Record types: DATA carries one opaque session message; PING/PONG carry a
heartbeat id (invisible to the session; the round trip is ``latency``); CLOSE
says goodbye with an optional reason; HANDSHAKE is used only before the
channel starts. A background reader answers pings and queues DATA, so the peer
sees us alive even while the session is busy; ``idle_timeout`` turns silence
into ``PeerTimeout``.

Memory stays bounded whatever the peer sends: at most ``max_in_flight`` DATA
messages (64 KiB each at most) wait unread; one more ends the channel with
``PeerFlooded`` (the peer's fault), after the messages already queued, which
are the evidence. A pong is written only once the previous writes have
drained, so a peer that pings without reading stalls its own connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Coroutine
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from p2p66.net.errors import (
    ChannelClosed,
    ConnectionLost,
    LocalTransportError,
    MalformedFrame,
    PayloadTooLarge,
    PeerClosed,
    PeerFlooded,
    PeerTimeout,
    TamperedFrame,
    TransportError,
)
from p2p66.net.framing import MAX_PAYLOAD
from p2p66.net.identity import PeerIdentity
from p2p66.net.streams import FrameConnection

Role = Literal["host", "joiner"]
Mode = Literal["code", "known"]

KEY_SIZE: Final = 32
TAG_SIZE: Final = 16
RECORD_OVERHEAD: Final = 1 + TAG_SIZE
MAX_MESSAGE: Final = MAX_PAYLOAD - RECORD_OVERHEAD
_AAD: Final = b"p2p66-net/v1 record"
_MAX_COUNTER: Final = 2**64 - 1
_PING_ID_SIZE: Final = 8
_MAX_OUTSTANDING_PINGS: Final = 16
_MAX_CLOSE_REASON: Final = 200


class RecordType(IntEnum):
    """The first plaintext byte of every record."""

    DATA = 0
    PING = 1
    PONG = 2
    CLOSE = 3
    HANDSHAKE = 16


class RecordCipher:
    """Seals and opens records with per-direction keys and counters (sans-IO)."""

    def __init__(self, send_key: bytes, recv_key: bytes) -> None:
        if len(send_key) != KEY_SIZE or len(recv_key) != KEY_SIZE or send_key == recv_key:
            raise ValueError("a record cipher needs two distinct 32-byte keys")
        self._send = ChaCha20Poly1305(send_key)
        self._recv = ChaCha20Poly1305(recv_key)
        self._send_counter = 0
        self._recv_counter = 0
        self._broken: TransportError | None = None

    @staticmethod
    def _nonce(counter: int) -> bytes:
        return bytes(4) + counter.to_bytes(8, "big")

    def seal(self, record_type: RecordType, body: bytes) -> bytes:
        """Encrypt one record; each call uses the next nonce of our direction."""
        if self._send_counter >= _MAX_COUNTER:
            raise LocalTransportError("this channel has sent 2**64 records; open a new one")
        nonce = self._nonce(self._send_counter)
        self._send_counter += 1
        return self._send.encrypt(nonce, bytes([record_type]) + body, _AAD)

    def open(self, payload: bytes) -> tuple[RecordType, bytes]:
        """Decrypt the peer's next record or raise its protocol error (then stay broken)."""
        if self._broken is not None:
            raise self._broken
        index = self._recv_counter
        try:
            if len(payload) < RECORD_OVERHEAD or index >= _MAX_COUNTER:
                raise InvalidTag
            plain = self._recv.decrypt(self._nonce(index), payload, _AAD)
        except InvalidTag:
            self._broken = TamperedFrame(
                f"encrypted frame #{index} from the peer failed authentication: it was "
                "tampered with, replayed, reordered or a frame before it went missing"
            )
            raise self._broken from None
        self._recv_counter += 1
        try:
            return RecordType(plain[0]), plain[1:]
        except ValueError:
            self._broken = MalformedFrame(f"the peer sent a record of unknown type {plain[0]}")
            raise self._broken from None


@dataclass(frozen=True, slots=True)
class ChannelConfig:
    """Timeouts of a channel, in seconds; ``None`` switches a mechanism off."""

    handshake_timeout: float = 15.0
    heartbeat_interval: float | None = 5.0
    idle_timeout: float | None = 30.0
    send_timeout: float | None = 30.0
    max_in_flight: int = 32
    """DATA messages that may wait unread (2 MiB at most). The game never has more than a
    few in flight (3 in a row from one side in every recorded match); the rest is slack
    for resynchronisation and for other uses of the channel."""

    def __post_init__(self) -> None:
        if self.max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {self.max_in_flight!r}")
        for name in ("handshake_timeout", "heartbeat_interval", "idle_timeout", "send_timeout"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if (
            self.heartbeat_interval is not None
            and self.idle_timeout is not None
            and self.idle_timeout <= 2 * self.heartbeat_interval
        ):
            raise ValueError(
                "idle_timeout must exceed two heartbeat intervals, or a live peer "
                "could be declared dead"
            )


DEFAULT_CONFIG: Final = ChannelConfig()


class SecureChannel:
    """An authenticated, encrypted message channel to one peer.

    Made by ``p2p66.net.tcp.host`` / ``join`` / ``join_known`` or by
    ``memory_channel_pair``, never directly. ``send`` and ``recv`` move opaque
    messages of at most ``MAX_MESSAGE`` bytes, in order, exactly once.
    """

    def __init__(
        self,
        conn: FrameConnection,
        cipher: RecordCipher,
        *,
        local: PeerIdentity,
        peer: PeerIdentity,
        role: Role,
        mode: Mode,
        binding: bytes,
        config: ChannelConfig,
    ) -> None:
        self._conn = conn
        self._cipher = cipher
        self.local = local
        """Our own identity as the peer saw it."""
        self.peer = peer
        """The peer's authenticated identity (name, public key, fingerprint)."""
        self.role: Role = role
        self.mode: Mode = mode
        """``"code"`` if a join code opened the channel, ``"known"`` for a pinned rematch."""
        self.binding = binding
        """32 bytes unique to this handshake, the same on both sides (channel binding)."""
        self.config = config
        self.latency: float | None = None
        """The last heartbeat round trip in seconds (``None`` until one completes)."""
        self.max_message = MAX_MESSAGE
        self.most_unread = 0
        """The most DATA messages that ever waited unread (bounded by ``max_in_flight``)."""
        self._inbox: asyncio.Queue[bytes | TransportError] = asyncio.Queue()
        self._failure: TransportError | None = None
        self._ended = asyncio.Event()
        self._closed = False
        self._tasks: list[asyncio.Task[None]] = []
        self._pings: dict[int, float] = {}
        self._pong_waiters: dict[int, asyncio.Future[float]] = {}
        self._next_ping = 0
        self._loop = asyncio.get_running_loop()
        self._last_heard = self._loop.time()

    @property
    def remote(self) -> str:
        """The peer's network address, for messages."""
        return self._conn.remote

    @property
    def closed(self) -> bool:
        """True once the channel has ended for any reason."""
        return self._failure is not None

    async def ended(self) -> TransportError:
        """Wait until the channel ends, for any reason, and return why (nothing is consumed)."""
        await self._ended.wait()
        assert self._failure is not None
        return self._failure

    def start(self) -> None:
        """Start the reader and the liveness tasks (the handshake calls this)."""
        if self._tasks:
            return
        self._last_heard = self._loop.time()
        self._spawn(self._read_loop())
        if self.config.heartbeat_interval is not None:
            self._spawn(self._heartbeat_loop(self.config.heartbeat_interval))
        if self.config.idle_timeout is not None:
            self._spawn(self._watchdog_loop(self.config.idle_timeout))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self._tasks.append(self._loop.create_task(coro))

    async def send(self, data: bytes) -> None:
        """Send one message; raises the channel's failure if it has ended."""
        if self._failure is not None:
            raise self._failure
        if len(data) > MAX_MESSAGE:
            raise PayloadTooLarge(f"a message carries at most {MAX_MESSAGE} bytes, got {len(data)}")
        self._write_record(RecordType.DATA, bytes(data))
        await self._drain()

    async def recv(self) -> bytes:
        """The next message from the peer.

        Messages that arrived before the channel ended are still delivered;
        then the reason it ended is raised (``PeerClosed``, ``PeerTimeout``,
        ``TamperedFrame``, ``ConnectionLost``...) on every further call.
        """
        if self._closed:
            raise ChannelClosed("this channel was closed on our side")
        item = await self._inbox.get()
        if isinstance(item, TransportError):
            self._inbox.put_nowait(item)
            raise item
        return item

    def unread(self) -> list[bytes]:
        """Take every message that arrived and was not read yet (e.g. as evidence)."""
        taken: list[bytes] = []
        while not self._inbox.empty():
            item = self._inbox.get_nowait()
            if isinstance(item, TransportError):
                self._inbox.put_nowait(item)
                break
            taken.append(item)
        return taken

    async def ping(self, timeout: float = 10.0) -> float:
        """Measure one round trip now (a heartbeat on demand); returns seconds."""
        if self._failure is not None:
            raise self._failure
        ping_id = self._send_ping()
        waiter: asyncio.Future[float] = self._loop.create_future()
        self._pong_waiters[ping_id] = waiter
        try:
            async with asyncio.timeout(timeout):
                await self._drain()
                return await waiter
        except TimeoutError:
            raise PeerTimeout(
                f"{self.peer.name} did not answer a ping within {timeout:g} s"
            ) from None
        finally:
            self._pong_waiters.pop(ping_id, None)

    def close(self, reason: str = "") -> None:
        """Say goodbye (a CLOSE record with ``reason``) and close the connection."""
        if self._failure is None:
            with contextlib.suppress(TransportError):
                body = reason.encode("utf-8", "replace")[:_MAX_CLOSE_REASON]
                self._write_record(RecordType.CLOSE, body)
            self._fail(ChannelClosed("this channel was closed on our side"))
        self._closed = True

    async def aclose(self, reason: str = "") -> None:
        """``close`` and wait until the background tasks and the connection are done."""
        self.close(reason)
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._conn.stream.wait_closed()

    async def __aenter__(self) -> SecureChannel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- internals ----------------------------------------------------------------------

    def _write_record(self, record_type: RecordType, body: bytes) -> None:
        try:
            self._conn.write_frame(self._cipher.seal(record_type, body))
        except TransportError as exc:
            self._fail(exc)
            raise

    async def _drain(self) -> None:
        try:
            async with asyncio.timeout(self.config.send_timeout):
                await self._conn.stream.drain()
        except TimeoutError:
            exc = PeerTimeout(
                f"{self.peer.name} at {self.remote} has not read our data for "
                f"{self.config.send_timeout:g} s"
            )
            self._fail(exc)
            raise exc from None
        except TransportError as exc:
            self._fail(exc)
            raise

    def _fail(self, exc: TransportError) -> None:
        if self._failure is not None:
            return
        self._failure = exc
        self._ended.set()
        self._inbox.put_nowait(exc)
        for waiter in self._pong_waiters.values():
            if not waiter.done():
                waiter.set_exception(exc)
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        self._conn.close()

    def _send_ping(self) -> int:
        ping_id = self._next_ping
        self._next_ping += 1
        self._pings[ping_id] = self._loop.time()
        while len(self._pings) > _MAX_OUTSTANDING_PINGS:
            del self._pings[min(self._pings)]
        self._write_record(RecordType.PING, ping_id.to_bytes(_PING_ID_SIZE, "big"))
        return ping_id

    async def _read_loop(self) -> None:
        try:
            while True:
                frame = await self._conn.read_frame()
                if frame is None:
                    raise ConnectionLost(
                        f"{self.peer.name} at {self.remote} dropped the connection "
                        "without closing the channel"
                    )
                self._last_heard = self._loop.time()
                record_type, body = self._cipher.open(frame)
                if record_type is RecordType.DATA:
                    self._queue(body)
                elif record_type is RecordType.PING:
                    self._check_ping_body(body)
                    self._write_record(RecordType.PONG, body)
                    await self._drain()
                elif record_type is RecordType.PONG:
                    self._on_pong(body)
                elif record_type is RecordType.CLOSE:
                    raise PeerClosed(body.decode("utf-8", "replace"))
                else:
                    raise MalformedFrame("the peer sent a handshake record after the handshake")
        except TransportError as exc:
            self._fail(exc)

    def _queue(self, body: bytes) -> None:
        unread = self._inbox.qsize()
        if unread >= self.config.max_in_flight:
            raise PeerFlooded(
                f"{self.peer.name} at {self.remote} sent more than "
                f"{self.config.max_in_flight} messages that were not asked for yet (the "
                "protocol never has that many in flight); the connection is closed"
            )
        self._inbox.put_nowait(body)
        self.most_unread = max(self.most_unread, unread + 1)

    @staticmethod
    def _check_ping_body(body: bytes) -> None:
        if len(body) != _PING_ID_SIZE:
            raise MalformedFrame(
                f"a heartbeat carries {_PING_ID_SIZE} bytes, the peer sent {len(body)}"
            )

    def _on_pong(self, body: bytes) -> None:
        self._check_ping_body(body)
        ping_id = int.from_bytes(body, "big")
        sent = self._pings.pop(ping_id, None)
        if sent is None:
            return  # an answer to a ping we already forgot: harmless
        self.latency = self._loop.time() - sent
        waiter = self._pong_waiters.get(ping_id)
        if waiter is not None and not waiter.done():
            waiter.set_result(self.latency)

    async def _heartbeat_loop(self, interval: float) -> None:
        try:
            while True:
                await asyncio.sleep(interval)
                self._send_ping()
                await self._drain()
        except TransportError:
            pass  # _write_record / _drain already recorded the failure

    async def _watchdog_loop(self, idle_timeout: float) -> None:
        while True:
            remaining = self._last_heard + idle_timeout - self._loop.time()
            if remaining <= 0:
                self._fail(
                    PeerTimeout(
                        f"nothing heard from {self.peer.name} at {self.remote} "
                        f"for {idle_timeout:g} s"
                    )
                )
                return
            await asyncio.sleep(remaining)
