"""Codes with several addresses, and joining them happy-eyeballs style (RFC 8305, simplified).

A host that is reachable more than one way prints one code that lists them,
IPv6 first: ``fox-lamp-river@[2001:db8:a::2]:6666,198.51.100.1:6666``. The
joiner starts a TCP connection to each, IPv6 first and the next one
``STAGGER`` s later (or as soon as one fails), and runs the handshake on the
first connection that comes up; if that one turns out not to be our host (it
drops or breaks the protocol), the next connected one is tried. A wrong code
ends it at once: the host allows one attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Final

from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.errors import AuthenticationError, ConnectFailed, PeerTimeout, TransportError
from p2p66.net.handshake import join_handshake
from p2p66.net.identity import Identity, KnownPeers, PeerIdentity
from p2p66.net.joincode import JoinCode, JoinCodeError, parse_join_code
from p2p66.net.streams import FrameConnection, TcpStream
from p2p66.net.tcp import CONNECT_TIMEOUT, connect

STAGGER: Final = 0.25
MAX_ADDRESSES: Final = 8


def parse_codes(text: str) -> list[JoinCode]:
    """``words@ADDR[,ADDR...]`` as one ``JoinCode`` per address, IPv6 ones first."""
    secret, at, addresses = text.strip().rpartition("@")
    if not at:
        return [parse_join_code(text)]
    parts = [part.strip() for part in addresses.split(",")]
    if len(parts) > MAX_ADDRESSES:
        raise JoinCodeError(f"a join code lists at most {MAX_ADDRESSES} addresses")
    if "" in parts:
        raise JoinCodeError(f"an empty address between commas in {addresses!r}")
    codes = [parse_join_code(f"{secret}@{part}") for part in parts]
    return sorted(codes, key=lambda code: ":" not in code.host)


def format_codes(codes: Sequence[JoinCode]) -> str:
    """The inverse of ``parse_codes`` (all codes share the first one's words)."""
    ordered = sorted(codes, key=lambda code: ":" not in code.host)
    return f"{ordered[0].secret}@{','.join(code.address for code in ordered)}"


async def join_first(
    codes: Sequence[JoinCode],
    identity: Identity,
    *,
    known_peers: KnownPeers | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    config: ChannelConfig = DEFAULT_CONFIG,
    expect_key: PeerIdentity | None = None,
) -> SecureChannel:
    """Connect to every address side by side; the first connection that authenticates wins.

    With ``expect_key``: the known-peer handshake with that host (reconnecting
    a match; the code's words were used up by its first connection).
    """

    async def handshake(stream: TcpStream, code: JoinCode) -> SecureChannel:
        return await join_handshake(
            FrameConnection(stream),
            identity,
            words=None if expect_key is not None else code.words,
            known_peers=known_peers,
            config=config,
            expect_key=expect_key,
        )

    if len(codes) == 1:
        code = codes[0]
        return await handshake(await connect(code.host, code.port, connect_timeout), code)
    connected: asyncio.Queue[tuple[TcpStream, JoinCode] | TransportError] = asyncio.Queue()
    failed_one = asyncio.Event()

    async def attempt(index: int, code: JoinCode) -> None:
        if index:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STAGGER * index):
                    await failed_one.wait()  # a failure starts the next one at once
        try:
            stream = await connect(code.host, code.port, connect_timeout)
        except TransportError as exc:
            failed_one.set()
            connected.put_nowait(exc)
            return
        connected.put_nowait((stream, code))

    tasks = [asyncio.create_task(attempt(i, code)) for i, code in enumerate(codes)]
    errors: list[TransportError] = []
    try:
        for _ in codes:
            item = await connected.get()
            if isinstance(item, TransportError):
                errors.append(item)
                continue
            stream, code = item
            try:
                return await handshake(stream, code)
            except AuthenticationError:
                raise
            except TransportError as exc:
                errors.append(exc)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        while not connected.empty():
            left = connected.get_nowait()
            if not isinstance(left, TransportError):
                left[0].close()
    why = "; ".join(str(exc) for exc in errors)
    if errors and all(isinstance(exc, PeerTimeout) for exc in errors):
        raise PeerTimeout(why)  # every address silent (a router that drops, not refuses)
    raise ConnectFailed(why)
