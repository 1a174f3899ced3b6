"""Regenerate the mental-poker known-answer vectors in protocol/vectors/crypto_*.json.

Every input is fixed (hashes of labels), so the output is the same on every
run; tests rebuild the files in memory and compare them byte for byte.

    python scripts/regen_vectors.py          # rewrite the files
    python scripts/regen_vectors.py --check  # exit 1 if a file differs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack

from p2p66.crypto import (
    DealParty,
    HandConfig,
    HandPayload,
    KeyReveal,
    RekeyStep,
    Reveal,
    SeedReveal,
    ShuffleStep,
    audit,
)
from p2p66.crypto.argument import (
    argument_nonce_key,
    evaluation_point,
    prove_argument,
    weighted_sum,
    weights,
)
from p2p66.crypto.coinflip import CoinFlip, coin_commitment
from p2p66.crypto.config import ARGUMENT
from p2p66.crypto.encoding import card_points
from p2p66.crypto.group import ORDER, Point, Scalar, double, encode_scalar, mul_base
from p2p66.crypto.handkeys import HandSecrets, seed_commitment
from p2p66.crypto.hashing import (
    TAG_CARD,
    TAG_SEED_COMMIT,
    derive_permutation,
    derive_scalar,
    hash_fields,
)
from p2p66.crypto.memory import MemoryTable
from p2p66.crypto.rekey import RekeyStatement, prove_rekey, rekey_deck
from p2p66.crypto.shuffle import ShuffleStatement, lock_shuffle, prove_shuffle
from p2p66.engine.cards import CARD_CODES
from p2p66.engine.options import preset

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DEAL_SOUNDNESS = 12


def fixed(label: str) -> bytes:
    """A fixed 32-byte input: SHA-256 of a label."""
    return hashlib.sha256(b"p2p66 vectors/" + label.encode()).digest()


def hexes(points: tuple[Point, ...] | list[bytes]) -> list[str]:
    return [p.hex() for p in points]


def jsonable(value: Any) -> Any:
    """A wire value for people: bytes as hex strings (the msgpack hex is the exact form)."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def packed(wire: Any) -> str:
    return bytes(msgpack.packb(wire, use_bin_type=True)).hex()


def payload_entry(payload: HandPayload) -> dict[str, Any]:
    return {"wire": jsonable(payload.to_wire()), "msgpack": packed(payload.to_wire())}


# --- encodings -------------------------------------------------------------------


def coin_flip() -> dict[str, Any]:
    context = b"p2p66 vectors"
    nonces = [fixed(f"coin nonce {s}") for s in (0, 1)]
    flips = [CoinFlip(2, s, nonces[s], context) for s in (0, 1)]
    first = flips[0].start()
    reply = [*flips[1].start(), *[m for msg in first for m in flips[1].receive(msg)]]
    for msg in reply:
        for answer in flips[0].receive(msg):
            flips[1].receive(answer)
    result = flips[0].result
    assert result is not None and result == flips[1].result
    return {
        "context": context.hex(),
        "nonces": hexes(nonces),
        "commitments": [coin_commitment(context, s, nonces[s]).hex() for s in (0, 1)],
        "session_id": result.session_id.hex(),
        "first_dealer": result.first_dealer,
    }


def session_id() -> bytes:
    return bytes.fromhex(coin_flip()["session_id"])


def encodings() -> dict[str, Any]:
    session = session_id()
    points = card_points(session)
    key = fixed("derivation key")
    return {
        "description": "hashing, card encodings, derivations and the coin flip (protocol/SPEC.md)",
        "hash": [
            {
                "tag": TAG_CARD,
                "fields": [{"bytes": session.hex()}, {"int": 5}],
                "sha512": hash_fields(TAG_CARD, session, 5).hex(),
            },
            {
                "tag": TAG_SEED_COMMIT,
                "fields": [{"bytes": "00" * 32}, {"int": 1}, {"bytes": "ff" * 32}],
                "sha512": hash_fields(TAG_SEED_COMMIT, bytes(32), 1, b"\xff" * 32).hex(),
            },
            {
                "tag": "p2p66/v1/example",
                "fields": [{"str": "lock"}, {"bytes": ""}, {"int": 2**64 - 1}],
                "sha512": hash_fields("p2p66/v1/example", "lock", b"", 2**64 - 1).hex(),
            },
        ],
        "cards": {
            "session_id": session.hex(),
            "points": [
                {"card": c, "code": CARD_CODES[c], "point": p.hex(), "double": double(p).hex()}
                for c, p in enumerate(points)
            ],
        },
        "scalars": [
            {
                "key": key.hex(),
                "label": label,
                "index": index,
                "scalar": encode_scalar(derive_scalar(key, label, index)).hex(),
            }
            for label, index in (("lock", 0), ("card-key", 0), ("card-key", 23), ("s", 79))
        ],
        "permutations": [
            {
                "key": key.hex(),
                "label": label,
                "index": index,
                "n": n,
                "perm": list(derive_permutation(key, label, index, n)),
            }
            for label, index, n in (("perm", 0, 24), ("perm", 0, 20), ("rho", 7, 24), ("rho", 0, 2))
        ],
        "coin_flip": coin_flip(),
    }


