"""Regenerate protocol/vectors/session_messages.json: exact bytes of session messages.

Usage: python scripts/regen_session_vectors.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import regenerate

from p2p66.engine import preset
from p2p66.session import messages as msg
from p2p66.session.records import GENESIS, make_record

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "session_messages.json"
KEY_SEED = bytes([7]) * 32


def examples() -> list[msg.Message]:
    keys = {"t": "keys", "hand": 1, "seat": 0, "seq": 3, "reveals": []}
    return [
        msg.Hello("alice", bytes(range(32)), "p2p66/0.1.0"),
        msg.Propose(preset("sixty-six").to_dict(), 80, 600),
        msg.Accept(),
        msg.Refuse("I only play schnapsen"),
        msg.CoinCommit(bytes([1]) * 32),
        msg.CoinReveal(bytes([2]) * 32),
        msg.Deal(1, {"payloads": [keys]}),
        msg.Move(1, "marry:QH", {"payload": keys}),
        msg.Keys(1, {"payload": keys}),
        msg.Reveal(
            1, {"payload": {"t": "seed", "hand": 1, "seat": 0, "seq": 9, "seed": b"s" * 32}}
        ),
        msg.Resign("tired"),
        msg.Abandoned(1, 42),
    ]


def build() -> dict[str, Any]:
    key = Ed25519PrivateKey.from_private_bytes(KEY_SEED)
    vectors = []
    for message in examples():
        vectors.append({"type": message.TYPE, "hex": msg.encode(message).hex()})
    body = msg.encode(msg.Accept())
    record = make_record(0, GENESIS, 1, body, key.sign)
    return {
        "description": "p2p66 session messages and one signed record (protocol/SPEC.md 17-18)",
        "messages": vectors,
        "record": {
            "key_seed_hex": KEY_SEED.hex(),
            "public_key_hex": key.public_key().public_bytes_raw().hex(),
            "seq": 0,
            "prev_hex": GENESIS.hex(),
            "author": 1,
            "body_hex": body.hex(),
            "encoded_hex": record.encode().hex(),
            "sha256_hex": record.digest.hex(),
        },
    }


def main() -> int:
    return regenerate(OUT, build, __doc__)


if __name__ == "__main__":
    sys.exit(main())
