"""Signed, hash-chained records: the unit of the wire protocol and of the replay file.

Every protocol message is wrapped in a ``Record`` by its author: a sequence
number, the hash of the previous record, the author's seat, the message body
(msgpack bytes) and the author's Ed25519 signature over all of that. The
receiver checks and appends the very same bytes, so both peers' files are
identical, and anyone holding a file can check who said what, in what order.

Record encoding (``Record.encode``): a msgpack array
``[seq, prev, author, body, signature]``; its SHA-256 is the record's hash,
which the next record names as ``prev``. The first record's ``prev`` is
``GENESIS``. What is signed: ``SIGN_DOMAIN || seq (8 bytes big endian) ||
prev || author (1 byte) || SHA-256(body)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgpack

from p2p66.crypto.sigcheck import verify_ed25519

GENESIS: Final = hashlib.sha256(b"p2p66/replay/genesis/v1").digest()
SIGN_DOMAIN: Final = b"p2p66/record/v1\x00"
MAX_BODY: Final = 60 * 1024
MAX_PARTIES: Final = 8
HASH_SIZE: Final = 32
SIG_SIZE: Final = 64


class RecordError(ValueError):
    """A record that cannot be decoded, or whose chain or signature is wrong."""


@dataclass(frozen=True, slots=True)
class Record:
    """One signed message in the chain."""

    seq: int
    prev: bytes
    author: int
    body: bytes
    signature: bytes

    def signed_bytes(self) -> bytes:
        return signing_input(self.seq, self.prev, self.author, self.body)

    def encode(self) -> bytes:
        return msgpack.packb([self.seq, self.prev, self.author, self.body, self.signature])

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.encode()).digest()

    def verify_signature(self, public_key: bytes) -> bool:
        return verify_ed25519(public_key, self.signature, self.signed_bytes())

    @staticmethod
    def decode(data: bytes) -> Record:
        """Parse an encoded record; RecordError on anything malformed."""
        try:
            obj = msgpack.unpackb(data, raw=False, strict_map_key=True, max_bin_len=MAX_BODY)
        except Exception as exc:  # msgpack raises many types; all mean "malformed"
            raise RecordError(f"record is not valid msgpack: {exc}") from None
        if not (isinstance(obj, list) and len(obj) == 5):
            raise RecordError("record must be an array of 5 fields")
        seq, prev, author, body, sig = obj
        if not (isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq < 2**63):
            raise RecordError("record sequence number must be a non-negative integer")
        if not (isinstance(prev, bytes) and len(prev) == HASH_SIZE):
            raise RecordError("record prev must be 32 bytes")
        if isinstance(author, bool) or not isinstance(author, int) or not 0 <= author < MAX_PARTIES:
            raise RecordError("record author must be a seat from 0 to 7")
        if not isinstance(body, bytes):
            raise RecordError("record body must be bytes")
        if not (isinstance(sig, bytes) and len(sig) == SIG_SIZE):
            raise RecordError("record signature must be 64 bytes")
        record = Record(seq, prev, author, body, sig)
        if record.encode() != data:
            raise RecordError("record is not in canonical encoding")
        return record


def signing_input(seq: int, prev: bytes, author: int, body: bytes) -> bytes:
    return (
        SIGN_DOMAIN
        + seq.to_bytes(8, "big")
        + prev
        + bytes([author])
        + hashlib.sha256(body).digest()
    )


def make_record(
    seq: int, prev: bytes, author: int, body: bytes, sign: Callable[[bytes], bytes]
) -> Record:
    """Sign ``body`` as record ``seq`` after ``prev`` (``sign``: the author's Ed25519 key)."""
    return Record(seq, prev, author, body, sign(signing_input(seq, prev, author, body)))


class Chain:
    """The running head of a record chain: checks each next record's seq and prev."""

    def __init__(self) -> None:
        self.next_seq = 0
        self.head = GENESIS

    def check_next(self, record: Record) -> None:
        """RecordError unless ``record`` is the next one (right seq, right prev)."""
        if record.seq != self.next_seq:
            kind = "replayed or duplicated" if record.seq < self.next_seq else "skips records"
            raise RecordError(
                f"record {record.seq} is out of order ({kind}): record {self.next_seq} was expected"
            )
        if record.prev != self.head:
            raise RecordError(
                f"record {record.seq} does not chain to record {record.seq - 1} "
                "(its previous-hash is wrong: reordered, dropped or altered records)"
            )

    def advance(self, record: Record) -> None:
        self.next_seq = record.seq + 1
        self.head = record.digest