# --- a full two-party deal -----------------------------------------------------------


def deal_config() -> HandConfig:
    return HandConfig.for_game(preset("sixty-six"), session_id(), 0, 0, DEAL_SOUNDNESS)


def deal_seeds() -> dict[int, bytes]:
    return {s: fixed(f"hand seed {s}") for s in (0, 1)}


def played_deal() -> MemoryTable:
    """The vector hand: the deal, the non-dealer's lead, the dealer's answer, both seeds."""
    config = deal_config()
    seeds = deal_seeds()
    table = MemoryTable([DealParty(config, s, seeds[s]) for s in (0, 1)])
    table.deal()
    dealer, leader = table.parties
    table.send(1, leader.play(min(leader.hand())))
    table.send(0, dealer.play(min(dealer.hand())), dealer.reveal_to(13, 1))
    table.reveal_seeds()
    return table


def secrets_entry(config: HandConfig, seat: int, seed: bytes) -> dict[str, Any]:
    sec = HandSecrets.derive(config, seat, seed)
    return {
        "seat": seat,
        "seed": seed.hex(),
        "commitment": seed_commitment(config, seat, seed).hex(),
        "base": sec.base.hex(),
        "lock": encode_scalar(sec.lock).hex(),
        "lock_point": sec.lock_point().hex(),
        "perm": list(sec.perm),
        "card_keys": [encode_scalar(k).hex() for k in sec.keys],
        "key_points": hexes(sec.key_points()),
    }


def deal() -> dict[str, Any]:
    config = deal_config()
    table = played_deal()
    a, b = table.parties
    report = audit(a.transcript())
    return {
        "description": (
            "Sixty-Six, two players, seat 0 deals, soundness 12: the three deal flights, "
            "the non-dealer's lead, the dealer's answer with the key for the next draw, the seeds"
        ),
        "config": jsonable(config.to_wire()),
        "config_msgpack": packed(config.to_wire()),
        "config_digest": config.digest.hex(),
        "contexts": {
            "seat 0 seq 0 shuffle": config.context(0, 0, "shuffle").hex(),
            "seat 1 seq 1 rekey": config.context(1, 1, "rekey").hex(),
        },
        "deck_d0": hexes(a.state.decks[0]),
        "secrets": [secrets_entry(config, s, deal_seeds()[s]) for s in (0, 1)],
        "flights": [
            {
                "sender": f.sender,
                "phase": f.phase,
                "payloads": [payload_entry(p) for p in f.payloads],
            }
            for f in table.flights
        ],
        "hands": {
            str(p.seat): {str(pos): CARD_CODES[c] for pos, c in sorted(p.hand().items())}
            for p in table.parties
        },
        "known": {
            str(p.seat): {str(pos): CARD_CODES[c] for pos, c in sorted(p.known_cards().items())}
            for p in table.parties
        },
        "audit_deck": [CARD_CODES[c] for c in report.deck],
        "transcript_equal": a.transcript() == b.transcript(),
    }


# --- proofs -------------------------------------------------------------------------


