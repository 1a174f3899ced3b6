"""The ``.p66`` replay file: a fixed preamble, then length + CRC framed records.

Layout (all integers big endian)::

    preamble  b"P66R" | format version (u16) | reserved (u16, zero)
    record*   payload length (u32) | CRC-32 of payload (u32) | payload (Record.encode())

``ReplayWriter`` appends and fsyncs each record as it is sent or received,
so a crash loses at most the record being written. Opening an existing
file for appending finds a torn tail, reports it, and cuts it off before
anything is appended. ``read_replay`` never raises anything but
``ReplayFormatError`` (not a replay at all) and returns damage as data.
"""

from __future__ import annotations

import errno
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

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


def parse_replay(data: bytes) -> ReplayFile:
    """Parse the bytes of a replay file."""
    if len(data) == 0:
        raise ReplayFormatError("the file is empty: not a p2p66 replay")
    if not data.startswith(MAGIC):
        raise ReplayFormatError("not a p2p66 replay: the file does not start with 'P66R'")
    if len(data) < len(PREAMBLE):
        raise ReplayFormatError("not a p2p66 replay: the preamble is cut short")
    version, _reserved = struct.unpack(">HH", data[4:8])
    if version != FORMAT_VERSION:
        newer = "a newer" if version > FORMAT_VERSION else "an unknown older"
        raise ReplayFormatError(
            f"replay format version {version} is {newer} format; this p2p66 reads version "
            f"{FORMAT_VERSION} (upgrade p2p66 to read it)"
        )
    records: list[Record] = []
    offset = len(PREAMBLE)
    damage = None
    while offset < len(data):
        index = len(records)
        if len(data) - offset < FRAME_HEAD.size:
            damage = Damage(index, offset, "truncated", "the record header is cut short")
            break
        length, crc = FRAME_HEAD.unpack_from(data, offset)
        if length > MAX_RECORD:
            damage = Damage(index, offset, "corrupt", f"record length {length} is impossible")
            break
        start = offset + FRAME_HEAD.size
        payload = data[start : start + length]
        if len(payload) < length:
            damage = Damage(
                index,
                offset,
                "truncated",
                f"the record is cut short ({len(payload)} of {length} bytes)",
            )
            break
        if zlib.crc32(payload) != crc:
            damage = Damage(
                index, offset, "corrupt", "CRC mismatch: the record's bytes were altered"
            )
            break
        try:
            records.append(Record.decode(payload))
        except RecordError as exc:
            damage = Damage(index, offset, "corrupt", str(exc))
            break
        offset = start + length
    good = offset if damage is None else damage.offset
    return ReplayFile(version, tuple(records), damage, good)


def read_replay(path: Path | str) -> ReplayFile:
    """Read a replay file; ReplayFormatError if it cannot be read as one at all."""
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise ReplayFormatError(f"{path} is a directory, not a replay file") from None
    except OSError as exc:
        raise ReplayFormatError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_replay(data)


def frame(record: Record) -> bytes:
    payload = record.encode()
    return FRAME_HEAD.pack(len(payload), zlib.crc32(payload)) + payload


class ReplayWriter:
    """Appends records durably. ``torn`` reports a tail cut off when reopening a file."""

    def __init__(self, path: Path | str, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self._fsync = fsync
        self.torn: Damage | None = None
        self.records: list[Record] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > 0:
                existing = read_replay(self.path)
                self.records = list(existing.records)
                if existing.damage is not None:
                    self.torn = existing.damage
                    os.truncate(self.path, existing.good_length)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            else:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                self._write(PREAMBLE)
        except OSError as exc:
            raise _write_error(self.path, exc) from exc

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

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_error(path: Path, exc: OSError) -> ReplayWriteError:
    if exc.errno == errno.ENOSPC:
        text = (
            f"the disk is full: cannot write the replay {path}; the records written so far are kept"
        )
    else:
        text = f"cannot write the replay {path}: {exc.strerror or exc}"
    return ReplayWriteError(exc.errno or 0, text)
