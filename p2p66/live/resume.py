"""Restart-resume: what a peer keeps so that a restarted process continues its match.

A live match can survive a dropped link (``LiveGame._resume``), but a killed
process loses its per-hand secrets, without which it can neither open its
cards nor reveal its seed. So each peer keeps, in the p2p66 home:

- ``resume/<role>.match``: with whom and where (opponent key, address,
  port, the host's proposal), the replay file, and our position in the
  chain (record count and head), rewritten after each record is kept;
- ``resume/<role>.secrets``: every random draw the peer made (the coin
  nonce, then one 32-byte hand seed per hand, from which all of that
  hand's secrets derive; see ``p2p66.crypto.handkeys``), saved the moment
  it is drawn, so before any record made from it is sent.

Both are readable only by the user (0600) and written atomically (temp
file, fsync, rename). A restarted peer replays its replay file through a
fresh ``Peer`` fed the same draws: the crypto is deterministic in the seed,
so it remakes our records bit for bit (checked) and ends in the exact state
the killed process had; then the ordinary resynchronisation picks up from
the record both sides hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgpack

from p2p66.crypto.errors import CryptoError
from p2p66.crypto.handkeys import Rng, system_rng
from p2p66.engine import EngineError
from p2p66.live.game import MOVE_MARGIN, read_resume_message, resume_message
from p2p66.net.channel import SecureChannel
from p2p66.net.errors import TransportError
from p2p66.net.identity import home_dir
from p2p66.replay.fileio import ReplayWriter
from p2p66.session import messages as msg
from p2p66.session.errors import ProtocolError
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer
from p2p66.session.records import GENESIS, Record

ROLES = ("host", "join", "table-join", "table-host")
"""Whose resume state: a two-player host or joiner, or a joiner or the host at a table of
three or four (``p2p66.live.tableresume``, ``p2p66.live.hostresume``)."""
GOODBYE_WAIT = 10.0
"""Seconds an abandoning peer waits for the other side to close after its resignation."""


class ResumeError(Exception):
    """A match cannot be resumed; the message says why and what to do."""


def resume_dir() -> Path:
    return home_dir() / "resume"


def resume_path(role: str, kind: str) -> Path:
    """``<home>/resume/<role>.<kind>`` (kind: ``match`` or ``secrets``)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, not {role!r}")
    return resume_dir() / f"{role}.{kind}"


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically and durably, readable only by the user."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the file's own fsync holds
    finally:
        os.close(dfd)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        obj = msgpack.unpackb(data, raw=False)
    except Exception:
        obj = None
    if not isinstance(obj, dict):
        raise ResumeError(f"{path} is damaged (not a resume file); the match cannot be resumed")
    return obj


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The non-secret half: where the match is, with whom, and how far it got."""

    role: str
    replay: str
    opponent: bytes
    address: str
    port: int
    options: dict[str, Any] | None = None
    soundness: int = 0
    move_seconds: int = 600
    have: int = 0
    head: bytes = GENESIS
    reply_to: tuple[tuple[str, int], ...] = ()
    """The host: the reply code's addresses it dialled, to dial again (the joiner could
    not reach it). The joiner: the host's addresses it dialled from its reply port."""
    reply_port: int = 0
    """The joiner: its reply port, when the host connected to it (0: it dialled the host)."""

    @property
    def seat(self) -> int:
        return 0 if self.role == "host" else 1

    def save(self) -> None:
        fields = {f: getattr(self, f) for f in self.__slots__}
        write_private(resume_path(self.role, "match"), msgpack.packb(fields))

    @classmethod
    def load(cls, role: str) -> MatchInfo | None:
        obj = _read(resume_path(role, "match"))
        if obj is None:
            return None
        try:
            obj["reply_to"] = tuple((str(h), int(p)) for h, p in obj.get("reply_to", ()))
            info = cls(**obj)
        except (TypeError, ValueError):
            raise ResumeError(f"{resume_path(role, 'match')} is damaged; cannot resume") from None
        if info.role != role or not isinstance(info.opponent, bytes):
            raise ResumeError(f"{resume_path(role, 'match')} is damaged; cannot resume")
        return info


class SecretStore:
    """Every random draw of one peer, in order, saved before it is used.

    ``rng`` hands out the stored draws first (a restarted peer remakes the
    same secrets) and saves each fresh draw before returning it.
    """

    def __init__(self, role: str, draws: list[bytes] | None = None, kind: str = "secrets") -> None:
        self.role = role
        self.kind = kind
        """The file's kind: ``secrets``, or for a table host's bot seat k ``secrets-k``."""
        self.draws: list[bytes] = list(draws or [])
        self._used = 0
        self.armed = draws is not None
        """Saving: a new match saves only once the opponent answered (see ``arm``)."""

    def arm(self) -> None:
        """Start saving (the draws so far at once): the match is with a real opponent now."""
        self.armed = True
        self._save()

    def _save(self) -> None:
        write_private(self.path, msgpack.packb({"draws": self.draws}))

    @property
    def path(self) -> Path:
        return resume_path(self.role, self.kind)

    def rng(self, fresh: Rng = system_rng) -> Rng:
        def draw(n: int) -> bytes:
            if self._used < len(self.draws):
                value = self.draws[self._used]
                if len(value) != n:
                    raise ResumeError(f"{self.path} does not match this match; cannot resume")
            else:
                value = fresh(n)
                self.draws.append(value)
                if self.armed:
                    self._save()
            self._used += 1
            return value

        return draw

    @classmethod
    def load(cls, role: str, kind: str = "secrets") -> SecretStore | None:
        obj = _read(resume_path(role, kind))
        if obj is None:
            return None
        draws = obj.get("draws")
        if not isinstance(draws, list) or not all(isinstance(d, bytes) for d in draws):
            raise ResumeError(f"{resume_path(role, kind)} is damaged; cannot resume")
        return cls(role, draws, kind)