def proofs() -> dict[str, Any]:
    session = session_id()
    n = 24
    d_in = card_points(session)[:n]
    base = fixed("prover base") * 2
    lock = derive_scalar(base, "lock", 0)
    perm = derive_permutation(base, "perm", 0, n)
    ctx = fixed("proof context")
    lock_point = mul_base(lock)
    d_out = lock_shuffle(d_in, lock, perm)
    shuffle_stmt = ShuffleStatement(ctx, d_in, d_out, lock_point)
    nonce_key = shuffle_stmt.nonce_key(base)
    keys = tuple(derive_scalar(base, "card-key", j) for j in range(n))
    inv = pow(lock, -1, ORDER)
    ratios = tuple(Scalar(k * inv % ORDER) for k in keys)
    rekeyed = rekey_deck(d_out, ratios)
    key_points = tuple(mul_base(k) for k in keys)
    rekey_stmt = RekeyStatement(ctx, d_out, rekeyed, lock_point, key_points)
    rekey_nonce = rekey_stmt.nonce_key(base)
    return {
        "description": "a lock-and-shuffle proof at soundness 80 and a re-key proof (SPEC.md)",
        "shuffle": {
            "soundness": 80,
            "ctx": ctx.hex(),
            "d_in": hexes(d_in),
            "base": base.hex(),
            "lock": encode_scalar(lock).hex(),
            "lock_point": lock_point.hex(),
            "perm": list(perm),
            "d_out": hexes(d_out),
            "nonce_key": nonce_key.hex(),
            "proof": prove_shuffle(shuffle_stmt, lock, perm, nonce_key=nonce_key, rounds=80).hex(),
        },
        "rekey": {
            "ctx": ctx.hex(),
            "d_in": hexes(d_out),
            "lock_point": lock_point.hex(),
            "card_keys": [encode_scalar(k).hex() for k in keys],
            "ratios": [encode_scalar(r).hex() for r in ratios],
            "d_out": hexes(rekeyed),
            "key_points": hexes(key_points),
            "nonce_key": rekey_nonce.hex(),
            "proof": prove_rekey(rekey_stmt, ratios, nonce_key=rekey_nonce).hex(),
        },
    }


# --- invalid cases --------------------------------------------------------------------


def _bit_flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1 :]


def invalid() -> dict[str, Any]:
    table = played_deal()
    payloads = list(table.parties[0].state.payloads)
    a_shuffle, _, b_rekey, b_keys = payloads[:4]
    assert isinstance(a_shuffle, ShuffleStep) and isinstance(b_rekey, RekeyStep)
    assert isinstance(b_keys, KeyReveal)
    base_point = mul_base(Scalar(1))
    wire = a_shuffle.to_wire()

    def case(
        name: str, prefix: int, bad: HandPayload, code: str, party: int | None
    ) -> dict[str, Any]:
        return {
            "name": name,
            "apply": list(range(prefix)),
            "then": packed(bad.to_wire()),
            "error": code,
            "party": party,
        }

    first_key = b_keys.reveals[0]
    leader_play = next(
        p for p in payloads if isinstance(p, KeyReveal) and p.seat == 1 and p.seq == 3
    )
    b_seed = payloads[-1] if payloads[-1].seat == 1 else payloads[-2]
    assert isinstance(b_seed, SeedReveal)
    return {
        "description": (
            "invalid encodings (must be refused as malformed) and protocol violations: to a fresh "
            "hand state of crypto_deal.json's config, apply the payloads 'apply' (indexes into the "
            "payloads of its flights, concatenated in order); then the payload 'then' must raise "
            "the error named, blaming 'party'"
        ),
        "points": [
            {"hex": "00" * 32, "why": "the identity"},
            {"hex": (base_point[:31] + bytes([base_point[31] | 0x80])).hex(), "why": "top bit set"},
            {"hex": "ff" * 32, "why": "not a canonical field element"},
            {"hex": "01" + "00" * 31, "why": "negative field element"},
            {"hex": base_point[:31].hex(), "why": "31 bytes"},
        ],
        "scalars": [
            {"hex": "00" * 32, "why": "zero"},
            {"hex": encode_scalar(ORDER - 1)[:31].hex() + "ff", "why": "not below the order"},
            {"hex": ORDER.to_bytes(32, "little").hex(), "why": "equal to the order"},
        ],
        "malformed_payloads": [
            {
                "msgpack": packed({**wire, "deck": wire["deck"][:-1]}),
                "why": "deck not whole points",
            },
            {"msgpack": packed({**wire, "seat": True}), "why": "a boolean seat"},
            {"msgpack": packed({**wire, "extra": 0}), "why": "an unknown field"},
            {"msgpack": packed({**wire, "t": "shuffled"}), "why": "an unknown type"},
            {"msgpack": packed({k: v for k, v in wire.items() if k != "lock"}), "why": "no lock"},
            {
                "msgpack": packed({**b_keys.to_wire(), "reveals": []}),
                "why": "a key message without reveals",
            },
        ],
        "violations": [
            case(
                "tampered shuffle proof",
                0,
                replace(a_shuffle, proof=_bit_flip(a_shuffle.proof, 100)),
                "invalid-shuffle-proof",
                0,
            ),
            case(
                "duplicated card",
                0,
                replace(a_shuffle, deck=(a_shuffle.deck[1], *a_shuffle.deck[1:])),
                "duplicated-card",
                0,
            ),
            case(
                "re-key by an unknown factor",
                2,
                replace(b_rekey, deck=(Point(double(b_rekey.deck[0])), *b_rekey.deck[1:])),
                "invalid-rekey",
                1,
            ),
            case(
                "wrong key for a private opening",
                3,
                replace(
                    b_keys,
                    reveals=(
                        replace(first_key, key=Scalar(first_key.key * 2 % ORDER)),
                        *b_keys.reveals[1:],
                    ),
                ),
                "wrong-key",
                1,
            ),
            case("replayed message", 1, a_shuffle, "replayed-message", 0),
            case("reordered message", 1, b_rekey, "out-of-order-message", 1),
            case(
                "play of a card never opened to the player",
                6,
                replace(
                    leader_play,
                    reveals=(Reveal("play", 3, table.parties[1].secrets.keys[3], card=0),),
                ),
                "not-your-card",
                1,
            ),
            case(
                "seed that does not match its commitment",
                len(payloads) - 2,
                replace(b_seed, seed=fixed("another seed")),
                "bad-seed-reveal",
                1,
            ),
        ],
    }


