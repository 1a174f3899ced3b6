"""The ``.p66`` replay file: a fixed preamble, then length + CRC framed records.

Layout (all integers big endian)::

    preamble  b"P66R" | format version (u16) | reserved (u16, zero)
    record*   payload length (u32) | CRC-32 of payload (u32) | payload (Record.encode())

``ReplayWriter`` appends and fsyncs each record as it is sent or received
(and a new file's directory), so a crash loses at most the record being
written. Opening an existing file for appending cuts a torn tail, and
refuses any other damage. ``ReplayReader`` reads a file one record at a
time, so memory does not grow with the file; it and ``read_replay`` never
raise anything but ``ReplayFormatError`` (not a replay at all) and return
damage as data.
"""

from __future__ import annotations

import errno
import io
import os
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from p2p66.session.records import Record, RecordError

MAGIC: Final = b"P66R"
FORMAT_VERSION: Final = 1
PREAMBLE: Final = MAGIC + struct.pack(">HH", FORMAT_VERSION, 0)
FRAME_HEAD: Final = struct.Struct(">II")
MAX_RECORD: Final = 64 * 1024


class ReplayFormatError(ValueError):
    """The file is not a readable p2p66 replay at all (exit code 2)."""


class ReplayWriteError(OSError):
    """The replay could not be written (disk full, permissions); what was written survives."""

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True, slots=True)
class Damage:
    """Where a file stops being readable, and why."""

    index: int  # number of the first record that could not be read
    offset: int  # byte offset where it starts
    kind: str  # "truncated" or "corrupt"
    detail: str


@dataclass(frozen=True, slots=True)
class ReplayFile:
    """The records read from a file, and the damage that stopped reading, if any."""

    version: int
    records: tuple[Record, ...]
    damage: Damage | None
    good_length: int  # bytes up to the end of the last good record


def read_preamble(head: bytes) -> int:
    """The format version of a file starting with ``head``; ReplayFormatError if no replay."""
    if len(head) == 0:
        raise ReplayFormatError("the file is empty: not a p2p66 replay")
    if not head.startswith(MAGIC):
        raise ReplayFormatError("not a p2p66 replay: the file does not start with 'P66R'")
    if len(head) < len(PREAMBLE):
        raise ReplayFormatError("not a p2p66 replay: the preamble is cut short")
    version: int
    reserved: int
    version, reserved = struct.unpack(">HH", head[4:8])
    if version != FORMAT_VERSION:
        newer = "a newer" if version > FORMAT_VERSION else "an unknown older"
        raise ReplayFormatError(
            f"replay format version {version} is {newer} format; this p2p66 reads version "
            f"{FORMAT_VERSION} (upgrade p2p66 to read it)"
        )
    if reserved != 0:
        raise ReplayFormatError(
            f"the preamble's reserved field is {reserved}, where format version "
            f"{FORMAT_VERSION} has 0: damage, or a format this p2p66 cannot read"
        )
    return int(version)


class ReplayReader:
    """Reads a replay from a binary stream one record at a time (memory: one record).

    Iterating yields the good records in order and stops at the first damage,
    which is then in ``damage``; nothing after it is read. ``offset`` is the
    byte offset after the last good record.
    """

    def __init__(self, stream: BinaryIO, size: int | None = None) -> None:
        self._stream = stream
        self._size = size  # the file's length, to say how much was left unread at damage
        self.version = read_preamble(stream.read(len(PREAMBLE)))
        self.offset = len(PREAMBLE)
        self.count = 0
        self.damage: Damage | None = None

    def __iter__(self) -> Iterator[Record]:
        while self.damage is None:
            record = self._next()
            if record is None:
                return
            yield record

    def _stop(self, kind: str, detail: str) -> None:
        left = None if self._size is None else self._size - self.offset
        if kind == "corrupt" and left is not None and left > MAX_RECORD + FRAME_HEAD.size:
            detail += f"; the {left} bytes from there to the end of the file were not read"
        self.damage = Damage(self.count, self.offset, kind, detail)

    def _next(self) -> Record | None:
        head = self._stream.read(FRAME_HEAD.size)
        if not head:
            return None
        if len(head) < FRAME_HEAD.size:
            self._stop("truncated", "the record header is cut short")
            return None
        length, crc = FRAME_HEAD.unpack(head)
        if length > MAX_RECORD:
            self._stop("corrupt", f"record length {length} is impossible (at most {MAX_RECORD})")
            return None
        payload = self._stream.read(length)
        if len(payload) < length:
            self._stop("truncated", f"the record is cut short ({len(payload)} of {length} bytes)")
            return None
        if zlib.crc32(payload) != crc:
            self._stop("corrupt", "CRC mismatch: the record's bytes were altered")
            return None
        try:
            record = Record.decode(payload)
        except RecordError as exc:
            self._stop("corrupt", str(exc))
            return None
        self.count += 1
        self.offset += FRAME_HEAD.size + length
        return record


