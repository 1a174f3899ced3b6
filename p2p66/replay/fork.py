"""Equivocation proofs: two signed statements by one seat that cannot both be true.

A *statement* is a seat's signed claim that record ``seq`` of the match's
chain hashes to ``h``. Head acknowledgements (``p2p66.session.headacks``) are
statements of their signer, and a joiner's acknowledgement is also one of the
host's (it carries the host's receipt). An acknowledgement that comes with
the record it names also states that record's ``prev``: position ``seq - 1``
hashes to ``prev``. An honest seat never makes two different statements
about one position of one chain, so two of them prove that the seat forked
(showed different chains to different players), without any secret.

Proof file (msgpack, canonical)::

    ["p2p66/fork/v1", table, seat, key, item_a, item_b]
    item = [ack] | [ack, record]          (encoded HeadAck, encoded Record)

``table`` (32 bytes) is the match's table id (the lobby's seating), which every
acknowledgement signature covers; ``key`` is the accused seat's identity key.
``check_fork_proof`` says which position the two items disagree on, or raises
``ForkProofError`` saying why the file proves nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import msgpack

from p2p66.net.identity import fingerprint
from p2p66.session.canonical import NonCanonical, unpack
from p2p66.session.headacks import HOST_SEAT, HeadAck, HeadAckError
from p2p66.session.records import GENESIS, HASH_SIZE, MAX_BODY, MAX_PARTIES, Record, RecordError

FORK_FORMAT: Final = "p2p66/fork/v1"
MAX_PROOF_BYTES: Final = 2 * MAX_BODY + 4096


class ForkProofError(ValueError):
    """The bytes are not a valid equivocation proof (the message says what is wrong)."""


class ForkProofUnreadable(ForkProofError):
    """Not a fork proof at all: unreadable, too big, or not of the proof's shape."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One signed item of a proof: an acknowledgement, maybe with the record it names."""

    ack: HeadAck
    record: Record | None = None

    def encode(self) -> list[bytes]:
        if self.record is None:
            return [self.ack.encode()]
        return [self.ack.encode(), self.record.encode()]

    def claims(self) -> dict[int, bytes]:
        """Position -> hash, as this item states it (checked by ``check_fork_proof``)."""
        said = {self.ack.seq: self.ack.head}
        if self.record is not None and self.record.seq > 0:
            said[self.record.seq - 1] = self.record.prev
        return said


@dataclass(frozen=True, slots=True)
class ForkProof:
    """Seat ``seat`` (key ``key``) stated two different hashes for one position of ``table``."""

    table: bytes
    seat: int
    key: bytes
    first: Evidence
    second: Evidence

    def encode(self) -> bytes:
        return msgpack.packb(
            [
                FORK_FORMAT,
                self.table,
                self.seat,
                self.key,
                self.first.encode(),
                self.second.encode(),
            ]
        )


@dataclass(frozen=True, slots=True)
class ForkVerdict:
    """What a valid proof shows: ``seat`` said ``first`` and ``second`` for record ``position``."""

    seat: int
    key: bytes
    position: int
    first: bytes
    second: bytes

    def describe(self) -> str:
        who = "the host (seat 0)" if self.seat == HOST_SEAT else f"seat {self.seat}"
        return (
            f"fork proven: {who} signed two different chains: record {self.position} "
            f"hashes to {self.first.hex()[:16]}... in one and {self.second.hex()[:16]}... "
            "in the other"
        )

    def statement(self, name: str | None = None) -> str:
        """What the proof shows, naming the accused (``name``: as a replay or pins know it)."""
        role = "host" if self.seat == HOST_SEAT else "player"
        who = f"{role} {name}" if name else role
        return (
            f"{who} (seat {self.seat}, key {fingerprint(self.key)}) showed two different "
            f"records at position {self.position}: it signed that record {self.position} "
            f"hashes to {self.first.hex()[:16]}... and to {self.second.hex()[:16]}..."
        )


def statement_signed_by(ack: HeadAck, seat: int, key: bytes, table: bytes) -> bool:
    """True if ``ack`` is a statement of ``seat`` (its own, or the host's receipt inside it)."""
    if ack.seat == seat:
        return ack.verify_signature(key, table)
    receipt = ack.host_receipt()
    return seat == HOST_SEAT and receipt is not None and receipt.verify_signature(key, table)


def conflict(first: Evidence, second: Evidence) -> int | None:
    """The lowest position the two items state different hashes for, if any."""
    a, b = first.claims(), second.claims()
    clashes = [pos for pos in a.keys() & b.keys() if a[pos] != b[pos]]
    return min(clashes) if clashes else None


