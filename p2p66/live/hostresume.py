"""Restart-resume of a table's host: what seat 0 of three or four keeps to survive being killed.

Built like a joiner's (``p2p66.live.tableresume``), in ``<home>/resume/``
(0600, atomic, fsynced), with what only the host has:

- ``table-host.match``: the signed seating, where the host listens, the
  replay file, the match target, and every bot seat it runs (name, private
  key seed: a bot signs its records with it; the bot and its seed);
- ``table-host.secrets`` and ``table-host.secrets-K``: every random draw of
  the host's peer and of bot seat K's, saved before any record made from it
  is sent (``SecretStore``);
- ``table-host.chain``: the hub's chain, each record appended and fsynced
  *before* the hub receipts it or passes it on. The replay lags behind it
  (a joiner's record reaches the host's replay only when its session takes
  it), and a joiner may hold a receipt the moment the hub sent it: a hub
  restored from the replay alone could miss a record a joiner holds.

A restarted host rebuilds the hub from the chain (every receipt signed
again: Ed25519 is deterministic, so the very bytes the joiners hold), brings
the replay to the same records, replays them through fresh peers for its
own seat and each bot seat fed the stored draws (``resume.restore``: their
own records must come out bit for bit), listens on the same port, and
waits for every seat to come back: the bots at once, the joiners when
their redial reaches it, each through the ordinary resynchronisation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from p2p66.live.receiptlog import Warn, keeper, open_receipts_or_none
from p2p66.live.resume import (
    ResumeError,
    SecretStore,
    restore,
    resume_dir,
    resume_path,
    write_private,
)
from p2p66.live.star import StarHub
from p2p66.live.starlink import Redial, SpokeLink, seats_of, spoke_for
from p2p66.live.tablenet import HostedSeats, peer_for
from p2p66.live.tableresume import read_match, seating_fields, seating_of
from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.net.errors import TransportError
from p2p66.net.identity import Identity
from p2p66.net.lobby import Table
from p2p66.net.memory import memory_channel_pair
from p2p66.net.seating import Seating
from p2p66.net.tcp import Listener
from p2p66.replay.fileio import ReplayWriter
from p2p66.replay.receipts import ReceiptsWriter
from p2p66.session.errors import LocalProtocolError
from p2p66.session.headacks import HOST_SEAT
from p2p66.session.records import Record

ROLE = "table-host"
BOT_CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None)
"""The in-process channels to the bot seats: memory, nothing to watch."""


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A bot seat the host runs: its name and the seed of its signing key."""

    seat: int
    name: str
    seed: bytes

    @classmethod
    def of(cls, seat: int, identity: Identity) -> BotSeat:
        return cls(seat, identity.name, identity.private_key.private_bytes_raw())

    def identity(self) -> Identity:
        return Identity.from_seed(self.name, self.seed)


@dataclass(frozen=True, slots=True)
class HostMatch:
    """The host's table match: who sits where, where it listens, its replay and bots."""

    seating: Seating
    signatures: tuple[bytes, ...]
    bind: str | None
    port: int
    replay: str
    bot: str
    bot_seed: int
    target: int | None
    bots: tuple[BotSeat, ...] = ()

    def save(self) -> None:
        fields = {
            **seating_fields(self.seating, self.signatures),
            "bind": self.bind or "",
            "port": self.port,
            "replay": self.replay,
            "bot": self.bot,
            "bot_seed": self.bot_seed,
            "target": self.target or 0,
            "bots": [[b.seat, b.name, b.seed] for b in self.bots],
        }
        write_private(resume_path(ROLE, "match"), msgpack.packb(fields))

    @classmethod
    def load(cls) -> HostMatch | None:
        path = resume_path(ROLE, "match")
        obj: Any = read_match(path)
        if obj is None:
            return None
        seating, sigs = seating_of(obj, path)
        try:
            bots = tuple(BotSeat(int(s), str(n), bytes(k)) for s, n, k in obj["bots"])
            match = cls(
                seating, sigs, str(obj["bind"]) or None, int(obj["port"]), str(obj["replay"]),
                str(obj["bot"]), int(obj["bot_seed"]), int(obj["target"]) or None, bots,
            )  # fmt: skip
            for bot in bots:
                if bot.identity().public_key != seating.seats[bot.seat].public_key:
                    raise ValueError("a bot's key is not its seat's")
        except (TypeError, ValueError, KeyError, IndexError):
            raise ResumeError(f"{path} is damaged; the table match cannot be resumed") from None
        return match

    def bot_identities(self) -> dict[int, Identity]:
        return {bot.seat: bot.identity() for bot in self.bots}


