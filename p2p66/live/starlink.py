"""The star relay over channels: ``HubLinks`` (host, n-1 channels) and ``SpokeLink`` (joiner).

Thin asyncio drivers around ``StarHub`` / ``StarSpoke``: they move bytes
between the channels and the sans-IO cores and hand the session its records
in chain order; the host's records that a joiner never receipts within
``receipt_timeout`` are ``RelayFault(kind="withheld")`` on that joiner's side.

A dropped link is not the end. The host tells the other seats "seat k
reconnecting" (``LinkNotice``), goes on relaying whatever the others can
still play, and takes seat k back when the same identity reconnects
(``HubLinks.rejoin``: a channel from its listener, checked and caught up by
``StarHub.catch_up``); anyone else, or a second channel for a seat still
linked, is sent away with the reason. Only after ``grace`` seconds is the
seat *gone*, and only when the session waits on a record that seat owes
does ``next_record`` raise ``SeatLost`` (the host then signs its claim of
abandonment). A joiner whose link to the host drops redials it (``redial``)
for ``grace`` seconds and resynchronises (``StarSpoke.resume_request``);
after that the host's silence is the channel's ``TransportError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Final, Protocol

from p2p66.live.star import Displaced, RelayFault, SeatFault, Seats, StarHub, StarSpoke
from p2p66.live.starwire import LinkNotice
from p2p66.net.channel import SecureChannel
from p2p66.net.errors import ConnectionLost, TransportError
from p2p66.net.identity import Identity
from p2p66.net.lobby import Table
from p2p66.session.errors import ProtocolError
from p2p66.session.headacks import HOST_SEAT
from p2p66.session.records import Record

RECEIPT_TIMEOUT: Final = 30.0
GRACE: Final = 60.0
"""Seconds a dropped seat has to come back (the two-player game's default too)."""
RESYNC_TIMEOUT: Final = 30.0
"""Seconds a reconnected side may take for its half of the resynchronisation."""
REDIAL_PAUSE: Final = 0.5
Notify = Callable[[int, str], None]
"""Told ``(seat, state)`` of a link: ``reconnecting``, ``back`` or ``gone`` (past the grace)."""
Redial = Callable[[], Awaitable["Link"]]
Rejoins = Callable[[], Awaitable[SecureChannel]]


def seats_of(table: Table) -> Seats:
    """The star's ``Seats`` for a table the lobby seated: its table id and keys by seat."""
    return Seats(table.table_id, tuple(p.public_key for p in table.seating.seats))


def hub_for(
    table: Table,
    identity: Identity,
    *,
    grace: float = 0.0,
    rejoins: Rejoins | None = None,
    on_notice: Notify | None = None,
    hub: StarHub | None = None,
) -> HubLinks:
    """The host's relay over the channels of its seated ``table`` (enter with ``async with``);
    with ``rejoins`` (its listener's next channel) a dropped seat may come back in ``grace``.
    ``hub``: one made ahead (journalled, or restored after a restart)."""
    if table.seat != HOST_SEAT or table.seating.seats[0].public_key != identity.public_key:
        raise ValueError("only the host (seat 0) runs the hub, with its own identity")
    if hub is None:
        hub = StarHub(seats_of(table), identity.sign)
    return HubLinks(hub, table.channels, grace=grace, rejoins=rejoins, on_notice=on_notice)


def spoke_for(
    table: Table,
    identity: Identity,
    *,
    grace: float = 0.0,
    redial: Redial | None = None,
    on_notice: Notify | None = None,
    on_reply: Callable[[bytes], None] | None = None,
) -> SpokeLink:
    """A joiner's (or bot's) relay end over its channel to the host (``async with``); with
    ``redial`` a dropped link is dialled again for ``grace`` seconds."""
    if table.seating.seats[table.seat].public_key != identity.public_key:
        raise ValueError(f"seat {table.seat} is not this identity's")
    spoke = StarSpoke(seats_of(table), table.seat, identity.sign)
    return SpokeLink(
        spoke,
        table.channels[0],
        grace=grace,
        redial=redial,
        on_notice=on_notice,
        on_reply=on_reply,
    )


class Link(Protocol):
    """What the relay needs of a channel (``SecureChannel`` has it)."""

    async def send(self, data: bytes) -> None: ...

    async def recv(self) -> bytes: ...


class SeatLost(Exception):
    """The channel of ``seat`` ended (``reason``) and it did not come back within the grace
    period (``grace`` seconds), while the match waits on it."""

    def __init__(self, seat: int, reason: TransportError, grace: float = 0.0) -> None:
        within = f"; it did not come back within {grace:g} s" if grace > 0 else ""
        super().__init__(f"seat {seat}'s connection ended: {reason}{within}")
        self.seat = seat
        self.reason = reason
        self.grace = grace


class HubLinks:
    """The host's n-1 channels around one ``StarHub``; use as ``async with``.

    A background pump takes every joiner's messages as they come, checks and
    relays them (acknowledgements too, while the host's own session is busy)
    and queues the joiners' records for ``next_record``. One lock keeps what
    goes out on each channel in the hub's order; a reconnection is caught up
    under it too, so it sees the chain exactly at one point.
    """

    def __init__(
        self,
        hub: StarHub,
        links: Mapping[int, Link],
        *,
        grace: float = 0.0,
        rejoins: Rejoins | None = None,
        on_notice: Notify | None = None,
    ) -> None:
        if set(links) != set(hub.seats.joiners):
            raise ValueError("the hub needs one channel per joiner seat")
        self.hub = hub
        self.links = dict(links)
        self.grace = grace if rejoins is not None else 0.0
        self._rejoins = rejoins
        self._notify = on_notice or (lambda seat, state: None)
        self._inbox: asyncio.Queue[tuple[int, Link, bytes | TransportError]] = asyncio.Queue()
        self._records: asyncio.Queue[Record | Exception] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._pump_task: asyncio.Task[None] | None = None
        self.lost: dict[int, TransportError] = {}
        """Joiners whose channel ended and who are not back: nothing is sent to them (the
        others may still be told, e.g. the host's claim that one of them abandoned)."""
        self.gone: set[int] = set()
        """Lost seats past the grace period: a record they owe ends the match."""
        self.given_up: set[int] = set()
        """Gone seats the session was told of (``SeatLost``): they may not come back."""
        self._losses: dict[int, int] = dict.fromkeys(hub.seats.joiners, 0)
        self._finished = False
        self.kept_at: dict[int, float] = {}
        """When (``time.monotonic``) the hub kept each chain position: how long a joiner's
        acknowledgement of it has been owed (``live.linkstate``)."""

    async def __aenter__(self) -> HubLinks:
        for seat, link in self.links.items():
            self._tasks.append(asyncio.create_task(self._read(seat, link)))
        self._pump_task = asyncio.create_task(self._pump())
        self._tasks.append(self._pump_task)
        if self._rejoins is not None:
            self._tasks.append(asyncio.create_task(self._take_rejoins(self._rejoins)))
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
                self._inbox.put_nowait((seat, link, exc))
                return
            self._inbox.put_nowait((seat, link, data))

    def _put(self, item: Record | Exception) -> None:
        self._records.put_nowait(item)
        self._wake.set()

    async def _pump(self) -> None:
        while True:
            seat, link, item = await self._inbox.get()
            if link is not self.links[seat]:
                continue  # from a channel the seat has since replaced by a reconnection
            try:
                async with self._lock:
                    if isinstance(item, TransportError):
                        await self._lose({seat: item})
                        continue
                    record, outgoing = self.hub.receive(seat, item)
                    if record is not None:  # kept in the chain: ours even if a link fails now
                        self.kept_at[record.seq] = time.monotonic()
                        self._put(record)
                    await self._send(outgoing)
            except ProtocolError as exc:
                self._put(exc)
                return

    async def _send(self, outgoing: list[tuple[int, bytes]]) -> None:
        """Send under the lock; a seat whose link fails is lost, the others still get theirs."""
        failed: dict[int, TransportError] = {}
        for seat, data in outgoing:
            if seat in self.lost or seat in failed:
                continue
            try:
                await self.links[seat].send(data)
            except TransportError as exc:
                failed[seat] = exc
        if failed:
            await self._lose(failed)

    def finish(self) -> None:
        """The match is over: a link that ends from now on is a goodbye (nobody is told, nor
        waited for); a seat already reconnecting is still waited for by ``drained``."""
        self._finished = True

    async def _lose(self, failed: dict[int, TransportError]) -> None:
        """Seats whose link ended: tell the others they are reconnecting, start their grace."""
        for seat, exc in failed.items():
            if seat in self.lost:
                continue
            if self._finished:
                self.lost[seat] = exc
                self.gone.add(seat)
                continue
            self.lost[seat] = exc
            self._losses[seat] += 1
            self._notify(seat, "reconnecting")
            if self.grace > 0:
                loss = self._losses[seat]
                self._tasks.append(asyncio.create_task(self._expire(seat, loss)))
            else:
                self._go(seat)
        for seat in failed if not self._finished else ():
            notice = LinkNotice(seat, "reconnecting").encode()
            await self._send([(other, notice) for other in self.hub.seats.joiners if other != seat])

    async def _expire(self, seat: int, loss: int) -> None:
        await asyncio.sleep(self.grace)
        if seat in self.lost and self._losses[seat] == loss:
            self._go(seat)

    def _go(self, seat: int) -> None:
        self.gone.add(seat)
        self._notify(seat, "gone")
        self._wake.set()

    async def _take_rejoins(self, rejoins: Rejoins) -> None:
        while True:
            try:
                channel = await rejoins()
            except TransportError:
                continue  # a failed attempt at the listener: it is not a seat of ours
            self._tasks.append(asyncio.create_task(self._rejoin_quietly(channel)))

    async def _rejoin_quietly(self, channel: SecureChannel) -> None:
        with contextlib.suppress(TransportError):
            await self.rejoin(channel)

    async def rejoin(self, channel: SecureChannel, timeout: float = RESYNC_TIMEOUT) -> int | None:
        """Take a reconnected joiner back at its seat; its seat, or None if refused.

        Only the identity seated there may come back, and only while its seat
        is lost; anyone else is sent away with the reason (the channel closed).
        """
        key = channel.peer.public_key
        keys = self.hub.seats.keys
        seat = next((s for s in self.hub.seats.joiners if keys[s] == key), None)
        who = f"{channel.peer.name} ({channel.peer.fingerprint})"
        if seat is None:
            channel.close(f"{who} does not sit at this table; refused")
            return None
        if seat not in self.lost:
            channel.close(f"seat {seat} is still linked: a second connection for it is refused")
            return None
        if seat in self.given_up:
            channel.close(
                f"seat {seat} did not come back within {self.grace:g} s: the match ends as "
                "abandoned by it"
            )
            return None
        try:
            async with asyncio.timeout(timeout):
                first = await channel.recv()
        except (TransportError, TimeoutError):
            channel.close(f"seat {seat} did not resynchronise within {timeout:g} s")
            return None
        async with self._lock:
            if seat not in self.lost or seat in self.given_up:
                channel.close(f"seat {seat} may not take its seat back now; refused")
                return None
            try:
                messages = self.hub.catch_up(seat, first)
            except SeatFault as exc:
                channel.close(str(exc)[:200])
                return None
            # and which other seats are away now: it missed those notices
            messages += [LinkNotice(s, "reconnecting").encode() for s in self.lost if s != seat]
            try:
                for data in messages:
                    await channel.send(data)
            except TransportError:
                return None
            self.links[seat] = channel
            del self.lost[seat]
            self.gone.discard(seat)
            self._tasks.append(asyncio.create_task(self._read(seat, channel)))
            self._notify(seat, "back")
            notice = LinkNotice(seat, "back").encode()
            await self._send([(other, notice) for other in self.hub.seats.joiners if other != seat])
        return seat

    async def settle(self) -> None:
        """Wait until what the pump is passing on has been sent (before closing the links)."""
        async with self._lock:
            pass

    async def drained(self, timeout: float) -> bool:
        """Wait until every joiner not gone has acknowledged every record the hub kept (so
        the match's last record reached everybody before the links close: a seat that is
        reconnecting is waited for, up to its grace); False if ``timeout`` seconds (plus
        the grace, while a seat is reconnecting) pass first or the pump stopped on a fault."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout + (self.grace if self.lost else 0.0)
        while loop.time() < deadline:
            last = self.hub.chain.next_seq - 1
            waiting = [s for s, pos in self.hub.acked.items() if s not in self.gone and pos < last]
            if not waiting:
                return True
            if self._pump_task is not None and self._pump_task.done():
                return False
            await asyncio.sleep(0.02)
        return False

    def ready(self) -> bool:
        """A joiner record (or the pump's fault) waits: ``next_record`` returns at once."""
        return not self._records.empty()

    async def placed(self, record: Record) -> bool:
        """Our own record is in the chain once ``send_own`` said so: the hub orders it."""
        return True

    async def until_ready(self) -> None:
        """Until ``ready``: while it is the host's turn, only a record out of turn (a
        resignation) or the pump's fault can come."""
        while not self.ready():
            self._wake.clear()
            await self._wake.wait()

    async def send_own(self, record: Record) -> bool:
        """Our own record, to every joiner with its receipt; False if it crossed a joiner's
        record that the pump had already passed on (then it is void: see ``StarHub.own``)."""
        async with self._lock:
            outgoing = self.hub.own(record)
            if outgoing:
                self.kept_at[record.seq] = time.monotonic()
            await self._send(outgoing)
        return bool(outgoing)

    async def next_record(
        self, timeout: float | None = None, waiting_on: int | None = None
    ) -> Record:
        """The next joiner record, already checked and passed on to the others.

        Raises the first fault the pump met (``SeatFault``, ``CheatingDetected``
        naming a joiner), then again on every later call; and ``SeatLost`` when
        the seat the session waits on (``waiting_on``; None: any) is gone.
        """
        async with asyncio.timeout(timeout):
            while self._records.empty():
                stalled = self._stalled(waiting_on)
                if stalled is not None:
                    raise stalled
                self._wake.clear()
                await self._wake.wait()
        item = self._records.get_nowait()
        if isinstance(item, Exception):
            self._records.put_nowait(item)
            raise item
        return item

    def _stalled(self, waiting_on: int | None) -> SeatLost | None:
        seats = sorted(self.gone) if waiting_on is None else [waiting_on]
        for seat in seats:
            if seat in self.gone and seat in self.lost:
                self.given_up.add(seat)  # the session now claims it: too late to come back
                return SeatLost(seat, self.lost[seat], self.grace)
        return None


class SpokeLink:
    """A joiner's channel to the host around one ``StarSpoke``; use as ``async with``.

    A background pump checks every message as it comes and answers it (so
    relayed acknowledgements never pile up unread while the session thinks);
    records of the other seats wait in order for ``next_record``. If the
    channel ends and ``redial`` is given, the pump dials the host again for
    ``grace`` seconds and resynchronises; the session just waits meanwhile.
    """

    def __init__(
        self,
        spoke: StarSpoke,
        link: Link,
        *,
        receipt_timeout: float = RECEIPT_TIMEOUT,
        grace: float = 0.0,
        redial: Redial | None = None,
        on_notice: Notify | None = None,
        on_reply: Callable[[bytes], None] | None = None,
    ) -> None:
        self.spoke = spoke
        self.on_reply = on_reply
        """Called with each acknowledgement we sign, before it is sent (it carries the
        host's receipt: ``p2p66.live.receiptlog`` keeps those in ``<replay>.receipts``)."""
        self.link = link
        self.receipt_timeout = receipt_timeout
        self.grace = grace
        self._redial = redial
        self._notify = on_notice or (lambda seat, state: None)
        self.announced: dict[int, str] = {}
        """Each seat's link state as the host last announced it (``LinkNotice``)."""
        self.reconnecting = False
        self.resumes = 0
        self._acked_out = -1
        self.refusal: TransportError | None = None
        """The last reason a reconnection failed (the host's words if it refused us)."""
        self._sent_at: dict[int, float] = {}
        self._records: asyncio.Queue[Record | Exception] = asyncio.Queue()
        self._heard = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._resumed_first = False
        self.held_at: dict[int, float] = {}
        """When (``time.monotonic``) we took in (or sent) each chain position: how long the
        other joiners' acknowledgements of it have been owed (``live.linkstate``)."""
        self.ended: Exception | None = None
        """The fault or lost channel that stopped the pump (None while it runs)."""

    def resume_first(self) -> None:
        """A restarted joiner: the channel's first exchange is a resynchronisation."""
        self._resumed_first = True

    async def __aenter__(self) -> SpokeLink:
        self._task = asyncio.create_task(self._pump())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _pump(self) -> None:
        try:
            if self._resumed_first:
                try:
                    await self._resync(self.link)
                except TransportError as exc:
                    if not await self._reconnect(exc):
                        raise
            while True:
                try:
                    await self._run()
                except TransportError as exc:
                    if not await self._reconnect(exc):
                        raise self.refusal or exc from None
        except (TransportError, ProtocolError) as exc:
            self.ended = exc
            self._records.put_nowait(exc)
            self._heard.set()

    async def _run(self) -> None:
        while True:
            try:
                delivery = self.spoke.receive(await self.link.recv())
                if delivery.record is not None:  # checked: ours even if the ack cannot go
                    self.held_at[delivery.record.seq] = time.monotonic()
                    self._records.put_nowait(delivery.record)
                if delivery.notice is not None:
                    self.announced[delivery.notice.seat] = delivery.notice.state
                    self._notify(delivery.notice.seat, delivery.notice.state)
                if delivery.reply is not None:  # always our acknowledgement of the newest
                    if self.on_reply is not None:
                        self.on_reply(delivery.reply)
                    await self.link.send(delivery.reply)
                    if self.spoke.last_ack is not None:
                        self._acked_out = self.spoke.last_ack.seq
                for data in self.spoke.resends():
                    await self.link.send(data)
            finally:
                self._heard.set()

    async def _reconnect(self, cause: TransportError) -> bool:
        """Dial the host again and resynchronise, for up to ``grace`` seconds."""
        if self._redial is None or self.grace <= 0:
            return False
        self.reconnecting = True
        self._notify(HOST_SEAT, "reconnecting")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace
        try:
            while (left := deadline - loop.time()) > 0:
                try:
                    async with asyncio.timeout(left):
                        link = await self._redial()
                    await self._resync(link)
                except (TransportError, OSError, TimeoutError) as exc:
                    # not reached, or refused (say, the host still holds our old link)
                    if isinstance(exc, TransportError):
                        self.refusal = exc
                    await asyncio.sleep(min(REDIAL_PAUSE, max(0.0, deadline - loop.time())))
                    continue
                self.link = link
                self.resumes += 1
                self._notify(HOST_SEAT, "back")
                return True
            return False
        finally:
            self.reconnecting = False
            now = loop.time()
            self._sent_at = dict.fromkeys(self._sent_at, now)  # the receipt clock starts again
            self._heard.set()

    async def _resync(self, link: Link) -> None:
        """Where we stand, the host's answer, and our acknowledgement it lacks; the host's
        catch-up then comes in as ordinary messages (a ``RelayFault`` if it is not one)."""
        try:
            async with asyncio.timeout(RESYNC_TIMEOUT):
                await link.send(self.spoke.resume_request())
                reply = await link.recv()
        except TimeoutError:
            raise ConnectionLost(
                f"the host did not answer our resynchronisation within {RESYNC_TIMEOUT:g} s"
            ) from None
        self.link = link
        for data in self.spoke.resumed(reply):
            await link.send(data)
        for data in self.spoke.resends():
            await link.send(data)

    async def settle(self, timeout: float) -> bool:
        """Wait until every record we hold is receipted and our acknowledgement of the last
        one has gone to the host (before closing at the end of the match); False if
        ``timeout`` seconds pass first, or the link is down."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if not self.spoke.pending and self._acked_out == self.spoke.head:
                return True
            if self._task is None or self._task.done():
                return False
            await asyncio.sleep(0.02)
        return False

    async def send_own(self, record: Record) -> None:
        """Our record to the host; ``Displaced`` if it chains on a record of ours that
        crossed another seat's and is void (it is void too: the other comes first)."""
        if any(record.prev == void.digest for void in self.spoke.voided):
            self.spoke.voided.append(record)
            raise Displaced(record.seq)
        data = self.spoke.own(record)
        self._sent_at[record.seq] = asyncio.get_running_loop().time()
        self.held_at[record.seq] = time.monotonic()
        if self.reconnecting:
            return  # it goes with the resynchronisation
        with contextlib.suppress(TransportError):  # the pump sees the link end and redials
            await self.link.send(data)

    def ready(self) -> bool:
        """A record of another seat (or the pump's fault) waits: ``next_record`` returns at
        once."""
        return not self._records.empty()

    async def until_ready(self) -> None:
        """Until ``ready``: while it is our turn, only a record out of turn (a resignation,
        the host's claim) or the pump's fault can come."""
        while not self.ready():
            self._heard.clear()
            await self._heard.wait()

    async def placed(self, record: Record) -> bool:
        """Wait for the host's word on our ``record``: True once receipted (it is in the
        chain), False if it crossed another seat's record on the way and the host placed
        that one first (then ours is void, and the other is next in ``next_record``).
        Raises as ``next_record`` does (the pump's fault; withheld past the receipt time)."""
        loop = asyncio.get_running_loop()
        while True:
            if record in self.spoke.voided:
                return False
            if record not in self.spoke.pending:
                return True
            if self.ended is not None:
                raise self.ended
            deadline = self._receipt_deadline()
            if deadline is not None and loop.time() >= deadline:
                raise self._withheld(record)
            self._heard.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):
                    await self._heard.wait()

    def _withheld(self, record: Record) -> RelayFault:
        return RelayFault(
            f"it has not receipted our record {record.seq} within "
            f"{self.receipt_timeout:g} s (withheld, or the link is stuck)",
            kind="withheld",
        )

    def _receipt_deadline(self) -> float | None:
        pending = self.spoke.waiting_for_receipt()
        for seq in [s for s in self._sent_at if pending is None or s < pending.seq]:
            del self._sent_at[seq]
        if pending is None or self.reconnecting:
            return None
        now = asyncio.get_running_loop().time()  # a restored record: its clock starts now
        return self._sent_at.setdefault(pending.seq, now) + self.receipt_timeout

    async def next_record(
        self, timeout: float | None = None, waiting_on: int | None = None
    ) -> Record:
        """The next record of another seat, after every check of ``StarSpoke``.

        Raises the first fault (``RelayFault``, ``ForkProven``, the channel's
        ``TransportError`` once no reconnection came within the grace) on this
        and every later call, and ``RelayFault(kind="withheld")`` if one of our
        records stays without the host's receipt for ``receipt_timeout``
        seconds of linked time. ``waiting_on`` is for the hub's signature: a
        joiner waits for whoever owes the record.
        """
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        while self._records.empty():
            deadline = self._receipt_deadline()
            if deadline is not None and loop.time() >= deadline:
                pending = self.spoke.waiting_for_receipt()
                assert pending is not None
                self._records.put_nowait(self._withheld(pending))
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
