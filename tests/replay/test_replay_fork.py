"""Equivocation proofs: the vectors verify (or fail) as recorded; decoders are fuzzed."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.replay.fork import (
    Evidence,
    ForkProof,
    ForkProofError,
    StatementLog,
    check_fork_file,
    check_fork_proof,
    decode_fork_proof,
)
from p2p66.session.headacks import HeadAck, HeadAckError, make_head_ack
from p2p66.session.records import GENESIS, make_record

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors" / "fork_proof.json"
SCRIPT = ROOT / "scripts" / "regen_fork_vectors.py"


def test_the_fork_vectors_verify_or_fail_as_recorded() -> None:
    data = json.loads(VECTORS.read_text())
    table = bytes.fromhex(data["table_hex"])
    host_key = bytes.fromhex(data["host_public_key_hex"])
    valid = 0
    for vector in data["proofs"]:
        raw = bytes.fromhex(vector["hex"])
        if "error" in vector:
            with pytest.raises(ForkProofError) as caught:
                check_fork_proof(raw)
            assert str(caught.value) == vector["error"]
            continue
        valid += 1
        verdict = check_fork_proof(raw, expect_table=table, expect_key=host_key)
        assert (verdict.seat, verdict.position) == (vector["seat"], vector["position"])
        assert verdict.first != verdict.second
        assert "fork proven: the host (seat 0)" in verdict.describe()
    assert valid == 3


def test_the_fork_vectors_are_what_the_script_makes() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _valid_proof() -> bytes:
    return bytes.fromhex(json.loads(VECTORS.read_text())["proofs"][0]["hex"])


def test_a_proof_for_another_match_or_key_is_refused() -> None:
    raw = _valid_proof()
    with pytest.raises(ForkProofError, match="another match"):
        check_fork_proof(raw, expect_table=b"\x00" * 32)
    with pytest.raises(ForkProofError, match="another key"):
        check_fork_proof(raw, expect_key=b"\x00" * 32)


def test_a_fork_file_is_checked_and_a_missing_one_named(tmp_path: Path) -> None:
    path = tmp_path / "fork.msgpack"
    path.write_bytes(_valid_proof())
    assert check_fork_file(path).position == 1
    with pytest.raises(ForkProofError, match="cannot read"):
        check_fork_file(tmp_path / "nothing")


def test_the_log_proves_a_joiner_contradicting_its_own_acknowledgement() -> None:
    ns = runpy.run_path(str(SCRIPT))
    host, joiner, table = ns["HOST"], ns["JOINER"], ns["TABLE"]
    keys = (host.public_key, joiner.public_key, joiner.public_key)
    log = StatementLog(table, keys)
    record = make_record(0, GENESIS, 0, b"x", host.sign)
    receipt = make_head_ack(table, 0, 0, record.digest, host.sign)
    said = make_head_ack(table, 1, 0, record.digest, joiner.sign, receipt=receipt.signature)
    assert log.add(Evidence(said, record)) is None
    assert log.stated(1, 0) == record.digest
    other = make_head_ack(table, 1, 0, b"\x09" * 32, joiner.sign, receipt=b"\x00" * 64)
    proof = log.add(Evidence(other))
    assert proof is not None
    verdict = check_fork_proof(proof.encode())
    assert (verdict.seat, verdict.position) == (1, 0)
    assert "seat 1" in verdict.describe()


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=400))
def test_fork_proof_decoder_raises_only_its_error(data: bytes) -> None:
    try:
        proof = decode_fork_proof(data)
    except ForkProofError:
        return
    assert proof.encode() == data


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=300))
def test_head_ack_decoder_raises_only_its_error(data: bytes) -> None:
    try:
        ack = HeadAck.decode(data)
    except HeadAckError:
        return
    assert ack.encode() == data


@settings(max_examples=200, derandomize=True)
@given(
    st.integers(0, 7),
    st.integers(0, 2**63 - 1),
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=64, max_size=64),
)
def test_head_acks_round_trip(seat: int, seq: int, head: bytes, sig: bytes) -> None:
    ack = HeadAck(seat, seq, head, sig, b"" if seat == 0 else sig)
    assert HeadAck.decode(ack.encode()) == ack


@settings(max_examples=100, derandomize=True)
@given(st.data())
def test_every_changed_byte_of_a_valid_proof_is_refused(data: st.DataObject) -> None:
    raw = bytearray(_valid_proof())
    index = data.draw(st.integers(0, len(raw) - 1))
    raw[index] ^= data.draw(st.integers(1, 255))
    with pytest.raises(ForkProofError):
        check_fork_proof(bytes(raw))


def test_proofs_encode_canonically() -> None:
    proof = decode_fork_proof(_valid_proof())
    assert isinstance(proof, ForkProof)
    assert decode_fork_proof(proof.encode()) == proof
