"""Regenerate protocol/vectors/receipts.json: two joiners' receipts files and the fork in them.

Usage: python scripts/regen_receipts_vectors.py [--check]

The keys and table of fork_proof.json (host seed 0x50.., table SHA-256("p2p66
fork vector table")). The host receipts records 0 and 1 alike to seats 1
and 2, then shows each a different record 2: ``p2p66 replay fork`` on the two
files proves the fork at position 2 (protocol/REPLAY.md, "Receipts files").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import regenerate
from regen_fork_vectors import HOST, TABLE

from p2p66.replay.fork import ForkProof
from p2p66.replay.receipt_fork import find_fork
from p2p66.replay.receipts import (
    ReceiptsError,
    ReceiptsHeader,
    encode_entry,
    parse_receipts,
)
from p2p66.session.headacks import HeadAck, make_head_ack
from p2p66.session.records import GENESIS, Record, make_record

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "receipts.json"


def chain(last: bytes) -> list[Record]:
    """Records 0-2 of one history; ``last`` is the body of record 2."""
    zero = make_record(0, GENESIS, 0, b"hello", HOST.sign)
    one = make_record(1, zero.digest, 1, b"seat 1 plays", HOST.sign)
    return [zero, one, make_record(2, one.digest, 0, last, HOST.sign)]


def receipts_file(seat: int, records: list[Record]) -> bytes:
    receipts = [make_head_ack(TABLE, 0, r.seq, r.digest, HOST.sign) for r in records]
    return ReceiptsHeader(TABLE, HOST.public_key, seat).encode() + b"".join(
        encode_entry(r) for r in receipts
    )


def files() -> dict[str, bytes]:
    seat1 = receipts_file(1, chain(b"the real move"))
    seat2 = receipts_file(2, chain(b"a lie for seat 2"))
    forged = bytearray(seat2)
    forged[-1] ^= 1  # the last signature byte
    return {
        "seat 1": seat1,
        "seat 2": seat2,
        "torn: a crash cut the last entry": seat1[:-10],
        "invalid: entries out of order": seat1[:72] + seat1[72 + 104 : 72 + 208] + seat1[72:176],
        "invalid: not a receipts file": b"P66R\x00\x01\x00\x00",
        "forged: a flipped signature bit in seat 2's last entry": bytes(forged),
    }


def _entry(receipt: HeadAck) -> dict[str, Any]:
    return {"seq": receipt.seq, "head_hex": receipt.head.hex(), "sig_hex": receipt.signature.hex()}


def build() -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    for name, data in files().items():
        entry: dict[str, Any] = {"name": name, "hex": data.hex()}
        try:
            parsed = parse_receipts(data)
        except ReceiptsError as exc:
            entry["error"] = str(exc)
        else:
            entry["seat"] = parsed.header.seat
            entry["entries"] = [_entry(r) for r in parsed.entries]
            if parsed.torn is not None:
                entry["torn"] = parsed.torn
        out.append(entry)
    both = files()
    proof = find_fork(parse_receipts(both["seat 1"]), parse_receipts(both["seat 2"]))
    assert isinstance(proof, ForkProof)
    return {
        "description": "p2p66 receipts files (protocol/REPLAY.md, Receipts files)",
        "table_hex": TABLE.hex(),
        "host_public_key_hex": HOST.public_key.hex(),
        "files": out,
        "fork_of_seat_1_and_seat_2": {"hex": proof.encode().hex(), "position": 2},
    }


def main() -> int:
    return regenerate(OUT, build, __doc__)


if __name__ == "__main__":
    sys.exit(main())
