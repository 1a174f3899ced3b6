"""TCP hosting and joining: the only module here that opens sockets.

``host`` / ``Listener`` listen (IPv4 and IPv6; port 0 picks a free port, and
``Listener.addresses`` reports what was bound), run the handshake with each
incoming connection and hand out authenticated ``SecureChannel``s. ``join``
connects with a join code, ``join_known`` reconnects to a pinned peer without
one. Every wait has a timeout, and socket failures become ``ConnectFailed``,
``ListenFailed`` or ``PeerTimeout`` with the address in the message.
"""

from __future__ import annotations

import asyncio
import errno
import random
import socket
from collections.abc import Callable
from typing import Final

from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.errors import (
    ConnectFailed,
    ListenFailed,
    LocalTransportError,
    PeerTimeout,
    TransportError,
)
from p2p66.net.handshake import Attempt, CodeSlot, host_handshake, join_handshake
from p2p66.net.identity import Identity, KnownPeers
from p2p66.net.joincode import DEFAULT_PORT, JoinCode, generate_words, parse_join_code
from p2p66.net.streams import FrameConnection, TcpStream

CONNECT_TIMEOUT: Final = 10.0
MAX_PENDING_HANDSHAKES: Final = 8
MAX_REJECTS_KEPT: Final = 32

REUSE_PORT: Final = hasattr(socket, "SO_REUSEPORT")

RejectHandler = Callable[[str, TransportError], None]


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
        self._server: asyncio.Server | None = None
        self._bind: str | None = None

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
            if port and REUSE_PORT:
                _check_port_free(bind, port)
            listener._server = await asyncio.start_server(
                listener._handle,
                host=bind,
                port=port,
                reuse_address=True,
                reuse_port=REUSE_PORT,  # lets reply.dial_from connect out from this port
            )
        except OSError as exc:
            where = format_address(bind or "*", port)
            raise ListenFailed(f"cannot listen on {where}: {exc.strerror or exc}") from None
        return listener

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """Every ``(address, port)`` actually bound."""
        if self._server is None:
            return []
        return [sock.getsockname()[:2] for sock in self._server.sockets]

    @property
    def port(self) -> int:
        """The bound port (useful after asking for port 0)."""
        return self.addresses[0][1]

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
            raise PeerTimeout(f"nobody joined within {timeout:g} s") from None
        if isinstance(item, TransportError):
            raise item
        return item

    def close(self) -> None:
        """Stop listening, abandon handshakes in progress, close channels not accepted."""
        if self._server is not None:
            self._server.close()
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
        if self._server is not None:
            await self._server.wait_closed()

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
        if len(self._handlers) >= MAX_PENDING_HANDSHAKES:
            stream.close()
            self._reject(stream.remote, PeerTimeout("too many handshakes at once; dropped"))
            return
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        attempt = Attempt(stream.remote)
        try:
            channel = await host_handshake(
                FrameConnection(stream),
                self.identity,
                slot=self._slot,
                known_peers=self.known_peers,
                allow_known=self.allow_known,
                config=self.config,
                attempt=attempt,
            )
        except TransportError as exc:
            if attempt.used_code:
                self._results.put_nowait(exc)
            else:
                self._reject(stream.remote, exc)
            return
        finally:
            self._handlers.discard(task)
        self._results.put_nowait(channel)

    def _reject(self, remote: str, exc: TransportError) -> None:
        self.rejected.append((remote, exc))
        del self.rejected[:-MAX_REJECTS_KEPT]
        if self._on_reject is not None:
            self._on_reject(remote, exc)


def _check_port_free(bind: str | None, port: int) -> None:
    """Raise ``OSError`` if something already listens on ``port``.

    Our listener sets SO_REUSEPORT (so ``reply.dial_from`` can connect out from
    its port), which would also let a second host share the port unnoticed; a
    plain bind first keeps "the port is taken" an error.
    """
    hosts = [bind] if bind else ["0.0.0.0", "::"]
    for address in hosts:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        try:
            probe = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue  # no IPv6 here
        with probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind((address, port))
            except OSError as exc:
                if family == socket.AF_INET6 and not bind and exc.errno == errno.EADDRNOTAVAIL:
                    continue
                raise


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
        raise ConnectFailed(f"cannot reach {where}: {exc.strerror or exc}") from None
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
) -> SecureChannel:
    """Rematch a pinned host without a code (it must have pinned us too).

    With ``expect_name`` the host must hold the key pinned for that name;
    otherwise any pinned key is accepted.
    """
    stream = await connect(host, port, connect_timeout)
    return await join_handshake(
        FrameConnection(stream),
        identity,
        words=None,
        known_peers=known_peers,
        expect_name=expect_name,
        config=config,
    )
