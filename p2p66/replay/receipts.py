"""The ``.receipts`` side file: the host's signed receipts a joiner took in, kept for later.

The replay is the same bytes on every peer, so it cannot hold what only one
peer saw. A host that showed two joiners different records signed, for one
position, two different receipts; each joiner keeps the ones it received
in ``<replay>.receipts``, and ``p2p66 replay fork A.receipts B.receipts``
turns the first pair that disagrees into a fork proof (``p2p66.replay.fork``).

Layout (integers big endian; protocol/REPLAY.md, vector
protocol/vectors/receipts.json)::

    header  b"P66H" | version (u16) = 1 | seat (u8) | reserved (u8) = 0
            | table id (32 bytes) | host key (32 bytes)              72 bytes
    entry*  seq (u64) | head (32 bytes) | host signature (64 bytes)  104 bytes

An entry is the host's head acknowledgement (``HeadAck`` of seat 0) of
record ``seq``; entries are in strictly increasing ``seq`` order. The file is
append-only and each entry is ``fsync``ed as it is written, so a crash leaves
at most a torn last entry: readers report it and use the entries before it.
Nothing in the file needs trust: every entry is checked against the host key
in the header, and a proof built from it against the key the verifier expects.
"""

from __future__ import annotations

import contextlib
import errno
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p2p66.replay.fileio import ReplayWriteError, fsync_directory
from p2p66.session.headacks import HOST_SEAT, HeadAck
from p2p66.session.records import HASH_SIZE, MAX_PARTIES

MAGIC: Final = b"P66H"
VERSION: Final = 1
HEADER: Final = struct.Struct(">4sHBB32s32s")
ENTRY: Final = struct.Struct(">Q32s64s")
MAX_ENTRIES: Final = 1 << 20
"""More receipts than any match has records (a file beyond this is not a receipts file)."""
MAX_RECEIPTS_BYTES: Final = HEADER.size + MAX_ENTRIES * ENTRY.size


class ReceiptsError(ValueError):
    """The file is not a readable receipts file (the message says what is wrong)."""


@dataclass(frozen=True, slots=True)
class ReceiptsHeader:
    """Whose file it is: joiner ``seat`` at table ``table``, whose host has key ``host_key``."""

    table: bytes
    host_key: bytes
    seat: int

    def encode(self) -> bytes:
        return HEADER.pack(MAGIC, VERSION, self.seat, 0, self.table, self.host_key)


@dataclass(frozen=True, slots=True)
class Receipts:
    """What a receipts file holds: its header, its entries, and why reading stopped early."""

    header: ReceiptsHeader
    entries: tuple[HeadAck, ...]
    torn: str | None = None


def encode_entry(receipt: HeadAck) -> bytes:
    if receipt.seat != HOST_SEAT or receipt.receipt:
        raise ValueError("a receipts file holds the host's own acknowledgements")  # our bug
    return ENTRY.pack(receipt.seq, receipt.head, receipt.signature)


def decode_header(data: bytes) -> ReceiptsHeader:
    if not data:
        raise ReceiptsError("the file is empty: not a receipts file")
    if not data.startswith(MAGIC):
        raise ReceiptsError(f"not a receipts file: it does not start with {MAGIC.decode()!r}")
    if len(data) < HEADER.size:
        raise ReceiptsError(f"the header is cut short ({len(data)} of {HEADER.size} bytes)")
    _, version, seat, reserved, table, host_key = HEADER.unpack_from(data)
    if version != VERSION:
        raise ReceiptsError(
            f"receipts format version {version}: this p2p66 reads version {VERSION}"
        )
    if reserved != 0 or not 0 < seat < MAX_PARTIES:
        raise ReceiptsError(f"the header is damaged (seat {seat}, reserved byte {reserved})")
    return ReceiptsHeader(table, host_key, seat)


