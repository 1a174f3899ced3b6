"""Reply codes: when the joiner cannot reach the host, the joiner becomes the reachable side.

The joiner listens on a port (mapped on its own router when it can) and shows
a reply code ``word-word-word@ADDR:PORT`` with *the host's own words*; the
host types it at its prompt and connects out to that address **from its own
listening port** (``dial_from``). At the same time the joiner connects from
its listening port to the host's address in the join code. When neither
router maps ports but both keep the local port on the way out and accept a
packet that matches a connection they saw leave (Linux's masquerade and most
home routers do), the two SYNs cross and make one TCP connection: a TCP
simultaneous open, no mapping needed.

Whatever TCP connection comes up first carries the ordinary handshake with the
roles unchanged: the host runs the host side with its code, the joiner the
joiner side with the words. So nothing about the security changes, and the
reply point, like the host's code, allows one failed code attempt and is then
spent (an attacker who finds the port gets one guess, not many).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Sequence
from typing import Final

from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.errors import (
    AuthenticationError,
    ConnectFailed,
    ListenFailed,
    PeerTimeout,
    TransportError,
)
from p2p66.net.eyeballs import parse_codes
from p2p66.net.handshake import join_handshake
from p2p66.net.identity import Identity, KnownPeers, PeerIdentity
from p2p66.net.joincode import JoinCode, JoinCodeError
from p2p66.net.streams import FrameConnection, TcpStream
from p2p66.net.tcp import REUSE_PORT, format_address, os_reason

PUNCH_TIMEOUT: Final = 20.0
PUNCH_PAUSE: Final = 0.5


def _reusable_socket(family: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if REUSE_PORT:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return sock


async def dial_from(
    local_port: int | None, host: str, port: int, timeout: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to ``host:port`` from our ``local_port`` (shared with our listener)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = _reusable_socket(family)
    where = format_address(host, port)
    try:
        if local_port:
            try:
                sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", local_port))
            except OSError:
                # The port cannot be shared here (no SO_REUSEPORT): dial from any port. A
                # mapped reply code still works; only the simultaneous open is lost.
                sock.close()
                sock = _reusable_socket(family)
        sock.setblocking(False)
        async with asyncio.timeout(timeout):
            await asyncio.get_running_loop().sock_connect(sock, (host, port))
    except TimeoutError:
        sock.close()
        raise PeerTimeout(f"connecting to {where} timed out after {timeout:g} s") from None
    except OSError as exc:
        sock.close()
        raise ConnectFailed(f"cannot reach {where}: {os_reason(exc)}") from None
    return await asyncio.open_connection(sock=sock)


def parse_reply_code(text: str, words: tuple[str, ...]) -> list[JoinCode]:
    """A reply code for *this* game (its words are our code's), one entry per address."""
    codes = parse_codes(text)
    if codes[0].words != words:
        raise JoinCodeError(
            "that reply code is for another game: its words are not the ones of your join code"
        )
    return codes


class ReplyPoint:
    """The joiner's side of a reply code: listens, punches, hands out the first channel."""

    def __init__(
        self,
        identity: Identity,
        words: tuple[str, ...],
        known_peers: KnownPeers | None,
        config: ChannelConfig,
    ) -> None:
        self.identity = identity
        self.words = words
        self.known_peers = known_peers
        self.config = config
        self.port = 0
        self.attempts: list[str] = []
        self._results: asyncio.Queue[SecureChannel | TransportError] = asyncio.Queue()
        self._spent = False
        self._servers: list[asyncio.Server] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._punches: set[asyncio.Task[None]] = set()
        self.punched = False
        self.came_by = ""
        """How the last channel came: ``incoming`` (the host dialled us) or a simultaneous open."""
        self.expect_key: PeerIdentity | None = None
        """Set by ``rearm``: reconnecting the match with this opponent (no code any more)."""

    @classmethod
    async def open(
        cls,
        identity: Identity,
        words: tuple[str, ...],
        *,
        port: int = 0,
        known_peers: KnownPeers | None = None,
        config: ChannelConfig = DEFAULT_CONFIG,
    ) -> ReplyPoint:
        point = cls(identity, words, known_peers, config)
        for host in ("0.0.0.0", "::"):  # one port for both families: IPv4 picks it
            try:
                server = await asyncio.start_server(
                    point._incoming,
                    host=host,
                    port=point.port or port,
                    reuse_address=True,
                    reuse_port=REUSE_PORT,
                )
            except OSError as exc:
                if host == "::" and point._servers:
                    continue  # no IPv6 here: IPv4 only
                await point.aclose()
                raise ListenFailed(f"cannot listen for a reply on port {port}: {exc}") from None
            point._servers.append(server)
            point.port = point.port or server.sockets[0].getsockname()[1]
        return point

    def code(self, address: str, port: int | None = None) -> JoinCode:
        return JoinCode(self.words, address, port or self.port)

    async def _incoming(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._handshake(reader, writer, "incoming")
        finally:
            self._tasks.discard(task)

    async def _handshake(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, how: str
    ) -> None:
        stream = TcpStream(reader, writer)
        if self._spent:
            stream.close()
            return
        self.attempts.append(f"{how} {stream.remote}")
        rejoining = self.expect_key is not None
        try:
            channel = await join_handshake(
                FrameConnection(stream),
                self.identity,
                words=None if rejoining else self.words,
                known_peers=self.known_peers,
                config=self.config,
                expect_key=self.expect_key,
            )
        except AuthenticationError as exc:
            if rejoining:
                stream.close()  # not the opponent: no code to guess, keep waiting
                return
            self._spent = True  # one guess, as at the host
            self._results.put_nowait(exc)
            return
        except TransportError:
            stream.close()  # not our host (or a dropped line): keep waiting
            return
        if self._spent:
            channel.close("another connection was quicker")
            return
        self._spent = True
        self.came_by = how
        self._results.put_nowait(channel)

    def punch(self, host: str, port: int) -> None:
        """Keep connecting from our port to the host's (a simultaneous open) until closed."""
        task = asyncio.create_task(self._punch(host, port))
        self._tasks.add(task)
        self._punches.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._punches.discard)

    def rearm(self, opponent: PeerIdentity, punch: Sequence[tuple[str, int]] = ()) -> None:
        """Take one more connection: the match's opponent reconnecting (see ``redial``).

        From now on only ``opponent``'s key is accepted, with the known-peer
        handshake (the join code was used up by the first connection), and
        the host's addresses in ``punch`` are dialled again from our port.
        """
        for task in self._punches:
            task.cancel()
        while not self._results.empty():
            item = self._results.get_nowait()
            if isinstance(item, SecureChannel):
                item.close("a stale connection")
        self.expect_key = opponent
        self._spent = False
        for host, port in punch:
            self.punch(host, port)

    async def rejoin(
        self, opponent: PeerIdentity, punch: Sequence[tuple[str, int]] = ()
    ) -> SecureChannel:
        """``rearm``, then the opponent's channel (however long it takes: the caller limits)."""
        self.rearm(opponent, punch)
        return await self.accept(None)

    async def _punch(self, host: str, port: int) -> None:
        while not self._spent:
            try:
                reader, writer = await dial_from(self.port, host, port, PUNCH_TIMEOUT)
            except TransportError:
                await asyncio.sleep(PUNCH_PAUSE)
                continue
            self.punched = True
            await self._handshake(reader, writer, "simultaneous open with")
            await asyncio.sleep(PUNCH_PAUSE)  # that one was not it (a dropped line): again

    async def accept(self, timeout: float | None) -> SecureChannel:
        """The first authenticated channel, however it came (``PeerTimeout`` after ``timeout``)."""
        try:
            async with asyncio.timeout(timeout):
                item = await self._results.get()
        except TimeoutError:
            raise PeerTimeout(f"the host did not connect within {timeout:g} s") from None
        if isinstance(item, TransportError):
            raise item
        return item

    async def aclose(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for server in self._servers:
            await server.wait_closed()
