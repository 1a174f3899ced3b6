"""Any size, bounded memory: the verifier streams, and a writer never buries damage."""

from __future__ import annotations

import os
import stat
import tracemalloc
from pathlib import Path

import pytest
from replaykit import REPLAYS
from test_replay_fileio import chain_of, write

from p2p66.replay.fileio import FRAME_HEAD, PREAMBLE, ReplayDamaged, ReplayWriter, read_replay
from p2p66.replay.report import ProblemKind, Status
from p2p66.replay.verify import verify_file

GIB = 1 << 30


def test_a_huge_sparse_tail_is_never_read(tmp_path: Path) -> None:
    path = tmp_path / "long.p66"
    good = (REPLAYS / "golden" / "rules-refused.p66").read_bytes()
    path.write_bytes(good)
    os.truncate(path, len(good) + GIB)  # a genuine game, then 1 GiB of zeros
    tracemalloc.start()
    try:
        report = verify_file(path).report
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024 * 1024
    assert report.status is Status.INVALID and report.problem is not None
    records = len(read_replay(REPLAYS / "golden" / "rules-refused.p66").records)
    assert report.problem.record == records and report.problem.kind is ProblemKind.CORRUPT
    assert f"the {GIB} bytes from there to the end of the file were not read" in (
        report.problem.message
    )


def test_reading_stops_at_the_first_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "g.p66"
    write(path, chain_of(3))
    with path.open("ab") as f:
        f.write(FRAME_HEAD.pack(70000, 0))  # an impossible length, then more
        f.write(b"\x00" * 100)
    damage = read_replay(path).damage
    assert damage is not None and damage.index == 3 and damage.kind == "corrupt"


def test_reopening_refuses_damage_that_is_not_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "g.p66"
    records = chain_of(6)
    write(path, records)
    data = bytearray(path.read_bytes())
    data[len(PREAMBLE) + 20] ^= 0x04  # one flipped bit in record 0
    path.write_bytes(bytes(data))
    with pytest.raises(ReplayDamaged, match=r"record 0 at byte 8 is damaged \(CRC"):
        ReplayWriter(path, fsync=False)
    assert path.read_bytes() == bytes(data)  # left as it was, nothing cut


def test_reopening_cuts_a_torn_tail_only(tmp_path: Path) -> None:
    path = tmp_path / "g.p66"
    records = chain_of(4)
    write(path, records)
    os.truncate(path, path.stat().st_size - 3)
    with ReplayWriter(path, fsync=False) as w:
        assert w.torn is not None and w.torn.kind == "truncated" and len(w.records) == 3
        w.append(records[3])
    assert read_replay(path).records == tuple(records)


def test_reopening_something_that_is_no_replay_refuses(tmp_path: Path) -> None:
    path = tmp_path / "g.p66"
    path.write_bytes(b"not a replay at all")
    with pytest.raises(ReplayDamaged, match="not a p2p66 replay"):
        ReplayWriter(path, fsync=False)
    assert path.read_bytes() == b"not a replay at all"


def test_a_new_file_and_its_directory_are_made_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with ReplayWriter(tmp_path / "new" / "g.p66") as w:
        assert synced == ["file", "dir"]  # the preamble, then the new directory entry
        w.append(chain_of(1)[0])
        assert synced[-1] == "file"
    synced.clear()
    with ReplayWriter(tmp_path / "fast.p66", fsync=False) as w:
        w.append(chain_of(1)[0])
        assert synced == []
        w.sync()
        assert synced == ["file", "dir"]
