"""Regenerate protocol/vectors/fork_proof.json: equivocation proofs that verify, and ones that fail.

Usage: python scripts/regen_fork_vectors.py [--check]

Fixed Ed25519 seeds (host 0x50.., joiner 0x51..) and table id
SHA-256("p2p66 fork vector table"); the host signs two records at seq 1 and
receipts each to a different joiner (protocol/SPEC.md, "N-party topology
and equivocation").
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import regenerate

from p2p66.net.identity import Identity
from p2p66.replay.fork import FORK_FORMAT, Evidence, ForkProof, ForkProofError, check_fork_proof
from p2p66.session.headacks import make_head_ack
from p2p66.session.records import GENESIS, make_record

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "fork_proof.json"
TABLE = hashlib.sha256(b"p2p66 fork vector table").digest()
HOST = Identity.from_seed("host", bytes([0x50]) * 32)
JOINER = Identity.from_seed("joiner", bytes([0x51]) * 32)


def proofs() -> list[tuple[str, bytes]]:
    """(name, proof bytes): the valid ones first, then ones every checker must refuse."""
    first = make_record(0, GENESIS, 0, b"hello", HOST.sign)
    honest = make_record(1, first.digest, 0, b"the real move", HOST.sign)
    lie = make_record(1, first.digest, 0, b"another move", HOST.sign)

    def receipt(record_seq: int, head: bytes) -> Any:
        return make_head_ack(TABLE, 0, record_seq, head, HOST.sign)

    r_honest, r_lie = receipt(1, honest.digest), receipt(1, lie.digest)
    joiner_ack = make_head_ack(
        TABLE, 1, 1, lie.digest, JOINER.sign, receipt=r_lie.signature
    )  # a joiner shown the lie acknowledges it, the host's receipt inside
    key = HOST.public_key
    receipts = ForkProof(TABLE, 0, key, Evidence(r_honest, honest), Evidence(r_lie, lie))
    via_ack = ForkProof(TABLE, 0, key, Evidence(r_honest), Evidence(joiner_ack))
    later = make_record(2, lie.digest, 0, b"built on the lie", HOST.sign)
    via_prev = ForkProof(
        TABLE, 0, key, Evidence(r_honest), Evidence(receipt(2, later.digest), later)
    )
    same = ForkProof(TABLE, 0, key, Evidence(r_honest), Evidence(r_honest, honest))
    wrong_key = ForkProof(TABLE, 0, JOINER.public_key, Evidence(r_honest), Evidence(r_lie))
    other_table = hashlib.sha256(b"another match").digest()
    wrong_table = ForkProof(other_table, 0, key, Evidence(r_honest), Evidence(r_lie))
    mismatched = ForkProof(TABLE, 0, key, Evidence(r_honest, lie), Evidence(r_lie))
    return [
        ("two receipts with their records", receipts.encode()),
        ("a receipt against the receipt inside a joiner's acknowledgement", via_ack.encode()),
        ("a receipt against a later record's prev", via_prev.encode()),
        ("invalid: the same statement twice", same.encode()),
        ("invalid: signed by another key than the accused's", wrong_key.encode()),
        ("invalid: signatures made for another table", wrong_table.encode()),
        ("invalid: a record that is not the one its receipt names", mismatched.encode()),
        ("invalid: not canonical (the seat as uint8)", _wide_seat(receipts.encode())),
    ]


def _wide_seat(data: bytes) -> bytes:
    """The same proof with the seat written as a uint8 (0xcc 0x00), not a fixint."""
    at = 1 + len(msgpack.packb(FORK_FORMAT)) + len(msgpack.packb(TABLE))
    assert data[at] == 0
    return data[:at] + b"\xcc\x00" + data[at + 1 :]


def build() -> dict[str, Any]:
    vectors = []
    for name, data in proofs():
        entry: dict[str, Any] = {"name": name, "hex": data.hex()}
        try:
            verdict = check_fork_proof(data)
        except ForkProofError as exc:
            entry["error"] = str(exc)
        else:
            entry.update(seat=verdict.seat, position=verdict.position)
        vectors.append(entry)
    return {
        "description": "p2p66 equivocation proofs (protocol/SPEC.md, N-party topology)",
        "table_hex": TABLE.hex(),
        "host_public_key_hex": HOST.public_key.hex(),
        "joiner_public_key_hex": JOINER.public_key.hex(),
        "proofs": vectors,
    }


def main() -> int:
    return regenerate(OUT, build, __doc__)


if __name__ == "__main__":
    sys.exit(main())
