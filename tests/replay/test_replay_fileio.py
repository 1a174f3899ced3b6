"""The .p66 container: framing, chain checks, torn tails, write errors."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p66.replay.fileio import (
    PREAMBLE,
    ReplayFormatError,
    ReplayWriteError,
    ReplayWriter,
    parse_replay,
    read_replay,
)
from p2p66.session.records import GENESIS, Chain, Record, RecordError, make_record

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PUB = KEY.public_key().public_bytes_raw()


def chain_of(n: int) -> list[Record]:
    out, prev = [], GENESIS
    for i in range(n):
        r = make_record(i, prev, i % 2, f"body {i}".encode(), KEY.sign)
        out.append(r)
        prev = r.digest
    return out


def write(path: Path, records: list[Record]) -> None:
    with ReplayWriter(path, fsync=False) as w:
        for r in records:
            w.append(r)


def test_round_trip_and_signatures(tmp_path: Path) -> None:
    records = chain_of(5)
    write(tmp_path / "g.p66", records)
    f = read_replay(tmp_path / "g.p66")
    assert f.records == tuple(records) and f.damage is None
    chain = Chain()
    for r in f.records:
        chain.check_next(r)
        assert r.verify_signature(PUB)
        chain.advance(r)


def test_chain_rejects_replayed_skipped_and_reordered_records() -> None:
    a, b, c = chain_of(3)
    chain = Chain()
    chain.check_next(a)
    chain.advance(a)
    with pytest.raises(RecordError, match="replayed or duplicated"):
        chain.check_next(a)
    with pytest.raises(RecordError, match="skips records"):
        chain.check_next(c)
    forged = Record(1, GENESIS, b.author, b.body, b.signature)
    with pytest.raises(RecordError, match="does not chain"):
        chain.check_next(forged)


def test_forged_signature_fails() -> None:
    r = chain_of(1)[0]
    bad = Record(r.seq, r.prev, r.author, b"other body", r.signature)
    assert not bad.verify_signature(PUB)


def test_torn_tail_is_reported_and_cut_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "g.p66"
    records = chain_of(4)
    write(path, records)
    size = path.stat().st_size
    os.truncate(path, size - 7)
    f = read_replay(path)
    assert f.damage is not None and f.damage.kind == "truncated" and f.damage.index == 3
    w = ReplayWriter(path, fsync=False)
    assert w.torn is not None and w.torn.index == 3
    assert len(w.records) == 3
    w.append(records[3])
    w.close()
    assert read_replay(path).records == tuple(records)


def test_flipped_bit_is_a_crc_error(tmp_path: Path) -> None:
    path = tmp_path / "g.p66"
    write(path, chain_of(3))
    data = bytearray(path.read_bytes())
    data[len(PREAMBLE) + 20] ^= 0x04
    f = parse_replay(bytes(data))
    assert f.damage is not None and f.damage.kind == "corrupt" and "CRC" in f.damage.detail


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"hello world", "does not start with 'P66R'"),
        (b"P66R\x00", "cut short"),
        (b"P66R\x00\x09\x00\x00", "version 9 is a newer format"),
    ],
)
def test_not_a_replay(data: bytes, message: str) -> None:
    with pytest.raises(ReplayFormatError, match=message):
        parse_replay(data)


def test_directory_and_missing_file_are_format_errors(tmp_path: Path) -> None:
    with pytest.raises(ReplayFormatError, match="directory"):
        read_replay(tmp_path)
    with pytest.raises(ReplayFormatError, match="cannot read"):
        read_replay(tmp_path / "missing.p66")


def test_disk_full_keeps_what_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.p66"
    records = chain_of(3)
    w = ReplayWriter(path, fsync=False)
    w.append(records[0])

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(ReplayWriteError, match="disk is full"):
        w.append(records[1])
    monkeypatch.undo()
    w.close()
    assert read_replay(path).records == (records[0],)


@pytest.mark.parametrize(
    "payload", [b"\xc1", b"\x93\x01\x02\x03", b"\x95\x00\xc4\x01x\x00\xc4\x00\xc4\x00"]
)
def test_malformed_record_payloads(payload: bytes) -> None:
    with pytest.raises(RecordError):
        Record.decode(payload)


def test_truncate_drops_the_last_records_and_appends_after_them(tmp_path: Path) -> None:
    """A resignation that crossed our records voids them: the file is cut back, then goes on
    (whether the file was created by this writer or reopened)."""
    key = Ed25519PrivateKey.from_private_bytes(b"\x05" * 32)
    records = [make_record(i, GENESIS, 0, b"x" * (10 + i), key.sign) for i in range(4)]
    for reopen in (False, True):
        path = tmp_path / f"cut-{reopen}.p66"
        writer = ReplayWriter(path, fsync=False)
        for record in records[:3]:
            writer.append(record)
        if reopen:
            writer.close()
            writer = ReplayWriter(path, fsync=False)
        writer.truncate(2)
        writer.append(records[3])
        writer.close()
        read = read_replay(path)
        assert read.damage is None
        assert list(read.records) == [records[0], records[1], records[3]]
