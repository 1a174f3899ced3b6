"""A seated table of three or four played to the end over the star: one peer per process seat.

The lobby (``p2p66.net.lobby``) seats the table and every player signs it;
the star (``p2p66.live.starlink``) carries every record through the host,
who can forge none and whose equivocation is proven. This module binds
the two to the session: each seat's ``Peer`` sends its records on its link
(the host's ``HubLinks``, a joiner's ``SpokeLink``) and takes everybody
else's from it, in chain order, so every peer holds the same records and
writes the same replay bytes as it goes; the replay is verified when the
match ends. Any fault ends the match for this seat with ``TableEnd`` naming
whom to blame, and the replay so far stays on disk (with the fork proof
beside it when one was proven).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from p2p66.crypto.handkeys import Rng, system_rng
from p2p66.engine.table import TableOptions, table_options
from p2p66.live.receiptlog import Warn, keeper, open_receipts_or_none
from p2p66.live.star import Displaced, ForkProven, StarHub
from p2p66.live.starlink import Notify, Redial, Rejoins, SeatLost, SpokeLink
from p2p66.live.tableleave import Leaving, Left, unless_leaving
from p2p66.live.tablelobby import close_table
from p2p66.net.errors import TransportError
from p2p66.net.identity import Identity
from p2p66.net.lobby import Table
from p2p66.replay.fileio import ReplayWriter
from p2p66.replay.verify import verify_records
from p2p66.session import events as ev
from p2p66.session import messages as msg
from p2p66.session.errors import CheatingDetected, LocalProtocolError, ProtocolError
from p2p66.session.headacks import HOST_SEAT
from p2p66.session.peer import Peer, Signer
from p2p66.session.records import Record
from p2p66.ui.race import before

RECORD_TIMEOUT: Final = 900.0
"""Seconds a seat waits for the next record (a human may think; the star has its own
receipt timeout for withheld records)."""


class RecordLink(Protocol):
    """What a seat needs of its end of the star (``HubLinks`` and ``SpokeLink`` have it)."""

    async def send_own(self, record: Record) -> object: ...

    async def placed(self, record: Record) -> bool: ...

    def ready(self) -> bool: ...

    async def until_ready(self) -> None: ...

    async def next_record(
        self, timeout: float | None = None, waiting_on: int | None = None
    ) -> Record: ...


DRAIN_SECONDS: Final = 10.0
"""How long the host waits, after the last record, for every joiner to acknowledge it."""


@dataclass(frozen=True, slots=True)
class Dropouts:
    """How a seat lives through dropped links: the grace period, and where a dropped link
    comes back from (the host: its listener's next channel; a joiner: a redial)."""

    grace: float = 0.0
    rejoins: Rejoins | None = None
    redial: Redial | None = None
    on_notice: Notify | None = None


Chooser = Callable[[Peer], Awaitable[int | str]]
"""A seat's decision, from its own peer (its view only): the move to play."""
Heard = Callable[[int, list[ev.Event]], None]
Attach = Callable[[Peer, "RecordLink"], None]
"""Told a seat's peer and its end of the star before the match starts (a screen's model)."""


@dataclass(frozen=True, slots=True)
class TableEnd:
    """How the match ended for one seat: ``fault`` is None when it was played to the end."""

    seat: int
    records: tuple[Record, ...]
    verdict: str
    fault: str | None = None
    culprit: int | None = None
    cheat: bool = False
    lost: bool = False
    replay_failed: bool = False
    fork_proof: Path | None = None
    resigned: int | None = None
    """The seat whose signed resignation ended the match (the chain's last record)."""
    left: bool = False
    """This seat left: it resigned (or left before there was a match to resign)."""

    @property
    def signed_end(self) -> bool:
        """The chain ends with a record every seat holds: played out, or resigned."""
        return self.fault is None or self.resigned is not None


def signer_of(identity: Identity) -> Signer:
    return Signer(identity.name or "player", identity.public_key, identity.sign)


def options_of(table: Table, target: int | None = None) -> TableOptions:
    """The options of the seated preset (what everybody signed in the seating), played to
    ``target`` game points if given (the one rule the host may change: it is in its hello)."""
    values = {} if target is None else {"match_target": target}
    return table_options(table.seating.preset, values)


def same_rules(preset: str) -> Callable[[object, int], str | None]:
    """A joiner's answer to the proposed rules: the seated preset's, any match target."""

    def answer(proposed: object, soundness: int) -> str | None:
        target = getattr(proposed, "match_target", None)
        if not isinstance(target, int) or proposed != table_options(
            preset, {"match_target": target}
        ):
            return f"the host proposed other rules than the seated {preset}"
        return None

    return answer


def peer_for(
    table: Table, identity: Identity, *, target: int | None = None, rng: Rng = system_rng
) -> Peer:
    """The session peer of ``table.seat``: the host proposes the seated preset's options
    (to ``target``), a joiner accepts only those (with any target). ``rng``: where its
    secrets come from (a ``SecretStore``'s, so a restarted process remakes them)."""
    options = options_of(table, target)

    return Peer(
        table.seat,
        signer_of(identity),
        options=options if table.seat == HOST_SEAT else None,
        rules_policy=same_rules(table.seating.preset),
        rng=rng,
        seats=options.players,
    )


async def play_seat(
    peer: Peer,
    link: RecordLink,
    choose: Chooser,
    *,
    replay: Path | None = None,
    on_events: Heard | None = None,
    record_timeout: float = RECORD_TIMEOUT,
    durable: bool = True,
    writer: ReplayWriter | None = None,
    restored: Sequence[Record] | None = None,
    leaving: Leaving | None = None,
) -> TableEnd:
    """Play ``peer``'s seat to the end of the match over ``link``; never raises for a fault.

    Every record (ours as sent, the others' as they arrive) is appended to
    ``replay`` at once (``fsync``ed unless not ``durable``); at the end the
    records are verified. ``writer``: a restarted process's replay reopened, to whose
    end ``peer`` is restored; ``restored``: the chain a replay-less seat (a host's bot)
    was restored to. Once ``leaving`` is set the seat resigns, with a
    signed record, as soon as every record already here is taken in; a
    record of ours that crossed another seat's at the host, which placed
    that one first, is void (taken out of the replay), and a resignation
    that lost so is signed again on the new head (SPEC "Resigning at a table").
    """
    if writer is not None:
        restored = writer.records
    records: list[Record] = list(restored) if restored is not None else []

    def heard(new: list[ev.Event]) -> None:
        if on_events is not None and new:
            on_events(peer.seat, new)

    def keep(record: Record) -> None:
        records.append(record)
        if writer is not None:
            writer.append(record)

    def drop_from(seq: int) -> None:
        """Our records from ``seq`` on are void: in nobody's chain, so not in our replay."""
        if seq < len(records):
            del records[seq:]
            if writer is not None:
                writer.truncate(seq)

    def end(**fault: object) -> TableEnd:
        if writer is not None:
            with contextlib.suppress(OSError):
                writer.close()
        verdict = verify_records(records).report.seen_by(peer.seat).headline()
        return TableEnd(peer.seat, tuple(records), verdict, **fault)  # type: ignore[arg-type]

    def take(record: Record) -> None:
        """Another seat's record, in the host's order: kept, then given to the peer."""
        suspect = false_claim(peer, link, record)
        if suspect is not None:  # our record stays in our replay: evidence
            raise HostLied(suspect)
        via = record.author if peer.seat == HOST_SEAT else HOST_SEAT
        drop_from(record.seq)  # it took the place of records of ours: the host's order wins
        keep(record)
        heard(peer.receive_data(record.encode(), via=via))

    async def sent() -> bool:
        """Send what the peer made; False if a record crossed another seat's at the host and
        is void (the others of its flight with it): that one comes next."""
        for record in peer.data_to_send():
            keep(record)  # on disk before it leaves: a restarted process resends it
            try:
                placed = await link.send_own(record)
            except Displaced:  # the spoke already holds the record put in its place
                placed = False
            if placed is False:
                drop_from(record.seq)
                return False
        return True

    async def next_record(asking: Leaving | None) -> Record:
        owed = peer.machine.expected()
        waiting_on = owed.author if owed is not None else None
        return await unless_leaving(
            link.next_record(timeout=record_timeout, waiting_on=waiting_on), asking
        )

    try:
        if replay is not None and writer is None:
            writer = ReplayWriter(replay, fsync=durable)
        heard(peer.start() if restored is None else [])
        while True:
            if not await sent():
                take(await next_record(None))
                continue
            if peer.machine.over:
                last = records[-1] if records else None
                if last is not None and last.author == peer.seat and not await link.placed(last):
                    take(await next_record(None))  # ours lost a race at the host: void
                    continue
                return end(**ending(peer))
            if leaving is not None and leaving.reason is not None:
                if link.ready():  # what is here first: then ours chains on the newest head
                    take(await next_record(None))
                elif peer.can_end:
                    heard(peer.resign(leaving.reason))
                else:
                    return end(
                        fault="you left before the match had begun (nothing to resign yet)",
                        culprit=peer.seat,
                        left=True,
                    )
                continue
            try:
                if peer.needs_move:  # a record out of turn (a resignation) comes first
                    move = await unless_leaving(before(choose(peer), link.until_ready()), leaving)
                    if move is not None:
                        heard(peer.play(move[0]))
                    continue
                record = await next_record(leaving)
            except Left:
                continue
            take(record)
    except HostLied as exc:
        return end(fault=str(exc), culprit=HOST_SEAT, cheat=True)
    except ForkProven as exc:
        path = None
        if replay is not None:
            path = replay.with_name(replay.name + ".fork")
            path.write_bytes(exc.proof.encode())
        return end(fault=str(exc), culprit=exc.culprit, cheat=True, fork_proof=path)
    except CheatingDetected as exc:
        return end(fault=str(exc), culprit=exc.culprit, cheat=True)
    except ProtocolError as exc:
        local = isinstance(exc, LocalProtocolError)
        return end(fault=str(exc), culprit=exc.culprit, cheat=not local)
    except SeatLost as exc:
        if not await _claim_abandoned(peer, link, exc.seat, keep):
            crossed = await _crossed_claim(peer, link, take)  # a resignation came first
            if crossed:
                return end(**ending(peer))
        who = seat_name(peer, exc.seat)
        return end(fault=f"abandoned by {who}: {exc}", culprit=exc.seat, lost=True)
    except TransportError as exc:
        who = f"the host, {seat_name(peer, HOST_SEAT)}"
        return end(fault=f"abandoned by {who}: {exc}", culprit=HOST_SEAT, lost=True)
    except TimeoutError:
        return end(fault=f"no record came within {record_timeout:g} s", lost=True)
    except OSError as exc:  # the replay file: what was written is kept
        return end(fault=f"the replay could not be written: {exc}", replay_failed=True)


class HostLied(Exception):
    """A claim of the host that this seat can see is false (``false_claim``)."""


def ending(peer: Peer) -> dict[str, object]:
    """The ``TableEnd`` fields of a match that is over: played out, resigned or abandoned."""
    m = peer.machine
    if m.abandoned is not None:
        who = seat_name(peer, m.abandoned)
        return {"fault": f"abandoned by {who}", "culprit": m.abandoned, "lost": True}
    if m.resigned is not None:
        who = seat_name(peer, m.resigned)
        return {
            "fault": f"resigned by {who} ({m.resign_reason})",
            "culprit": m.resigned,
            "resigned": m.resigned,
            "left": m.resigned == peer.seat,
        }
    return {}


def seat_name(peer: Peer, seat: int) -> str:
    """``seat 2 (kai)``: a seat with the name its hello gave (if it got that far)."""
    names = peer.machine.names
    return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"


def false_claim(peer: Peer, link: RecordLink, record: Record) -> str | None:
    """Why the host's claim of abandonment in ``record`` is a lie we can see, or None.

    A claim that reaches a joiner live (not in a resynchronisation's catch-up)
    is false if it names that joiner, which is linked and reading, and suspect
    if the host never announced the named seat's link as lost first (an honest
    host always does, then waits the grace period). Detected, not proven: see
    SPEC "Dropouts through the star".
    """
    if not isinstance(link, SpokeLink) or record.author != HOST_SEAT:
        return None
    if record.seq < link.spoke.live_from:
        return None
    try:
        body = msg.decode(record.body, record.author)
    except ProtocolError:
        return None  # the session names what is wrong with it
    if not isinstance(body, msg.Abandoned):
        return None
    if body.player == peer.seat:
        return (
            f"the host claimed (record {record.seq}) that we, {seat_name(peer, peer.seat)}, "
            "abandoned the match while we were linked to it and reading: a false claim "
            "(detected, not proven), blamed on the host"
        )
    if link.announced.get(body.player) != "reconnecting":
        return (
            f"the host claimed (record {record.seq}) that {seat_name(peer, body.player)} "
            "abandoned the match without first announcing that its link was lost: a suspect "
            "claim (detected, not proven), blamed on the host"
        )
    return None


async def _claim_abandoned(
    peer: Peer, link: RecordLink, lost: int, keep: Callable[[Record], None]
) -> bool:
    """The host's signed claim that ``lost`` abandoned the match, to the seats still there:
    the hub raises ``SeatLost`` only when the seat is gone and owes the next record. False
    if the hub refused it: another seat's record (a resignation) was placed first."""
    expected = peer.machine.expected()
    if not peer.can_end or expected is None or expected.author != lost:
        return True
    with contextlib.suppress(ProtocolError, TransportError, SeatLost):
        peer.claim_abandoned()
        for record in peer.data_to_send():
            if await link.send_own(record) is False:
                return False
            keep(record)
    return True


async def _crossed_claim(peer: Peer, link: RecordLink, take: Callable[[Record], None]) -> bool:
    """After a refused claim: the record the hub placed first, taken in (our claim is
    withdrawn); True if it ended the match (a resignation), as it must have."""
    with contextlib.suppress(ProtocolError, TransportError, SeatLost, TimeoutError):
        async with asyncio.timeout(DRAIN_SECONDS):
            take(await link.next_record())
    return peer.machine.over


@dataclass(frozen=True, slots=True)
class HostedSeats:
    """The host process's seats made ahead, for a match the host can restart
    (``p2p66.live.hostresume``): the hub (journalled), the host's peer, every bot seat's
    peer and spoke. After a restart ``writer`` is the host's replay reopened and
    ``chain`` the records every peer and spoke here was restored to."""

    hub: StarHub
    peer: Peer
    bot_peers: Mapping[int, Peer]
    bot_spokes: Mapping[int, SpokeLink]
    writer: ReplayWriter | None = None
    chain: Sequence[Record] | None = None


async def play_hosted(
    table: Table,
    identity: Identity,
    choose: Chooser,
    bots: dict[int, tuple[Identity, Chooser]],
    *,
    replay: Path | None = None,
    bot_replays: dict[int, Path] | None = None,
    on_events: Heard | None = None,
    target: int | None = None,
    dropouts: Dropouts | None = None,
    attach: Attach | None = None,
    made: HostedSeats | None = None,
    leaving: Leaving | None = None,
) -> Sequence[TableEnd]:
    """The host's process: its own seat over the hub, every bot seat over its own spoke.

    With ``dropouts`` a joiner whose link drops may reconnect through
    ``dropouts.rejoins`` within its grace. ``made``: the seats made ahead (default: fresh
    ones). Returns the host's ``TableEnd`` first, then the bots' by seat.
    """
    from p2p66.live.starlink import hub_for, spoke_for

    reason = "the match is over"
    ended_signed = False
    drops = dropouts or Dropouts()
    links = hub_for(
        table, identity, grace=drops.grace, rejoins=drops.rejoins, on_notice=drops.on_notice,
        hub=None if made is None else made.hub,
    )  # fmt: skip
    chain = None if made is None else made.chain
    async with links as hub, contextlib.AsyncExitStack() as stack:
        spokes = {
            seat: await stack.enter_async_context(
                made.bot_spokes[seat] if made is not None else spoke_for(table.bots[seat], bid)
            )
            for seat, (bid, _) in bots.items()
        }
        tasks = [
            asyncio.create_task(
                play_seat(
                    made.bot_peers[seat] if made is not None else peer_for(table.bots[seat], bid),
                    spokes[seat],
                    chooser,
                    replay=(bot_replays or {}).get(seat),
                    restored=chain,
                )
            )
            for seat, (bid, chooser) in sorted(bots.items())
        ]
        try:
            peer = made.peer if made is not None else peer_for(table, identity, target=target)
            if attach is not None:
                attach(peer, hub)
            mine = await play_seat(
                peer,
                hub,
                choose,
                replay=replay,
                on_events=on_events,
                writer=None if made is None else made.writer,
                leaving=leaving,
            )
            reason = mine.fault or reason
            ended_signed = mine.signed_end
            if not ended_signed:
                for task in tasks:  # the bots wait on records that will not come
                    task.cancel()
            done = await asyncio.gather(*tasks, return_exceptions=True)
            return [mine, *(end for end in done if isinstance(end, TableEnd))]
        finally:
            for task in tasks:
                task.cancel()
            hub.finish()  # links that end from now on are goodbyes, not drops
            await hub.settle()  # the last joiner record may still be on its way to the others
            if ended_signed:  # every joiner holds the last record (or resignation): then close
                await hub.drained(timeout=DRAIN_SECONDS)
            await close_table(table, reason, also=list(hub.links.values()))


async def _receipted(spoke: SpokeLink, timeout: float) -> None:
    """Wait (up to ``timeout`` s) until the host has receipted every record of ours."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            while spoke.spoke.waiting_for_receipt() is not None:
                await asyncio.sleep(0.02)


async def play_joined(
    table: Table,
    identity: Identity,
    choose: Chooser,
    *,
    replay: Path | None = None,
    on_events: Heard | None = None,
    dropouts: Dropouts | None = None,
    peer: Peer | None = None,
    restarted: ReplayWriter | None = None,
    attach: Attach | None = None,
    warn: Warn | None = None,
    leaving: Leaving | None = None,
) -> TableEnd:
    """A joiner's process: its seat over its spoke to the host; with ``dropouts`` a dropped
    link is redialled (``dropouts.redial``) within the grace. ``peer``: our session peer
    (default: a fresh one). ``restarted``: a restarted process's replay, to whose end
    ``peer`` is restored; the channel's first exchange is then a resynchronisation.
    Beside the replay it keeps the host's receipts (``<replay>.receipts``), so a fork can
    be proven after the game; ``warn`` is told once if that file cannot be written."""
    from p2p66.live.starlink import spoke_for

    reason = "the match is over"
    drops = dropouts or Dropouts()
    receipts = open_receipts_or_none(table, replay, warn)
    link = spoke_for(
        table,
        identity,
        grace=drops.grace,
        redial=drops.redial,
        on_notice=drops.on_notice,
        on_reply=None if receipts is None else keeper(receipts, warn),
    )
    if restarted is not None:
        link.spoke.restore(restarted.records)
        link.resume_first()
    try:
        async with link as spoke:
            peer = peer or peer_for(table, identity)
            if attach is not None:
                attach(peer, spoke)
            end = await play_seat(
                peer, spoke, choose, replay=replay, on_events=on_events, writer=restarted,
                leaving=leaving,
            )  # fmt: skip
            if end.signed_end:  # our last acknowledgement out, our last record receipted
                await spoke.settle(DRAIN_SECONDS)
                await _receipted(spoke, DRAIN_SECONDS)
            reason = end.fault or reason
            return end
    finally:
        if receipts is not None:
            receipts.close()
        await close_table(table, reason, also=[link.link])
