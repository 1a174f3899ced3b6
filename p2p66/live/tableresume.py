"""Restart-resume of a table seat: what a joiner of three or four keeps to survive being killed.

The two-player game's machinery (``p2p66.live.resume``) is reused: the same
private, atomic, fsynced files in ``<home>/resume/``, and the same
``SecretStore`` of every random draw the peer made (the coin nonce, then one
seed per hand, from which that hand's shuffle, lock and card keys derive),
saved before any record made from it is sent. What differs is the match file,
``resume/table-join.match``: the signed seating (every seat's name and key,
everybody's signature), our seat, where the host listens, and the replay
file. The replay itself is the chain so far (fsynced record by record, our
own records before they are sent). A restarted joiner replays that file
through a fresh ``Peer`` fed the stored draws (``resume.restore``: our own
records must come out bit for bit), then dials the host with the known-peer
handshake and resynchronises like any dropped link.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from p2p66.live.resume import ResumeError, SecretStore, forget, resume_path, write_private
from p2p66.live.starlink import REDIAL_PAUSE, Redial
from p2p66.net.channel import SecureChannel
from p2p66.net.errors import ConnectFailed, TransportError
from p2p66.net.identity import Identity, PeerIdentity
from p2p66.net.lobby import SeatedPeers, Table
from p2p66.net.seating import MalformedLobbyMessage, Seating
from p2p66.net.tcp import join_known

ROLE = "table-join"


@dataclass(frozen=True, slots=True)
class TableMatch:
    """The non-secret half of a joiner's table match: who sits where, and where the host is."""

    seating: Seating
    signatures: tuple[bytes, ...]
    seat: int
    host: str
    port: int
    replay: str

    def save(self) -> None:
        fields = {
            **seating_fields(self.seating, self.signatures),
            "seat": self.seat,
            "host": self.host,
            "port": self.port,
            "replay": self.replay,
        }
        write_private(resume_path(ROLE, "match"), msgpack.packb(fields))

    @classmethod
    def of(cls, table: Table, host: str, port: int, replay: Path) -> TableMatch:
        return cls(table.seating, table.signatures, table.seat, host, port, str(replay))

    @classmethod
    def load(cls) -> TableMatch | None:
        path = resume_path(ROLE, "match")
        obj = read_match(path)
        if obj is None:
            return None
        seating, sigs = seating_of(obj, path)
        try:
            match = cls(
                seating, sigs, int(obj["seat"]), str(obj["host"]), int(obj["port"]),
                str(obj["replay"]),
            )  # fmt: skip
        except (TypeError, ValueError, KeyError):
            raise ResumeError(f"{path} is damaged; the table match cannot be resumed") from None
        if not 1 <= match.seat < len(seating.seats):
            raise ResumeError(f"{path} is damaged (no joiner's seat); cannot resume")
        return match

    def table(self, channel: Any) -> Table:
        """The seated table again, over a new channel to the host."""
        return Table(self.seating, self.signatures, self.seat, {0: channel})


def seating_fields(seating: Seating, signatures: tuple[bytes, ...]) -> dict[str, Any]:
    """The signed seating as a resume file keeps it (every seat's name and key, and every
    player's signature of it)."""
    body = seating.body()
    return {
        "nonce": body["nonce"],
        "preset": body["preset"],
        "seats": body["seats"],
        "signatures": list(signatures),
    }


def read_match(path: Path) -> Any:
    """The msgpack object in ``path``, or None if there is no such file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return msgpack.unpackb(data, raw=False)
    except (ValueError, msgpack.UnpackException):
        raise ResumeError(f"{path} is damaged; the table match cannot be resumed") from None


def seating_of(obj: Any, path: Path) -> tuple[Seating, tuple[bytes, ...]]:
    """The seating ``seating_fields`` kept in ``obj`` (read from ``path``), its signatures
    checked: a file whose seating not everybody signed is refused."""
    try:
        seats = tuple(PeerIdentity(str(name), bytes(key)) for name, key in obj["seats"])
        seating = Seating(bytes(obj["nonce"]), str(obj["preset"]), seats)
        sigs = tuple(bytes(s) for s in obj["signatures"])
        seating.check_signatures(list(sigs))
    except (TypeError, ValueError, KeyError, MalformedLobbyMessage):
        raise ResumeError(f"{path} is damaged; the table match cannot be resumed") from None
    except Exception as exc:  # a bad signature: not the seating everybody signed
        raise ResumeError(f"{path} does not hold a signed seating ({exc}); cannot resume") from None
    return seating, sigs


def table_match_kept() -> bool:
    """True if a joiner's table match can be resumed (``join --resume`` takes it first)."""
    return resume_path(ROLE, "match").exists()


def fresh_secrets() -> SecretStore:
    """The draws of a new table match, saved from the first (replacing an older match's)."""
    store = SecretStore(ROLE, [])
    store.arm()
    return store


def stored_secrets() -> SecretStore:
    store = SecretStore.load(ROLE)
    if store is None:
        raise ResumeError(
            f"{resume_path(ROLE, 'secrets')} is missing: the table match's secrets are lost"
        )
    return store


def forget_table() -> None:
    """The table match is over (or cannot go on): nothing is left to resume."""
    forget(ROLE)


def redial_host(match: TableMatch, identity: Identity) -> Redial:
    """Dial the table's host again: the known-peer handshake, and only the seated host's
    key will do (``NotThisMatch`` for any other)."""
    host = match.seating.seats[0]
    known = SeatedPeers([host])

    async def dial() -> SecureChannel:
        return await join_known(match.host, match.port, identity, known, expect_key=host)

    return dial


async def dial_within(dial: Redial, grace: float) -> SecureChannel:
    """The first channel ``dial`` gets within ``grace`` seconds (a restarted joiner's first
    contact: the host may not have seen the old link end yet, or be restarting too)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    last: Exception = ConnectFailed("no attempt was made")
    while (left := deadline - loop.time()) > 0:
        try:
            async with asyncio.timeout(left):
                channel = await dial()
        except (TransportError, OSError, TimeoutError) as exc:
            last = exc
            await asyncio.sleep(min(REDIAL_PAUSE, max(0.0, deadline - loop.time())))
            continue
        assert isinstance(channel, SecureChannel)
        return channel
    raise ConnectFailed(str(last) or "no answer in time")
