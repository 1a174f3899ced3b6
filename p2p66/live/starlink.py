"""The star relay over channels: ``HubLinks`` (host, n-1 channels) and ``SpokeLink`` (joiner).

Thin asyncio drivers around ``StarHub`` / ``StarSpoke``: they move bytes
between the channels and the sans-IO cores and hand the session its records
in chain order. A joiner's channel that ends is reported as ``SeatLost``
naming the seat, so the session can wait for a reconnection or claim the
seat abandoned; the host's records that a joiner never receipts within
``receipt_timeout`` are ``RelayFault(kind="withheld")`` on that joiner's side.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Final, Protocol

from p2p66.live.star import RelayFault, StarHub, StarSpoke
from p2p66.net.errors import TransportError
from p2p66.session.records import Record

RECEIPT_TIMEOUT: Final = 30.0


class Link(Protocol):
    """What the relay needs of a channel (``SecureChannel`` has it)."""

    async def send(self, data: bytes) -> None: ...

    async def recv(self) -> bytes: ...


class SeatLost(Exception):
    """The channel of ``seat`` ended (``reason``); the relay cannot reach that joiner."""

    def __init__(self, seat: int, reason: TransportError) -> None:
        super().__init__(f"seat {seat}'s connection ended: {reason}")
        self.seat = seat
        self.reason = reason


class HubLinks:
    """The host's n-1 channels around one ``StarHub``; use as ``async with``."""

    def __init__(self, hub: StarHub, links: Mapping[int, Link]) -> None:
        if set(links) != set(hub.seats.joiners):
            raise ValueError("the hub needs one channel per joiner seat")
        self.hub = hub
        self.links = dict(links)
        self._inbox: asyncio.Queue[tuple[int, bytes | TransportError]] = asyncio.Queue()
        self._readers: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> HubLinks:
        for seat, link in self.links.items():
            self._readers.append(asyncio.create_task(self._read(seat, link)))
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for task in self._readers:
            task.cancel()
        for task in self._readers:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _read(self, seat: int, link: Link) -> None:
        while True:
            try:
                data = await link.recv()
            except TransportError as exc:
                self._inbox.put_nowait((seat, exc))
                return
            self._inbox.put_nowait((seat, data))

    async def _send(self, outgoing: list[tuple[int, bytes]]) -> None:
        for seat, data in outgoing:
            try:
                await self.links[seat].send(data)
            except TransportError as exc:
                raise SeatLost(seat, exc) from None

    async def send_own(self, record: Record) -> None:
        """Our own record, to every joiner with its receipt."""
        await self._send(self.hub.own(record))

    async def next_record(self, timeout: float | None = None) -> Record:
        """The next joiner record, checked and passed on to the others (acks relayed meanwhile)."""
        async with asyncio.timeout(timeout):
            while True:
                seat, item = await self._inbox.get()
                if isinstance(item, TransportError):
                    raise SeatLost(seat, item)
                record, outgoing = self.hub.receive(seat, item)
                await self._send(outgoing)
                if record is not None:
                    return record


class SpokeLink:
    """A joiner's channel to the host around one ``StarSpoke``."""

    def __init__(
        self, spoke: StarSpoke, link: Link, *, receipt_timeout: float = RECEIPT_TIMEOUT
    ) -> None:
        self.spoke = spoke
        self.link = link
        self.receipt_timeout = receipt_timeout
        self._sent_at: dict[int, float] = {}

    async def send_own(self, record: Record) -> None:
        data = self.spoke.own(record)
        self._sent_at[record.seq] = asyncio.get_running_loop().time()
        await self.link.send(data)

    async def next_record(self, timeout: float | None = None) -> Record:
        """The next record of another seat, after every check of ``StarSpoke``.

        Raises ``RelayFault(kind="withheld")`` if one of our records stays
        without the host's receipt for ``receipt_timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        while True:
            waits = [] if end is None else [end - loop.time()]
            pending = self.spoke.waiting_for_receipt()
            if pending is not None:
                waits.append(self._sent_at[pending.seq] + self.receipt_timeout - loop.time())
            try:
                async with asyncio.timeout(min(waits) if waits else None):
                    data = await self.link.recv()
            except TimeoutError:
                pending = self.spoke.waiting_for_receipt()
                if end is not None and loop.time() >= end:
                    raise
                if pending is None:
                    continue
                raise RelayFault(
                    f"it has not receipted our record {pending.seq} within "
                    f"{self.receipt_timeout:g} s (withheld, or the link is stuck)",
                    kind="withheld",
                ) from None
            delivery = self.spoke.receive(data)
            if delivery.reply is not None:
                await self.link.send(delivery.reply)
            if delivery.record is not None:
                return delivery.record