def parse_receipts(data: bytes) -> Receipts:
    """Parse a receipts file's bytes; ``ReceiptsError`` unless it is one (a torn last entry
    is no error: it is reported in ``torn``). Signatures are not checked here."""
    if len(data) > MAX_RECEIPTS_BYTES:
        raise ReceiptsError(
            f"{len(data)} bytes is too big for a receipts file (at most {MAX_RECEIPTS_BYTES})"
        )
    header = decode_header(data)
    body = memoryview(data)[HEADER.size :]
    whole, rest = divmod(len(body), ENTRY.size)
    entries: list[HeadAck] = []
    for k in range(whole):
        seq, head, sig = ENTRY.unpack_from(body, k * ENTRY.size)
        if entries and seq <= entries[-1].seq:
            raise ReceiptsError(
                f"entry {k} is for record {seq}, not after record {entries[-1].seq}: "
                "the file is damaged (its entries go in chain order)"
            )
        entries.append(HeadAck(HOST_SEAT, seq, head, sig))
    torn = None
    if rest:
        torn = f"the last entry is cut short ({rest} of {ENTRY.size} bytes; a crash tears it)"
    return Receipts(header, tuple(entries), torn)


def read_receipts(path: Path) -> Receipts:
    """``parse_receipts`` on a file, refusing a huge one before reading it."""
    try:
        size = path.stat().st_size
        if size > MAX_RECEIPTS_BYTES:
            raise ReceiptsError(
                f"{size} bytes is too big for a receipts file (at most {MAX_RECEIPTS_BYTES})"
            )
        data = path.read_bytes()
    except IsADirectoryError:
        raise ReceiptsError(f"{path} is a directory, not a receipts file") from None
    except OSError as exc:
        raise ReceiptsError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_receipts(data)


class ReceiptsWriter:
    """Appends the host's receipts to ``<replay>.receipts`` durably, as they come.

    ``keep`` never raises: a write that fails stops the side file (what was
    written is kept) and is reported in ``failed``, because losing the
    evidence file must not stop the match.
    """

    def __init__(self, path: Path, header: ReceiptsHeader, *, fsync: bool = True) -> None:
        if len(header.table) != HASH_SIZE or len(header.host_key) != HASH_SIZE:
            raise ValueError("a table id and a host key are 32 bytes")  # our caller's bug
        self.path = path
        self._fsync = fsync
        self.failed: str | None = None
        self.last = -1
        self._fd = -1
        try:
            if path.exists() and path.stat().st_size > 0:
                self._reopen(header)
            else:
                self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                self._write(header.encode())
                if fsync:
                    fsync_directory(path.parent)
        except OSError as exc:
            raise ReplayWriteError(
                exc.errno or errno.EIO, f"cannot write {path}: {exc.strerror or exc}"
            ) from None

    def _reopen(self, header: ReceiptsHeader) -> None:
        """The same seat of the same match again (a resumed process): keep what is there,
        cut a torn last entry, append. Anything else is never overwritten."""
        try:
            existing = read_receipts(self.path)
        except ReceiptsError as exc:
            raise OSError(
                errno.EEXIST, f"it is not a receipts file ({exc}); left as it is"
            ) from None
        if existing.header != header:
            raise OSError(errno.EEXIST, "it holds another match's receipts; left as it is")
        os.truncate(self.path, HEADER.size + len(existing.entries) * ENTRY.size)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self.last = existing.entries[-1].seq if existing.entries else -1

    def append(self, receipt: HeadAck) -> None:
        """Write one receipt and make it durable (``OSError`` if that fails). A position
        already kept (acknowledged again after a resume) is not written twice."""
        if receipt.seq <= self.last:
            return
        self._write(encode_entry(receipt))
        self.last = receipt.seq

    def keep(self, receipt: HeadAck) -> None:
        """``append``, except that a failure stops the side file instead of raising."""
        if self.failed is not None:
            return
        try:
            self.append(receipt)
        except OSError as exc:
            self.failed = f"cannot write {self.path}: {exc.strerror or exc}"
            self.close()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        if self._fsync:
            os.fsync(self._fd)

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):  # every entry was fsynced as it was written
                os.close(fd)
