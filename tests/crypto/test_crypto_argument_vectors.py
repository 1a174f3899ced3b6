"""crypto_argument.json: the shuffle argument's known answers, re-checked by independent code.

The byte-for-byte match with the code is test_crypto_vectors.py's (every crypto_*.json);
here the statement hash and weights are recomputed with hashlib, the parts of the proof
must concatenate to it, and the deal replays from its msgpack bytes alone.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path
from typing import Any

import msgpack

from p2p66.crypto import HandConfig, HandState, HandTranscript, audit, decode_payload
from p2p66.crypto.argument import verify_argument
from p2p66.crypto.config import ARGUMENT, ProofKind
from p2p66.crypto.group import ORDER, decode_point
from p2p66.crypto.shuffle import ShuffleStatement
from p2p66.engine.cards import CARD_CODES

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "crypto_argument.json"


def vector() -> Any:
    return json.loads(VECTOR.read_text())


def enc(raw: bytes) -> bytes:
    return struct.pack(">I", len(raw)) + raw


def sha512(tag: str, *fields: bytes) -> bytes:
    return hashlib.sha512(enc(tag.encode()) + b"".join(enc(f) for f in fields)).digest()


def test_statement_hash_and_weights_by_hand() -> None:
    v = vector()["proof"]
    decks = [b"".join(bytes.fromhex(p) for p in v[k]) for k in ("d_in", "d_out")]
    ctx, lock = bytes.fromhex(v["ctx"]), bytes.fromhex(v["lock_point"])
    h = sha512("p2p66/v1/argument-statement", ctx, *decks, lock)
    assert h.hex() == v["statement_hash"]
    for i, w in enumerate(v["weights"]):
        wide = sha512("p2p66/v1/scalar", h, b"e", struct.pack(">Q", i), struct.pack(">Q", 0))
        assert (int.from_bytes(wide, "little") % ORDER).to_bytes(32, "little").hex() == w
    first = bytes.fromhex(
        v["gamma_point"] + v["lambda_point"] + v["f_point"] + "".join(v["y_points"])
    )
    t = int.from_bytes(sha512("p2p66/v1/argument-point", h, first), "little") % ORDER
    assert t.to_bytes(32, "little").hex() == v["t"]
    parts = [v["challenge"], *v["r"], *v["z"], v["z_gamma"], v["z_x"]]
    assert first.hex() + "".join(parts) == v["proof"]


def test_proof_verifies_and_every_byte_region_matters() -> None:
    v = vector()["proof"]
    stmt = ShuffleStatement(
        bytes.fromhex(v["ctx"]),
        tuple(decode_point(bytes.fromhex(p), "d_in") for p in v["d_in"]),
        tuple(decode_point(bytes.fromhex(p), "d_out") for p in v["d_out"]),
        decode_point(bytes.fromhex(v["lock_point"]), "X"),
    )
    proof = bytes.fromhex(v["proof"])
    assert len(proof) == 32 * (3 * 24 + 6)
    assert verify_argument(stmt, proof) is None
    for index in (0, 40, 70, 100, 32 * 27 + 1, 32 * 40, len(proof) - 33, len(proof) - 1):
        bad = proof[:index] + bytes([proof[index] ^ 1]) + proof[index + 1 :]
        assert verify_argument(stmt, bad) is not None, index


def test_deal_with_the_argument_replays_from_its_bytes() -> None:
    v = vector()["deal"]
    config = HandConfig.from_wire(msgpack.unpackb(bytes.fromhex(v["config_msgpack"]), raw=False))
    assert config.soundness == ARGUMENT and config.proof is ProofKind.ARGUMENT
    assert config.digest.hex() == v["config_digest"]
    state = HandState(config)
    payloads = []
    for flight in v["flights"]:
        for entry in flight["payloads"]:
            payload = decode_payload(msgpack.unpackb(bytes.fromhex(entry["msgpack"]), raw=False))
            assert payload.seat == flight["sender"]
            state.apply(payload)
            payloads.append(payload)
    assert [len(f["payloads"]) for f in v["flights"][:3]] == [1, 3, 2]  # still 3 deal flights
    assert state.proofs_checked == 4
    report = audit(HandTranscript(config, tuple(payloads)))
    assert [CARD_CODES[c] for c in report.deck] == v["audit_deck"]