def check_fork_proof(
    data: bytes, *, expect_table: bytes | None = None, expect_key: bytes | None = None
) -> ForkVerdict:
    """Check an equivocation proof with public data only; ``ForkProofError`` if it fails.

    ``expect_table`` / ``expect_key`` tie it to a match (e.g. a replay's table id
    and the accused seat's key there); without them the proof stands for itself.
    """
    proof = decode_fork_proof(data)
    if expect_table is not None and proof.table != expect_table:
        raise ForkProofError("the proof is about another match (its table id differs)")
    if expect_key is not None and proof.key != expect_key:
        raise ForkProofError("the proof accuses another key than this seat's")
    for name, item in (("first", proof.first), ("second", proof.second)):
        if not statement_signed_by(item.ack, proof.seat, proof.key, proof.table):
            raise ForkProofError(
                f"the {name} item is not signed by seat {proof.seat} for this table"
            )
        record = item.record
        if record is not None and (record.seq != item.ack.seq or record.digest != item.ack.head):
            raise ForkProofError(
                f"the {name} item's record is not the one its acknowledgement names"
            )
        if record is not None and record.seq == 0 and record.prev != GENESIS:
            raise ForkProofError(f"the {name} item's record 0 does not start a chain")
    position = conflict(proof.first, proof.second)
    if position is None:
        raise ForkProofError("the two items do not contradict each other: no fork is shown")
    return ForkVerdict(
        proof.seat,
        proof.key,
        position,
        proof.first.claims()[position],
        proof.second.claims()[position],
    )


def read_fork_file(path: Path) -> bytes:
    """A proof file's bytes; ``ForkProofUnreadable`` if it cannot be read or is too big."""
    try:
        if path.stat().st_size > MAX_PROOF_BYTES:
            raise ForkProofUnreadable(f"{path}: a fork proof has at most {MAX_PROOF_BYTES} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise ForkProofUnreadable(f"cannot read {path}: {exc.strerror or exc}") from None


def check_fork_file(path: Path) -> ForkVerdict:
    """``check_fork_proof`` on a file."""
    return check_fork_proof(read_fork_file(path))


def decode_fork_proof(data: bytes) -> ForkProof:
    """Parse a proof file's bytes (shape and canonical form only; no signature checks)."""
    if len(data) > MAX_PROOF_BYTES:
        raise ForkProofUnreadable(f"a fork proof has at most {MAX_PROOF_BYTES} bytes")
    try:
        obj = unpack(data)
    except NonCanonical as exc:
        raise ForkProofUnreadable(f"not a fork proof: {exc}") from None
    if not (isinstance(obj, list) and len(obj) == 6 and obj[0] == FORK_FORMAT):
        raise ForkProofUnreadable(
            f"not a fork proof: expected [{FORK_FORMAT!r}, table, seat, key, a, b]"
        )
    _, table, seat, key, first, second = obj
    if not (isinstance(table, bytes) and len(table) == HASH_SIZE):
        raise ForkProofUnreadable("the table id must be 32 bytes")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < MAX_PARTIES:
        raise ForkProofUnreadable("the accused seat must be 0 to 7")
    if not (isinstance(key, bytes) and len(key) == HASH_SIZE):
        raise ForkProofUnreadable("the accused key must be 32 bytes")
    return ForkProof(table, seat, key, _evidence(first, "first"), _evidence(second, "second"))


def _evidence(obj: object, name: str) -> Evidence:
    if not (
        isinstance(obj, list) and len(obj) in (1, 2) and all(isinstance(x, bytes) for x in obj)
    ):
        raise ForkProofUnreadable(f"the {name} item must be [ack] or [ack, record] (byte strings)")
    try:
        ack = HeadAck.decode(obj[0])
        record = Record.decode(obj[1]) if len(obj) == 2 else None
    except (HeadAckError, RecordError) as exc:
        raise ForkProofUnreadable(f"the {name} item is malformed: {exc}") from None
    return Evidence(ack, record)


class StatementLog:
    """Every statement a peer has seen, by signer and position: the first clash is a proof.

    ``add`` is called with each acknowledgement (and the record it names, if
    any) as it arrives; it returns the ``ForkProof`` the moment a signer
    contradicts itself, else ``None``. Signatures must be checked before.
    """

    def __init__(self, table: bytes, keys: tuple[bytes, ...]) -> None:
        self.table = table
        self.keys = keys
        self._said: dict[tuple[int, int], Evidence] = {}

    def add(self, evidence: Evidence) -> ForkProof | None:
        ack = evidence.ack
        signers = [ack.seat] if ack.seat == HOST_SEAT else [ack.seat, HOST_SEAT]
        for signer in signers:
            for position in evidence.claims():
                earlier = self._said.get((signer, position))
                if earlier is None:
                    self._said[(signer, position)] = evidence
                elif conflict(earlier, evidence) is not None:
                    return ForkProof(self.table, signer, self.keys[signer], earlier, evidence)
        return None

    def stated(self, signer: int, position: int) -> bytes | None:
        """The hash ``signer`` has stated for ``position`` so far, if any."""
        evidence = self._said.get((signer, position))
        return None if evidence is None else evidence.claims()[position]