def host_match_kept() -> bool:
    """True if a host's table match can be resumed (``host --resume`` takes it first)."""
    return resume_path(ROLE, "match").exists()


def forget_host() -> None:
    """The host's table match is over (or cannot go on): nothing is left to resume."""
    for path in resume_dir().glob(f"{ROLE}.*"):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _secrets_kind(seat: int) -> str:
    return "secrets" if seat == HOST_SEAT else f"secrets-{seat}"


def _stored_secrets(seat: int) -> SecretStore:
    store = SecretStore.load(ROLE, _secrets_kind(seat))
    if store is None:
        whose = "the host's" if seat == HOST_SEAT else f"bot seat {seat}'s"
        raise ResumeError(
            f"{resume_path(ROLE, _secrets_kind(seat))} is missing: {whose} secrets are lost; "
            "cannot resume"
        )
    return store


def _journal_keeper(journal: ReplayWriter) -> Callable[[Record], None]:
    """The hub's ``journal``: a record durably in the chain file, or the match stops (a
    receipt for a record a restarted host could not restore would strand the joiners)."""

    def keep(record: Record) -> None:
        try:
            journal.append(record)
        except OSError as exc:
            raise LocalProtocolError(
                f"the host's chain file cannot be written ({exc}); the match stops here"
            ) from None

    return keep


@dataclass
class HostFiles:
    """What the host process keeps open for a resumable match: the chain file and the bot
    seats' receipts files, closed when the match ends."""

    journal: ReplayWriter
    receipts: list[ReceiptsWriter]

    def close(self) -> None:
        self.journal.close()
        for writer in self.receipts:
            writer.close()


def bot_receipts(table: Table, replay: Path, warn: Warn | None) -> ReceiptsWriter | None:
    """Bot seat ``table.seat``'s receipts of the host, beside the host's replay:
    ``<replay>.seatK.receipts`` (the bot keeps them like any joiner)."""
    return open_receipts_or_none(table, replay.with_name(f"{replay.name}.seat{table.seat}"), warn)


def _bot_spoke(
    table: Table, identity: Identity, files: HostFiles, replay: Path, warn: Warn | None, **kw: Any
) -> SpokeLink:
    writer = bot_receipts(table, replay, warn)
    if writer is not None:
        files.receipts.append(writer)
    on_reply = None if writer is None else keeper(writer, warn)
    return spoke_for(table, identity, on_reply=on_reply, **kw)


def start_hosted(
    table: Table, me: Identity, bots: Mapping[int, Identity], match: HostMatch,
    warn: Warn | None = None,
) -> tuple[HostedSeats, HostFiles]:  # fmt: skip
    """A new match's seats, resumable: the match file saved (an older match's state is
    replaced), the chain file started, every seat's draws saved from the first."""
    forget_host()
    match.save()
    journal = ReplayWriter(resume_path(ROLE, "chain"))
    files = HostFiles(journal, [])
    hub = StarHub(seats_of(table), me.sign)
    hub.journal = _journal_keeper(journal)
    peer = peer_for(table, me, target=match.target, rng=_fresh(HOST_SEAT).rng())
    replay = Path(match.replay)
    bot_peers = {s: peer_for(table.bots[s], bid, rng=_fresh(s).rng()) for s, bid in bots.items()}
    spokes = {s: _bot_spoke(table.bots[s], bid, files, replay, warn) for s, bid in bots.items()}
    return HostedSeats(hub, peer, bot_peers, spokes), files


def _fresh(seat: int) -> SecretStore:
    store = SecretStore(ROLE, [], _secrets_kind(seat))
    store.arm()
    return store


def reconcile(kept: list[Record], replay: ReplayWriter) -> tuple[list[Record], list[Record]]:
    """The chain to restore, and the host's own records to pass to the hub again.

    The chain file is the truth: the replay gets what it lacks of it (joiners'
    records the dead session had not yet taken) and loses what contradicts it
    (a record of ours that crossed one the hub had kept: void). The replay may
    also run ahead with records of ours written before they reached the hub:
    those stay, and the restarted hub keeps them now.
    """
    mine = replay.records
    common = 0
    while common < min(len(kept), len(mine)) and kept[common].digest == mine[common].digest:
        common += 1
    ahead = mine[common:]
    if common == len(kept) and all(r.author == HOST_SEAT for r in ahead):
        return [*kept, *ahead], ahead
    if common < len(mine):
        replay.truncate(common)
    for record in kept[common:]:
        replay.append(record)
    return list(kept), []


