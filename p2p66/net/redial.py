"""The host's side of a reply code: dial the joiner from our own port, first, and again.

A match that began with a reply code (the host connected out to the joiner,
or the two met in a TCP simultaneous open) cannot be reconnected the usual
way, the joiner dialling the host: the host is the side nobody can reach.
So after a dropped link the roles of the first connection are repeated:

- the host keeps dialling the reply code's addresses from its listening
  port (``redial``), which reaches a joiner listening on a mapped port, and
  is the host's half of a simultaneous open; its listener accepts too, for a
  joiner who reaches it after all;
- the joiner listens again on its reply port and dials the host's addresses
  from it (``ReplyPoint.rearm``).

The connection that comes up carries the known-peer handshake with the roles
unchanged (the host runs the host's side), and only the match's opponent may
resume it: the same identities and resume checks as for any reconnection.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Final

from p2p66.net.channel import SecureChannel
from p2p66.net.errors import ConnectFailed, TransportError
from p2p66.net.eyeballs import STAGGER
from p2p66.net.joincode import JoinCode
from p2p66.net.reply import dial_from
from p2p66.net.tcp import Listener

REPLY_DIAL_TIMEOUT: Final = 20.0
REDIAL_PAUSE: Final = 1.0
"""Seconds between rounds of redialling a joiner who is not back yet."""


Target = tuple[str, int]
"""An address to dial: host and port."""


def targets(codes: Sequence[JoinCode]) -> tuple[Target, ...]:
    return tuple((code.host, code.port) for code in codes)


async def dial_first(
    local_port: int, codes: Sequence[Target], timeout: float = REPLY_DIAL_TIMEOUT
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Dial every address from ``local_port``, staggered; the first TCP connection wins."""
    won: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
    won = asyncio.get_running_loop().create_future()
    errors: list[str] = []

    async def one(index: int, code: Target) -> None:
        await asyncio.sleep(STAGGER * index)
        try:
            pair = await dial_from(local_port, *code, timeout)
        except TransportError as exc:
            errors.append(str(exc))
            if len(errors) == len(codes) and not won.done():
                won.set_exception(ConnectFailed("; ".join(errors)))
            return
        if won.done():
            pair[1].close()
        else:
            won.set_result(pair)

    tasks = [asyncio.create_task(one(i, code)) for i, code in enumerate(codes)]
    try:
        return await won
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def redial(listener: Listener, codes: Sequence[Target]) -> None:
    """Dial the joiner from the listener's port until cancelled; every connection that
    comes up gets the host's handshake (its channel arrives at ``listener.accept``)."""
    me = asyncio.current_task()
    while True:
        try:
            reader, writer = await dial_first(listener.port, codes)
        except TransportError:
            pass  # not back yet (or its router forgot us): the next round
        else:
            await listener.adopt(reader, writer)
            if me is not None and me.cancelling():
                raise asyncio.CancelledError  # the handshake swallows it (a server task's way)
        await asyncio.sleep(REDIAL_PAUSE)


async def host_rejoin(listener: Listener, codes: Sequence[Target]) -> SecureChannel:
    """The next channel of the listener while the joiner's reply code is redialled."""
    if not codes:
        return await listener.accept()
    dialling = asyncio.create_task(redial(listener, codes))
    try:
        return await listener.accept()
    finally:
        dialling.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await dialling