def _collect(reader: ReplayReader) -> ReplayFile:
    records = tuple(reader)
    return ReplayFile(reader.version, records, reader.damage, reader.offset)


def parse_replay(data: bytes) -> ReplayFile:
    """Parse the bytes of a replay file."""
    return _collect(ReplayReader(io.BytesIO(data)))


@contextmanager
def open_replay(path: Path | str) -> Iterator[ReplayReader]:
    """A streaming reader of the file at ``path``; ReplayFormatError if it is no replay."""
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed by the context manager
    except IsADirectoryError:
        raise ReplayFormatError(f"{path} is a directory, not a replay file") from None
    except OSError as exc:
        raise ReplayFormatError(f"cannot read {path}: {exc.strerror or exc}") from None
    with stream:
        try:
            yield ReplayReader(stream, os.fstat(stream.fileno()).st_size)
        except IsADirectoryError:
            raise ReplayFormatError(f"{path} is a directory, not a replay file") from None


def read_replay(path: Path | str) -> ReplayFile:
    """Read a whole replay file; ReplayFormatError if it cannot be read as one at all."""
    try:
        with open_replay(path) as reader:
            return _collect(reader)
    except ReplayFormatError:
        raise
    except OSError as exc:
        raise ReplayFormatError(f"cannot read {path}: {exc.strerror or exc}") from None


def frame(record: Record) -> bytes:
    payload = record.encode()
    return FRAME_HEAD.pack(len(payload), zlib.crc32(payload)) + payload


class ReplayDamaged(ReplayWriteError):
    """An existing replay is damaged before its end: appending to it would bury the damage."""


class ReplayWriter:
    """Appends records durably. ``torn`` reports a torn tail cut off when reopening a file.

    Durable means: each record is written and ``fsync``ed before ``append``
    returns, and a new file's directory entry is ``fsync``ed when the file is
    created, so a record acted on survives a crash. ``fsync=False`` is for
    tests and throw-away files only. Reopening cuts only a torn tail (the
    file ends inside its last record, as a crash leaves it); any other damage
    (a CRC mismatch, an impossible length, a record that does not decode)
    raises ``ReplayDamaged`` and leaves the file as it is.
    """

    def __init__(self, path: Path | str, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self._fd = -1
        self.torn: Damage | None = None
        self.records: list[Record] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > 0:
                self._reopen()
            else:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                self._write(PREAMBLE)
                if fsync:
                    fsync_directory(self.path.parent)
        except ReplayFormatError as exc:
            raise ReplayDamaged(
                errno.EINVAL, f"cannot append to {self.path}: {exc}; the file is left as it is"
            ) from None
        except OSError as exc:
            if isinstance(exc, ReplayWriteError):
                raise
            raise _write_error(self.path, exc) from exc

    def _reopen(self) -> None:
        existing = read_replay(self.path)
        damage = existing.damage
        if damage is not None and damage.kind != "truncated":
            raise ReplayDamaged(
                errno.EINVAL,
                f"cannot append to {self.path}: record {damage.index} at byte {damage.offset} "
                f"is damaged ({damage.detail}), which is not a torn tail; the file is left "
                "as it is (run 'p2p66 verify' on it)",
            )
        self.records = list(existing.records)
        if damage is not None:
            self.torn = damage
            os.truncate(self.path, existing.good_length)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        if damage is not None and self._fsync:
            os.fsync(self._fd)

    def append(self, record: Record) -> None:
        """Write one record and make it durable before returning."""
        try:
            self._write(frame(record))
        except OSError as exc:
            raise _write_error(self.path, exc) from exc
        self.records.append(record)

    def truncate(self, keep: int) -> None:
        """Keep only the first ``keep`` records (a resignation voided the later ones)."""
        length = len(PREAMBLE) + sum(len(frame(r)) for r in self.records[:keep])
        try:
            os.ftruncate(self._fd, length)
            os.lseek(self._fd, length, os.SEEK_SET)  # a fresh file is not opened O_APPEND
            if self._fsync:
                os.fsync(self._fd)
        except OSError as exc:
            raise _write_error(self.path, exc) from exc
        del self.records[keep:]

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if self._fsync:
            os.fsync(self._fd)

    def sync(self) -> None:
        """Make everything written so far durable, with the file's directory entry: for a
        writer opened with ``fsync=False`` whose records nobody acted on one by one."""
        if self._fd >= 0:
            try:
                os.fsync(self._fd)
            except OSError as exc:
                raise _write_error(self.path, exc) from exc
            fsync_directory(self.path.parent)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def fsync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable (POSIX; a no-op where it cannot be done)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the file's own fsync still holds
    finally:
        os.close(fd)


def _write_error(path: Path, exc: OSError) -> ReplayWriteError:
    if exc.errno == errno.ENOSPC:
        text = (
            f"the disk is full: cannot write the replay {path}; the records written so far are kept"
        )
    else:
        text = f"cannot write the replay {path}: {exc.strerror or exc}"
    return ReplayWriteError(exc.errno or 0, text)