def forget(role: str) -> None:
    """The match is over (or cannot go on): nothing is left to resume."""
    for kind in ("match", "secrets"):
        with contextlib.suppress(FileNotFoundError):
            resume_path(role, kind).unlink()


class ResumableWriter(ReplayWriter):
    """A replay writer that also records our position in the chain after each record.

    A new match starts keeping its resume state (replacing an older one) at
    the first record of the opponent: a process that only sent its hello to
    someone who turns out to be resuming an earlier match replaces nothing.
    That is still before any record made from a secret is sent (the first is
    the coin commitment, after both hellos).
    """

    def __init__(self, path: Path | str, info: MatchInfo, store: SecretStore) -> None:
        super().__init__(path)
        self.info = replace(info, replay=str(self.path))
        self.store = store
        if store.armed:
            self._save()

    def append(self, record: Record) -> None:
        super().append(record)
        if not self.store.armed and record.author != self.info.seat:
            self.store.arm()
        if self.store.armed:
            self._save()

    def truncate(self, keep: int) -> None:
        super().truncate(keep)
        if self.store.armed:
            self._save()

    def _save(self) -> None:
        head = self.records[-1].digest if self.records else GENESIS
        self.info = replace(self.info, have=len(self.records), head=head)
        self.info.save()


def restore(peer: Peer, records: list[Record]) -> None:
    """Bring a fresh ``peer`` (fed the stored draws) to the state after ``records``.

    The other player's records are received as they were; ours are remade
    (automatic ones by the peer itself, moves and rules answers from the
    record) and must come out identical, or the secrets are not this
    match's. Records made but not yet in the file stay queued to be sent.
    """
    peer.start()
    queued = peer.data_to_send()
    for record in records:
        try:
            if record.author != peer.seat:
                peer.receive_data(record.encode())
                queued += peer.data_to_send()
                continue
            if not queued:
                _decide_again(peer, msg.decode(record.body, peer.seat))
                queued += peer.data_to_send()
        except (ProtocolError, EngineError, CryptoError) as exc:
            raise ResumeError(
                f"record {record.seq} of the replay cannot be replayed ({exc}); cannot resume"
            ) from None
        if not queued or queued[0].encode() != record.encode():
            raise ResumeError(
                f"our record {record.seq} in the replay is not what our stored secrets make: "
                "the secrets are not this match's; cannot resume"
            )
        queued.pop(0)
    peer.requeue(queued)


def _decide_again(peer: Peer, body: msg.Message) -> None:
    """Replay one of our own decisions as the record shows it."""
    if isinstance(body, msg.Move):
        peer.play(body.move)
    elif isinstance(body, msg.Accept):
        peer.answer_rules(None)
    elif isinstance(body, msg.Refuse):
        peer.answer_rules(body.reason)
    elif isinstance(body, msg.Resign):
        peer.resign(body.reason)
    elif isinstance(body, msg.Abandoned):
        peer.claim_abandoned()


async def abandon(peer: Peer, channel: SecureChannel, writer: ReplayWriter, reason: str) -> None:
    """Without our secrets the match cannot go on: resynchronise, then resign it, signed.

    The chain is checked by a verifier machine (no secrets needed); records
    the other side holds and we lack are received first, so our resignation
    follows the head both sides hold and ends both replays alike.
    """
    machine = Machine()
    for record in writer.records:
        machine.receive(record)
    peer.machine = machine
    have = len(writer.records)
    await channel.send(resume_message(have, machine.chain.head))
    theirs = read_resume_message(await channel.recv())["have"]
    for record in writer.records[theirs:have]:
        await channel.send(record.encode())
    # Take the other's records until it waits on us: a resignation sent then crosses nothing.
    while (exp := machine.expected()) is not None and exp.author != peer.seat:
        record = Record.decode(await asyncio.wait_for(channel.recv(), _their_limit(machine)))
        machine.receive(record)
        writer.append(record)
    if not peer.can_end:
        channel.close(f"the other player {reason}"[:200])
        return
    peer.resign(reason)
    for record in peer.data_to_send():
        writer.append(record)
        await channel.send(record.encode())
    # Records that cross the resignation are void; wait for the other side's goodbye, so
    # that it reads the resignation before it sees the link close.
    with contextlib.suppress(TransportError, OSError, TimeoutError):
        async with asyncio.timeout(GOODBYE_WAIT):
            while True:
                await channel.recv()
    channel.close()
    writer.close()


def _their_limit(machine: Machine) -> float:
    """How long the other side may take for its next record (its move time, with a margin)."""
    return float(machine.move_seconds or 600) + MOVE_MARGIN
