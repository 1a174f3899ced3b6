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
from collections.abc import Callable, Mapping
from typing import Final, Protocol

from p2p66.live.star import RelayFault, Seats, StarHub, StarSpoke
from p2p66.net.errors import TransportError
from p2p66.net.identity import Identity
from p2p66.net.lobby import Table
from p2p66.session.errors import ProtocolError
from p2p66.session.headacks import HOST_SEAT
from p2p66.session.records import Record

RECEIPT_TIMEOUT: Final = 30.0


def seats_of(table: Table) -> Seats:
    """The star's ``Seats`` for a table the lobby seated: its table id and keys by seat."""
    return Seats(table.table_id, tuple(p.public_key for p in table.seating.seats))


def hub_for(table: Table, identity: Identity) -> HubLinks:
    """The host's relay over the channels of its seated ``table`` (enter with ``async with``)."""
    if table.seat != HOST_SEAT or table.seating.seats[0].public_key != identity.public_key:
        raise ValueError("only the host (seat 0) runs the hub, with its own identity")
    return HubLinks(StarHub(seats_of(table), identity.sign), table.channels)


def spoke_for(
    table: Table, identity: Identity, *, on_reply: Callable[[bytes], None] | None = None
) -> SpokeLink:
    """A joiner's (or bot's) relay end over its channel to the host (``async with``)."""
    if table.seating.seats[table.seat].public_key != identity.public_key:
        raise ValueError(f"seat {table.seat} is not this identity's")
    spoke = StarSpoke(seats_of(table), table.seat, identity.sign)
    return SpokeLink(spoke, table.channels[0], on_reply=on_reply)


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
    """The host's n-1 channels around one ``StarHub``; use as ``async with``.

    A background pump takes every joiner's messages as they come, checks and
    relays them (acknowledgements too, while the host's own session is busy)
    and queues the joiners' records for ``next_record``. One lock keeps what
    goes out on each channel in the hub's order.
    """

    def __init__(self, hub: StarHub, links: Mapping[int, Link]) -> None:
        if set(links) != set(hub.seats.joiners):
            raise ValueError("the hub needs one channel per joiner seat")
        self.hub = hub
        self.links = dict(links)
        self._inbox: asyncio.Queue[tuple[int, bytes | TransportError]] = asyncio.Queue()
        self._records: asyncio.Queue[Record | Exception] = asyncio.Queue()
        self._lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self.lost: set[int] = set()
        """Joiners whose channel ended: nothing more is sent to them (the others may still
        be told, e.g. the host's claim that one of them abandoned the match)."""

    async def __aenter__(self) -> HubLinks:
        for seat, link in self.links.items():
            self._tasks.append(asyncio.create_task(self._read(seat, link)))
        self._tasks.append(asyncio.create_task(self._pump()))
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
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

    async def _pump(self) -> None:
        while True:
            seat, item = await self._inbox.get()
            try:
                if isinstance(item, TransportError):
                    self.lost.add(seat)
                    raise SeatLost(seat, item)
                async with self._lock:
                    record, outgoing = self.hub.receive(seat, item)
                    if record is not None:  # kept in the chain: ours even if a link fails now
                        self._records.put_nowait(record)
                    await self._send(outgoing)
            except (SeatLost, ProtocolError) as exc:
                self._records.put_nowait(exc)
                return

    async def _send(self, outgoing: list[tuple[int, bytes]]) -> None:
        failed: SeatLost | None = None
        for seat, data in outgoing:  # every other seat gets it even if one link failed
            if seat in self.lost:
                continue
            try:
                await self.links[seat].send(data)
            except TransportError as exc:
                self.lost.add(seat)
                failed = failed or SeatLost(seat, exc)
        if failed is not None:
            raise failed

    async def settle(self) -> None:
        """Wait until what the pump is passing on has been sent (before closing the links)."""
        async with self._lock:
            pass

    async def drained(self, timeout: float) -> bool:
        """Wait until every joiner still linked has acknowledged every record the hub kept
        (so the match's last record reached everybody before the links close); False if
        ``timeout`` seconds pass first or the pump has stopped on a fault."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            last = self.hub.chain.next_seq - 1
            waiting = [s for s, pos in self.hub.acked.items() if s not in self.lost and pos < last]
            if not waiting:
                return True
            if self._tasks and self._tasks[-1].done():
                return False
            await asyncio.sleep(0.02)
        return False

    async def send_own(self, record: Record) -> bool:
        """Our own record, to every joiner with its receipt; False if it crossed a joiner's
        record that the pump had already passed on (then it is void: see ``StarHub.own``)."""
        async with self._lock:
            outgoing = self.hub.own(record)
            await self._send(outgoing)
        return bool(outgoing)

    async def next_record(self, timeout: float | None = None) -> Record:
        """The next joiner record, already checked and passed on to the others.

        Raises the first fault the pump met (``SeatFault``, ``CheatingDetected``
        naming a joiner, or ``SeatLost``), then again on every later call.
        """
        async with asyncio.timeout(timeout):
            item = await self._records.get()
        if isinstance(item, Exception):
            self._records.put_nowait(item)
            raise item
        return item


class SpokeLink:
    """A joiner's channel to the host around one ``StarSpoke``; use as ``async with``.

    A background pump checks every message as it comes and answers it (so
    relayed acknowledgements never pile up unread while the session thinks);
    records of the other seats wait in order for ``next_record``.
    """

    def __init__(
        self,
        spoke: StarSpoke,
        link: Link,
        *,
        receipt_timeout: float = RECEIPT_TIMEOUT,
        on_reply: Callable[[bytes], None] | None = None,
    ) -> None:
        self.spoke = spoke
        self.on_reply = on_reply
        """Called with each acknowledgement we sign, before it is sent (it carries the
        host's receipt: ``p2p66.live.receiptlog`` keeps those in ``<replay>.receipts``)."""
        self.link = link
        self.receipt_timeout = receipt_timeout
        self._sent_at: dict[int, float] = {}
        self._records: asyncio.Queue[Record | Exception] = asyncio.Queue()
        self._heard = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> SpokeLink:
        self._task = asyncio.create_task(self._pump())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _pump(self) -> None:
        while True:
            try:
                delivery = self.spoke.receive(await self.link.recv())
                if delivery.record is not None:  # checked: ours even if the ack cannot go
                    self._records.put_nowait(delivery.record)
                if delivery.reply is not None:
                    if self.on_reply is not None:
                        self.on_reply(delivery.reply)
                    await self.link.send(delivery.reply)
            except (TransportError, ProtocolError) as exc:
                self._records.put_nowait(exc)
                return
            finally:
                self._heard.set()

    async def send_own(self, record: Record) -> None:
        data = self.spoke.own(record)
        self._sent_at[record.seq] = asyncio.get_running_loop().time()
        await self.link.send(data)

    def _receipt_deadline(self) -> float | None:
        pending = self.spoke.waiting_for_receipt()
        for seq in [s for s in self._sent_at if pending is None or s < pending.seq]:
            del self._sent_at[seq]
        return None if pending is None else self._sent_at[pending.seq] + self.receipt_timeout

    async def next_record(self, timeout: float | None = None) -> Record:
        """The next record of another seat, after every check of ``StarSpoke``.

        Raises the first fault (``RelayFault``, ``ForkProven``, the channel's
        ``TransportError``) on this and every later call, and
        ``RelayFault(kind="withheld")`` if one of our records stays without
        the host's receipt for ``receipt_timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        while self._records.empty():
            deadline = self._receipt_deadline()
            if deadline is not None and loop.time() >= deadline:
                pending = self.spoke.waiting_for_receipt()
                assert pending is not None
                fault = RelayFault(
                    f"it has not receipted our record {pending.seq} within "
                    f"{self.receipt_timeout:g} s (withheld, or the link is stuck)",
                    kind="withheld",
                )
                self._records.put_nowait(fault)
                break
            wake = min((t for t in (end, deadline) if t is not None), default=None)
            self._heard.clear()
            try:
                async with asyncio.timeout_at(wake):
                    await self._heard.wait()
            except TimeoutError:
                if end is not None and loop.time() >= end:
                    raise
        item = self._records.get_nowait()
        if isinstance(item, Exception):
            self._records.put_nowait(item)
            raise item
        return item