# --- the shuffle argument ---------------------------------------------------------------


def argument_proof() -> dict[str, Any]:
    """One argument over the 24 card points, with every intermediate value (SPEC.md 9.3)."""
    n = 24
    d_in = card_points(session_id())[:n]
    base = fixed("argument prover base") * 2
    lock = derive_scalar(base, "lock", 0)
    perm = derive_permutation(base, "perm", 0, n)
    stmt = ShuffleStatement(
        fixed("argument context"), d_in, lock_shuffle(d_in, lock, perm), mul_base(lock)
    )
    nonce_key = argument_nonce_key(stmt, base)
    proof = prove_argument(stmt, lock, perm, nonce_key=nonce_key)
    h, e = weights(stmt)
    first = proof[: 32 * (n + 3)]
    scalars = [proof[i : i + 32].hex() for i in range(len(first), len(proof), 32)]
    return {
        "ctx": stmt.ctx.hex(),
        "d_in": hexes(d_in),
        "base": base.hex(),
        "lock": encode_scalar(lock).hex(),
        "lock_point": stmt.lock.hex(),
        "perm": list(perm),
        "d_out": hexes(stmt.d_out),
        "nonce_key": nonce_key.hex(),
        "statement_hash": h.hex(),
        "weights": [encode_scalar(w).hex() for w in e],
        "weighted_input": weighted_sum(e, d_in).hex(),
        "gamma_point": first[:32].hex(),
        "lambda_point": first[32:64].hex(),
        "f_point": first[64:96].hex(),
        "y_points": [first[i : i + 32].hex() for i in range(96, len(first), 32)],
        "t": encode_scalar(evaluation_point(h, first)).hex(),
        "challenge": scalars[0],
        "r": scalars[1 : n + 1],
        "z": scalars[n + 1 : 2 * n + 1],
        "z_gamma": scalars[2 * n + 1],
        "z_x": scalars[2 * n + 2],
        "proof": proof.hex(),
    }


def argument_deal() -> dict[str, Any]:
    """The vector hand's deal again, with the shuffle argument (soundness 256)."""
    config = HandConfig.for_game(preset("sixty-six"), session_id(), 0, 0, ARGUMENT)
    seeds = deal_seeds()
    table = MemoryTable([DealParty(config, s, seeds[s]) for s in (0, 1)])
    table.deal()
    table.reveal_seeds()
    report = audit(table.parties[0].transcript())
    return {
        "config": jsonable(config.to_wire()),
        "config_msgpack": packed(config.to_wire()),
        "config_digest": config.digest.hex(),
        "flights": [
            {
                "sender": f.sender,
                "phase": f.phase,
                "payloads": [payload_entry(p) for p in f.payloads],
            }
            for f in table.flights
        ],
        "audit_deck": [CARD_CODES[c] for c in report.deck],
    }


def argument() -> dict[str, Any]:
    return {
        "description": (
            "the shuffle argument (SPEC.md 9.3): one proof with its intermediate values, and "
            "crypto_deal.json's hand dealt with soundness 256 (three deal flights, then the seeds)"
        ),
        "proof": argument_proof(),
        "deal": argument_deal(),
    }


def build() -> dict[str, str]:
    """File name -> exact file text."""
    files = {
        "crypto_encodings.json": encodings(),
        "crypto_deal.json": deal(),
        "crypto_proofs.json": proofs(),
        "crypto_invalid.json": invalid(),
        "crypto_argument.json": argument(),
    }
    return {name: json.dumps(data, indent=1) + "\n" for name, data in files.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = []
    for name, text in build().items():
        path = VECTORS / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path} ({len(text)} bytes)")
    if stale:
        print(f"out of date: {', '.join(stale)}; run scripts/regen_vectors.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
