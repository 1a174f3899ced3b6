"""Receipts side files: the vector parses as recorded, the decoder is fuzzed, the writer appends
durably, and two files that disagree make a fork proof any verifier accepts."""

from __future__ import annotations

import json
import os
import runpy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.replay.fork import ForkProof, check_fork_proof
from p2p66.replay.receipt_fork import Agreement, ReceiptsMismatch, find_fork
from p2p66.replay.receipts import (
    ENTRY,
    HEADER,
    MAX_RECEIPTS_BYTES,
    Receipts,
    ReceiptsError,
    ReceiptsHeader,
    ReceiptsWriter,
    parse_receipts,
    read_receipts,
)
from p2p66.session.headacks import make_head_ack

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors" / "receipts.json"
SCRIPT = ROOT / "scripts" / "regen_receipts_vectors.py"
NS = runpy.run_path(str(SCRIPT))
HOST, TABLE = NS["HOST"], NS["TABLE"]


def _vector() -> dict[str, dict[str, object]]:
    return {f["name"]: f for f in json.loads(VECTORS.read_text())["files"]}


def test_the_vector_file_is_what_the_script_builds() -> None:
    assert json.loads(VECTORS.read_text()) == json.loads(json.dumps(NS["build"]()))


def test_the_receipts_vectors_parse_as_recorded() -> None:
    for name, vector in _vector().items():
        data = bytes.fromhex(str(vector["hex"]))
        if "error" in vector:
            with pytest.raises(ReceiptsError) as caught:
                parse_receipts(data)
            assert str(caught.value) == vector["error"], name
            continue
        parsed = parse_receipts(data)
        assert parsed.header == ReceiptsHeader(TABLE, HOST.public_key, vector["seat"])
        got = [
            {"seq": r.seq, "head_hex": r.head.hex(), "sig_hex": r.signature.hex()}
            for r in parsed.entries
        ]
        assert got == vector["entries"], name
        assert parsed.torn == vector.get("torn"), name


def _file(name: str) -> Receipts:
    return parse_receipts(bytes.fromhex(str(_vector()[name]["hex"])))


def test_the_vector_files_prove_the_fork_at_position_2() -> None:
    proof = find_fork(_file("seat 1"), _file("seat 2"))
    assert isinstance(proof, ForkProof)
    expected = json.loads(VECTORS.read_text())["fork_of_seat_1_and_seat_2"]
    assert proof.encode().hex() == expected["hex"]
    verdict = check_fork_proof(proof.encode(), expect_table=TABLE, expect_key=HOST.public_key)
    assert (verdict.seat, verdict.position) == (0, expected["position"])


def test_a_forged_receipt_is_refused_naming_its_file() -> None:
    forged = _file("forged: a flipped signature bit in seat 2's last entry")
    with pytest.raises(ReceiptsMismatch, match=r"^B: the receipt for record 2 is not signed"):
        find_fork(_file("seat 1"), forged)


def _receipts(seat: int, heads: list[bytes], table: bytes = TABLE) -> Receipts:
    entries = tuple(make_head_ack(table, 0, i, h, HOST.sign) for i, h in enumerate(heads))
    return Receipts(ReceiptsHeader(table, HOST.public_key, seat), entries)


def test_two_files_that_agree_say_up_to_where() -> None:
    heads = [bytes([i]) * 32 for i in range(5)]
    found = find_fork(_receipts(1, heads), _receipts(2, heads[:3]))
    assert isinstance(found, Agreement)
    assert found.describe() == (
        "no fork: the two agree up to position 2 (one holds receipts up to 4, the other up to 2)"
    )
    empty = find_fork(_receipts(1, []), _receipts(2, heads))
    assert isinstance(empty, Agreement) and "no position in common" in empty.describe()


def test_files_of_two_matches_cannot_be_compared() -> None:
    other = bytes(32)
    with pytest.raises(ReceiptsMismatch, match="different matches"):
        find_fork(_receipts(1, [b"a" * 32]), _receipts(2, [b"a" * 32], table=other))


def test_the_writer_appends_and_fsyncs_and_a_reader_gets_it_back(tmp_path: Path) -> None:
    path = tmp_path / "game.p66.receipts"
    header = ReceiptsHeader(TABLE, HOST.public_key, 3)
    writer = ReceiptsWriter(path, header)
    acks = [make_head_ack(TABLE, 0, s, bytes([s]) * 32, HOST.sign) for s in (0, 1, 4)]
    for ack in acks:
        writer.keep(ack)
    writer.close()
    assert read_receipts(path) == Receipts(header, tuple(acks))
    assert path.stat().st_size == HEADER.size + 3 * ENTRY.size


def test_a_resumed_seat_appends_and_another_match_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "game.p66.receipts"
    header = ReceiptsHeader(TABLE, HOST.public_key, 2)
    acks = [make_head_ack(TABLE, 0, s, bytes([s]) * 32, HOST.sign) for s in range(4)]
    first = ReceiptsWriter(path, header, fsync=False)
    for ack in acks[:2]:
        first.keep(ack)
    first.close()
    with path.open("ab") as f:
        f.write(b"torn")  # the crash that ended the first process
    again = ReceiptsWriter(path, header, fsync=False)
    for ack in acks[1:]:  # position 1 comes again after the resume: kept once
        again.keep(ack)
    again.close()
    assert read_receipts(path) == Receipts(header, tuple(acks))
    other = ReceiptsHeader(bytes(32), HOST.public_key, 2)
    with pytest.raises(OSError, match="another match"):
        ReceiptsWriter(path, other)
    assert read_receipts(path).header == header


def test_a_failing_disk_stops_the_side_file_without_raising(tmp_path: Path) -> None:
    writer = ReceiptsWriter(tmp_path / "r", ReceiptsHeader(TABLE, HOST.public_key, 1))
    os.close(writer._fd)  # the file descriptor goes bad, as on a vanished disk
    writer.keep(make_head_ack(TABLE, 0, 0, b"h" * 32, HOST.sign))
    assert writer.failed is not None and "cannot write" in writer.failed
    writer.keep(make_head_ack(TABLE, 0, 1, b"h" * 32, HOST.sign))  # stays stopped


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.receipts"
    with path.open("wb") as f:
        f.truncate(MAX_RECEIPTS_BYTES + 1)  # sparse: no disk used
    with pytest.raises(ReceiptsError, match="too big"):
        read_receipts(path)
    with pytest.raises(ReceiptsError, match="directory"):
        read_receipts(tmp_path)
    with pytest.raises(ReceiptsError, match="cannot read"):
        read_receipts(tmp_path / "missing")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_the_receipts_decoder_raises_only_its_error(data: bytes) -> None:
    try:
        parsed = parse_receipts(data)
    except ReceiptsError:
        return
    seqs = [r.seq for r in parsed.entries]
    assert seqs == sorted(set(seqs))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=3 * ENTRY.size + HEADER.size), st.integers(0, 255))
def test_any_damage_to_a_good_file_is_an_error_a_tear_or_a_failed_signature(
    at: int, flip: int
) -> None:
    good = bytes.fromhex(str(_vector()["seat 1"]["hex"]))
    bad = bytearray(good)
    if at < len(bad):
        bad[at] ^= flip or 1
    else:
        del bad[HEADER.size + 50 :]
    try:
        parsed = parse_receipts(bytes(bad))
    except ReceiptsError:
        return
    other = parse_receipts(good)
    try:
        found = find_fork(parsed, other)
    except ReceiptsMismatch:
        return
    assert isinstance(found, Agreement)  # what survives unflagged is a prefix of the truth
