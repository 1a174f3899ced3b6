"""Known-answer vectors: the files match the code byte for byte, and they say what they claim.

The second half re-checks the vectors with independent code paths (hashlib
directly, a fresh hand state fed the msgpack bytes), so a vector file that
was regenerated from broken code cannot pass by agreeing with itself.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest

from p2p66.crypto import (
    CheatingDetected,
    HandConfig,
    HandState,
    HandTranscript,
    MalformedMessage,
    audit,
    decode_payload,
)
from p2p66.crypto.group import decode_point, decode_scalar, hash_to_point
from p2p66.crypto.rekey import RekeyStatement, verify_rekey
from p2p66.crypto.shuffle import ShuffleStatement, verify_shuffle
from p2p66.engine.cards import CARD_CODES

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"


@cache
def regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "regen_vectors", ROOT / "scripts" / "regen_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def vector(name: str) -> Any:
    return json.loads((VECTORS / name).read_text())


def test_files_match_the_code_byte_for_byte() -> None:
    built = regen().build()
    assert sorted(built) == sorted(p.name for p in VECTORS.glob("crypto_*.json"))
    for name, text in built.items():
        assert (VECTORS / name).read_text() == text, (
            f"{name} is stale: run scripts/regen_vectors.py"
        )


def independent_hash(tag: str, fields: list[dict[str, Any]]) -> bytes:
    def enc(raw: bytes) -> bytes:
        return struct.pack(">I", len(raw)) + raw

    out = enc(tag.encode())
    for f in fields:
        if "int" in f:
            out += enc(struct.pack(">Q", f["int"]))
        elif "str" in f:
            out += enc(f["str"].encode())
        else:
            out += enc(bytes.fromhex(f["bytes"]))
    return hashlib.sha512(out).digest()


def test_encodings_vector() -> None:
    v = vector("crypto_encodings.json")
    for h in v["hash"]:
        assert independent_hash(h["tag"], h["fields"]).hex() == h["sha512"]
    session = bytes.fromhex(v["cards"]["session_id"])
    assert session.hex() == v["coin_flip"]["session_id"]
    for entry in v["cards"]["points"]:
        h = independent_hash("p2p66/v1/card", [{"bytes": session.hex()}, {"int": entry["card"]}])
        assert hash_to_point(h).hex() == entry["point"]
        assert entry["code"] == CARD_CODES[entry["card"]]
    assert len({e["point"] for e in v["cards"]["points"]}) == 24
    for p in v["permutations"]:
        assert sorted(p["perm"]) == list(range(p["n"]))


def test_deal_vector_replays_from_its_bytes() -> None:
    v = vector("crypto_deal.json")
    config = HandConfig.from_wire(msgpack.unpackb(bytes.fromhex(v["config_msgpack"]), raw=False))
    assert config.digest.hex() == v["config_digest"]
    state = HandState(config)
    assert [p.hex() for p in state.decks[0]] == v["deck_d0"]
    payloads = []
    for flight in v["flights"]:
        for entry in flight["payloads"]:
            payload = decode_payload(msgpack.unpackb(bytes.fromhex(entry["msgpack"]), raw=False))
            assert payload.seat == flight["sender"]
            state.apply(payload)
            payloads.append(payload)
    assert [len(f["payloads"]) for f in v["flights"][:3]] == [1, 3, 2]  # the deal: 3 flights
    report = audit(HandTranscript(config, tuple(payloads)))
    assert [CARD_CODES[c] for c in report.deck] == v["audit_deck"]
    for seat, known in v["known"].items():
        for pos, code in known.items():
            assert v["audit_deck"][int(pos)] == code, (seat, pos)
    assert report.proofs_checked == 4


def test_proof_vectors_verify_and_are_sensitive() -> None:
    v = vector("crypto_proofs.json")
    s = v["shuffle"]
    points = {k: tuple(decode_point(bytes.fromhex(h), k) for h in s[k]) for k in ("d_in", "d_out")}
    stmt = ShuffleStatement(
        bytes.fromhex(s["ctx"]),
        points["d_in"],
        points["d_out"],
        decode_point(bytes.fromhex(s["lock_point"]), "X"),
    )
    proof = bytes.fromhex(s["proof"])
    assert len(proof) == 32 + 80 * (32 + 24)
    assert verify_shuffle(stmt, proof, 80) is None
    for index in (0, 40, 32 + 56 * 3 + 5, len(proof) - 1):
        bad = proof[:index] + bytes([proof[index] ^ 1]) + proof[index + 1 :]
        assert verify_shuffle(stmt, bad, 80) is not None
    r = v["rekey"]
    rstmt = RekeyStatement(
        bytes.fromhex(r["ctx"]),
        tuple(decode_point(bytes.fromhex(h), "d_in") for h in r["d_in"]),
        tuple(decode_point(bytes.fromhex(h), "d_out") for h in r["d_out"]),
        decode_point(bytes.fromhex(r["lock_point"]), "X"),
        tuple(decode_point(bytes.fromhex(h), "K") for h in r["key_points"]),
    )
    rproof = bytes.fromhex(r["proof"])
    assert verify_rekey(rstmt, rproof) is None
    assert verify_rekey(rstmt, rproof[:-1] + bytes([rproof[-1] ^ 1])) is not None


def test_invalid_encodings_are_malformed() -> None:
    v = vector("crypto_invalid.json")
    for p in v["points"]:
        with pytest.raises(MalformedMessage):
            decode_point(bytes.fromhex(p["hex"]), p["why"])
    for s in v["scalars"]:
        with pytest.raises(MalformedMessage):
            decode_scalar(bytes.fromhex(s["hex"]), s["why"])
    assert len(v["violations"]) == 8  # each is run by test_violations_raise_the_named_error
    for m in v["malformed_payloads"]:
        with pytest.raises(MalformedMessage):
            decode_payload(msgpack.unpackb(bytes.fromhex(m["msgpack"]), raw=False))


@pytest.mark.parametrize("index", range(8))
def test_violations_raise_the_named_error(index: int) -> None:
    v = vector("crypto_invalid.json")
    case = v["violations"][index]
    deal = vector("crypto_deal.json")
    config = HandConfig.from_wire(msgpack.unpackb(bytes.fromhex(deal["config_msgpack"]), raw=False))
    payloads = [
        decode_payload(msgpack.unpackb(bytes.fromhex(e["msgpack"]), raw=False))
        for f in deal["flights"]
        for e in f["payloads"]
    ]
    state = HandState(config)
    for i in case["apply"]:
        state.apply(payloads[i])
    bad = decode_payload(msgpack.unpackb(bytes.fromhex(case["then"]), raw=False))
    with pytest.raises(CheatingDetected) as err:
        state.apply(bad)
    assert (err.value.code, err.value.party) == (case["error"], case["party"]), case["name"]