@dataclass(frozen=True, slots=True)
class Restarted:
    """A restarted host's tables (its own, each bot's) and seats, restored to ``seats.chain``."""

    table: Table
    seats: HostedSeats
    files: HostFiles


async def restart_hosted(
    match: HostMatch, me: Identity, rejoin: Callable[[SecureChannel], None], grace: float,
    warn: Warn | None = None,
) -> Restarted:  # fmt: skip
    """Rebuild the host's process from its resume files (``ResumeError`` saying what is
    missing or wrong). Every joiner seat starts lost (its old channel is gone); each bot
    seat redials at once over a new memory channel whose host end goes to ``rejoin``."""
    chain_path = resume_path(ROLE, "chain")
    if not chain_path.exists():
        raise ResumeError(f"{chain_path} is missing: the host's chain is lost; cannot resume")
    if not Path(match.replay).exists():
        raise ResumeError(f"the replay {match.replay} is missing; the match cannot be resumed")
    journal = ReplayWriter(chain_path)
    files = HostFiles(journal, [])
    try:
        replay = ReplayWriter(match.replay)
        chain, ahead = reconcile(list(journal.records), replay)
        table = await _dead_table(match, me)
        hub = StarHub(seats_of(table), me.sign)
        try:
            hub.restore(journal.records)
        except LocalProtocolError as exc:
            raise ResumeError(f"{chain_path}: {exc}; cannot resume") from None
        hub.journal = _journal_keeper(journal)
        for record in ahead:
            hub.own(record)
        peer = peer_for(table, me, target=match.target, rng=_stored_secrets(HOST_SEAT).rng())
        restore(peer, chain)
        bots = match.bot_identities()
        bot_peers = {}
        spokes = {}
        for seat, bid in bots.items():
            bot_peers[seat] = peer_for(table.bots[seat], bid, rng=_stored_secrets(seat).rng())
            restore(bot_peers[seat], chain)
            spoke = _bot_spoke(
                table.bots[seat], bid, files, Path(match.replay), warn, grace=grace,
                redial=_bot_redial(me, bid, rejoin),
            )  # fmt: skip
            spoke.spoke.restore(chain)
            spoke.resume_first()
            spokes[seat] = spoke
    except BaseException:
        files.close()
        raise
    seats = HostedSeats(hub, peer, bot_peers, spokes, writer=replay, chain=chain)
    return Restarted(table, seats, files)


async def _dead_table(match: HostMatch, me: Identity) -> Table:
    """The seated table again, every channel of it closed: the restart lost them all."""
    bots = match.bot_identities()
    gone = Identity.generate("gone")
    channels: dict[int, SecureChannel] = {}
    tables: dict[int, Table] = {}
    for seat in range(1, len(match.seating.seats)):
        host_end, other_end = await memory_channel_pair(me, bots.get(seat, gone), config=BOT_CONFIG)
        for end in (host_end, other_end):
            end.close("the host restarted")
        channels[seat] = host_end
        if seat in bots:
            tables[seat] = Table(match.seating, match.signatures, seat, {0: other_end})
    return Table(match.seating, match.signatures, HOST_SEAT, channels, tables)


def _bot_redial(me: Identity, bot: Identity, rejoin: Callable[[SecureChannel], None]) -> Redial:
    async def dial() -> SecureChannel:
        host_end, bot_end = await memory_channel_pair(me, bot, config=BOT_CONFIG)
        rejoin(host_end)
        return bot_end

    return dial


class RejoinQueue:
    """The channels a restarted hub takes seats back from: the bots' new memory channels,
    and every channel the listener authenticates (a seated joiner's only)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[SecureChannel] = asyncio.Queue()

    def put(self, channel: SecureChannel) -> None:
        self._queue.put_nowait(channel)

    async def next(self) -> SecureChannel:
        return await self._queue.get()

    @contextlib.asynccontextmanager
    async def fed_by(self, listener: Listener) -> AsyncIterator[RejoinQueue]:
        """Also the listener's channels, while inside."""

        async def feed() -> None:
            while True:
                try:
                    self.put(await listener.accept())
                except TransportError:
                    continue  # a failed attempt at the listener: not a seat of ours

        task = asyncio.create_task(feed())
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
