"""TCP hosting and joining: the only module here that opens sockets.

``host`` / ``Listener`` listen (IPv4 and IPv6 on one port; port 0 picks a free
port, ``Listener.bound`` reports what was bound and ``Listener.join_codes`` the
code for every usable address), admit unauthenticated connections through a
``Gate`` (per-source limits, the oldest dropped for a newcomer), run the
handshake with each and hand out authenticated ``SecureChannel``s. ``join``
connects with a join code, ``join_known`` reconnects to a pinned peer without
one. Every wait has a timeout, and socket failures become ``ConnectFailed``,
``ListenFailed`` or ``PeerTimeout`` with the address in the message.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
from collections.abc import Callable, Sequence
from typing import Final

from p2p66.net.addresses import BindError, Bound, bind_one_port, join_addresses
from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.errors import (
    ConnectFailed,
    ConnectionLost,
    ListenFailed,
    LocalTransportError,
    NotThisMatch,
    PeerTimeout,
    TransportError,
)
from p2p66.net.gate import Entry, Gate, source_of
from p2p66.net.handshake import (
    Attempt,
    CodeSlot,
    host_handshake,
    join_handshake,
)
from p2p66.net.identity import Identity, KnownPeers, PeerIdentity
from p2p66.net.joincode import DEFAULT_PORT, JoinCode, generate_words, parse_join_code
from p2p66.net.streams import FrameConnection, TcpStream

CONNECT_TIMEOUT: Final = 10.0
ACCEPT_BACKLOG: Final = 32
"""Connections taken per wake-up (and the kernel queue): a burst cannot outrun a hello."""
MAX_REJECTS_KEPT: Final = 32

REUSE_PORT: Final = hasattr(socket, "SO_REUSEPORT")

RejectHandler = Callable[[str, TransportError], None]


class NobodyJoined(PeerTimeout):
    """``Listener.accept`` waited its whole timeout and nobody completed a handshake."""


def os_reason(exc: OSError) -> str:
    """Why a socket call failed, in words ("No route to host"), not asyncio's
    "Connect call failed ('192.168.1.2', 6666)", which only repeats the address."""
    return os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))


def format_address(host: str, port: int) -> str:
    """``host:port``, with IPv6 hosts in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Listener:
    """A listening host: answers joiners, hands out channels, and owns the join code.

    The code allows one attempt: ``accept`` raises that attempt's error
    (usually ``WrongJoinCode``) if it fails, after which ``code_armed`` is
    False and later code attempts are refused with ``JoinCodeSpent`` until
    ``renew_code``. Connections that fail without touching the code (garbage,
    refused rematches, spent-code attempts) do not disturb ``accept``; they are
    kept in ``rejected`` and passed to ``on_reject``.
    """

    def __init__(
        self,
        identity: Identity,
        *,
        words: tuple[str, ...] | None,
        known_peers: KnownPeers | None,
        allow_known: bool,
        config: ChannelConfig,
        on_reject: RejectHandler | None,
    ) -> None:
        self.identity = identity
        self.known_peers = known_peers
        self.allow_known = allow_known
        self.config = config
        self.rejected: list[tuple[str, TransportError]] = []
        self._on_reject = on_reject
        self._words = words
        self._slot = CodeSlot(words)
        self._results: asyncio.Queue[SecureChannel | TransportError] = asyncio.Queue()
        self._handlers: set[asyncio.Task[object]] = set()
        self._servers: list[asyncio.Server] = []
        self._bind: str | None = None
        self.gate = Gate()
        """The unauthenticated connections (see ``p2p66.net.gate``)."""
        self._only: Sequence[PeerIdentity] | None = None
        self._closing = False

    @classmethod
    async def open(
        cls,
        identity: Identity,
        *,
        words: tuple[str, ...] | None,
        bind: str | None = None,
        port: int = DEFAULT_PORT,
        known_peers: KnownPeers | None = None,
        allow_known: bool = True,
        config: ChannelConfig = DEFAULT_CONFIG,
        on_reject: RejectHandler | None = None,
    ) -> Listener:
        """Listen on ``bind`` (``None``: every interface, IPv4 and IPv6) and ``port``.

        Every address ``bind`` stands for gets the same port, also for port 0.
        ``words`` is the join code's secret (``None``: known peers only).
        """
        listener = cls(
            identity,
            words=words,
            known_peers=known_peers,
            allow_known=allow_known,
            config=config,
            on_reject=on_reject,
        )
        listener._bind = bind
        try:
            sockets = bind_one_port(bind, port)
        except BindError as exc:
            raise ListenFailed(str(exc)) from None
        _share_with_dial_from(sockets)
        try:
            for sock in sockets:
                listener._servers.append(
                    await asyncio.start_server(listener._handle, sock=sock, backlog=ACCEPT_BACKLOG)
                )
        except BaseException:
            for sock in sockets:
                sock.close()
            listener.close()
            raise
        return listener

    @property
    def bound(self) -> list[Bound]:
        """Every address actually listened on, with its port (the same for all)."""
        return [
            Bound(str(sock.getsockname()[0]), int(sock.getsockname()[1]))
            for server in self._servers
            for sock in server.sockets
        ]

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """Every ``(address, port)`` actually bound."""
        return [(b.address, b.port) for b in self.bound]

    @property
    def port(self) -> int:
        """The bound port (useful after asking for port 0)."""
        return self.bound[0].port

    @property
    def words(self) -> tuple[str, ...] | None:
        """The words of the current join code (``None``: known peers only)."""
        return self._words

    @property
    def code_armed(self) -> bool:
        """True while the join code still waits for its one attempt."""
        return self._slot.armed

    def join_code(self, address: str | None = None) -> JoinCode:
        """The code to show the joiner; ``address`` defaults to the bound address."""
        if self._words is None or not self._slot.armed:
            raise LocalTransportError("this host has no unspent join code; call renew_code()")
        host = address if address is not None else self._bind
        if host is None or host in ("", "0.0.0.0", "::"):
            raise LocalTransportError(
                "this host listens on every interface: pass the address joiners should use"
            )
        return JoinCode(self._words, host, self.port)

    def join_codes(self) -> list[JoinCode]:
        """One code for every address a joiner can use (see ``addresses.join_addresses``)."""
        return [self.join_code(b.address) for b in join_addresses(self.bound)]

    def only_for(self, opponent: PeerIdentity | Sequence[PeerIdentity] | None) -> None:
        """Admit only ``opponent``'s key (or those of a table's seated joiners) from now on
        (``None``: anyone again).

        While a match waits for its opponent to reconnect, anyone else who
        gets through the handshake's first steps (an earlier opponent with
        ``join --rematch``) is refused with a clear ``busy`` abort.
        """
        self._only = (opponent,) if isinstance(opponent, PeerIdentity) else opponent

    def take_no_codes(self) -> None:
        """Refuse every join code from now on (known peers only)."""
        self._words = None
        self._slot = CodeSlot(None)

    def _admit(self, joiner: PeerIdentity) -> None:
        only = self._only
        if only is not None and joiner.public_key not in {p.public_key for p in only}:
            waited = ", ".join(f"{p.name!r} ({p.fingerprint})" for p in only)
            raise NotThisMatch(
                f"{joiner.name!r} ({joiner.fingerprint}) tried to join while the match waits "
                f"for {waited} to reconnect; refused"
            )

    def keep_code(self, attempts: int = 1) -> None:
        """Arm the current words again for ``attempts`` attempts, concurrent or not.

        A lobby seats several joiners with one code and allows one attempt per
        free seat; after a failed attempt it makes a new code (``renew_code``).
        """
        if self._words is None:
            raise LocalTransportError("this host takes no join codes")
        self._slot.renew(self._words, attempts)

    def renew_code(self, rng: random.Random | None = None) -> tuple[str, ...]:
        """Arm a fresh code (the old one is forgotten) and return its words."""
        self._words = generate_words(rng)
        self._slot.renew(self._words)
        return self._words

    async def accept(self, timeout: float | None = None) -> SecureChannel:
        """The next authenticated channel; raises a failed code attempt's error."""
        try:
            async with asyncio.timeout(timeout):
                item = await self._results.get()
        except TimeoutError:
            raise NobodyJoined(f"nobody joined within {timeout:g} s") from None
        if isinstance(item, TransportError):
            raise item
        return item

    def close(self) -> None:
        """Stop listening, abandon handshakes in progress, close channels not accepted."""
        self._closing = True
        for server in self._servers:
            server.close()
        for task in self._handlers:
            task.cancel()
        while not self._results.empty():
            item = self._results.get_nowait()
            if isinstance(item, SecureChannel):
                item.close("the host stopped")

    async def aclose(self) -> None:
        """``close`` and wait until everything has stopped."""
        self.close()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        for server in self._servers:
            await server.wait_closed()

    async def __aenter__(self) -> Listener:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def adopt(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Treat a connection we opened (to a joiner's reply code) like an incoming one.

        The roles stay: we run the host's side of the handshake with our code.
        """
        await self._handle(reader, writer)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        stream = TcpStream(reader, writer)
        task = asyncio.current_task()
        assert task is not None
        attempt = Attempt(stream.remote)

        def drop() -> None:
            task.cancel()

        entry = Entry(source_of(stream.remote), drop, protected=lambda: attempt.used_code)
        if not self.gate.admit(entry):
            stream.close()
            self._reject(stream.remote, PeerTimeout("too many handshakes at once; dropped"))
            return
        self._handlers.add(task)
        try:
            channel = await host_handshake(
                FrameConnection(stream),
                self.identity,
                slot=self._slot,
                known_peers=self.known_peers,
                allow_known=self.allow_known,
                config=self.config,
                attempt=attempt,
                admit=self._admit,
            )
        except TransportError as exc:
            if attempt.used_code:
                self._results.put_nowait(exc)
            else:
                self._reject(stream.remote, exc)
            return
        except asyncio.CancelledError:
            # Pushed out by the gate, or the listener closes: the task ends quietly (a
            # cancelled connection task would be logged as an error by asyncio's server).
            stream.close()
            if not self._closing:
                self._reject(stream.remote, ConnectionLost("dropped for a newer connection"))
            return
        finally:
            self.gate.leave(entry)
            self._handlers.discard(task)
        self._results.put_nowait(channel)

    def _reject(self, remote: str, exc: TransportError) -> None:
        self.rejected.append((remote, exc))
        del self.rejected[:-MAX_REJECTS_KEPT]
        if self._on_reject is not None:
            self._on_reject(remote, exc)


def _share_with_dial_from(sockets: list[socket.socket]) -> None:
    """Let ``reply.dial_from`` connect out from the listening port (a reply code's dial).

    SO_REUSEPORT is set *after* the bind, so a second listener on the port is
    still refused ("cannot listen"): only sockets that ask for it, like ours
    dialing out, may share the port (same user only, on Linux).
    """
    if not REUSE_PORT:
        return
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)


async def host(
    identity: Identity,
    *,
    words: tuple[str, ...] | None,
    bind: str | None = None,
    port: int = DEFAULT_PORT,
    known_peers: KnownPeers | None = None,
    allow_known: bool = True,
    timeout: float | None = None,
    config: ChannelConfig = DEFAULT_CONFIG,
    on_listening: Callable[[Listener], None] | None = None,
    on_reject: RejectHandler | None = None,
) -> SecureChannel:
    """Listen, wait for one joiner (at most ``timeout`` s), return its channel, stop listening.

    ``on_listening`` is called once the socket is bound, to show the join code.
    """
    listener = await Listener.open(
        identity,
        words=words,
        bind=bind,
        port=port,
        known_peers=known_peers,
        allow_known=allow_known,
        config=config,
        on_reject=on_reject,
    )
    async with listener:
        if on_listening is not None:
            on_listening(listener)
        return await listener.accept(timeout)


async def connect(host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> TcpStream:
    """Open a TCP connection, turning every way it can fail into a clear error."""
    where = format_address(host, port)
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
    except TimeoutError:
        raise PeerTimeout(
            f"connecting to {where} timed out after {timeout:g} s (is the address right and "
            "the host's port reachable?)"
        ) from None
    except ConnectionRefusedError:
        raise ConnectFailed(
            f"{where} refused the connection: nobody is hosting a game on that port"
        ) from None
    except socket.gaierror as exc:
        raise ConnectFailed(f"cannot resolve the host name {host!r}: {exc.strerror}") from None
    except OSError as exc:
        raise ConnectFailed(f"cannot reach {where}: {os_reason(exc)}") from None
    return TcpStream(reader, writer)


async def join(
    code: JoinCode | str,
    identity: Identity,
    *,
    known_peers: KnownPeers | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    config: ChannelConfig = DEFAULT_CONFIG,
) -> SecureChannel:
    """Connect to the host named in ``code`` and authenticate with its words."""
    parsed = parse_join_code(code) if isinstance(code, str) else code
    stream = await connect(parsed.host, parsed.port, connect_timeout)
    return await join_handshake(
        FrameConnection(stream),
        identity,
        words=parsed.words,
        known_peers=known_peers,
        config=config,
    )


async def join_known(
    host: str,
    port: int,
    identity: Identity,
    known_peers: KnownPeers,
    *,
    expect_name: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    config: ChannelConfig = DEFAULT_CONFIG,
    expect_key: PeerIdentity | None = None,
) -> SecureChannel:
    """Rematch a pinned host without a code (it must have pinned us too).

    With ``expect_key`` the host must be that very key (reconnecting to the
    opponent of a match), with ``expect_name`` one of the keys pinned under
    that name; otherwise any pinned key is accepted.
    """
    stream = await connect(host, port, connect_timeout)
    return await join_handshake(
        FrameConnection(stream),
        identity,
        words=None,
        known_peers=known_peers,
        expect_name=expect_name,
        config=config,
        expect_key=expect_key,
    )
