"""Regenerate protocol/vectors/canonical_forms.json: one value, one byte string.

Each vector is a message body (``layer: message``, decoded by the session
message decoder) or a hand payload (``layer: payload``, decoded by the
mental-poker payload decoder after the canonical msgpack decoder), with
``valid`` and, for an invalid one, ``rule``: the rule of protocol/SPEC.md
section 17.1 it breaks. A second implementation must accept exactly the
valid ones.

Usage: python scripts/regen_canonical_vectors.py [--check]
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import regenerate

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "canonical_forms.json"

KEY = bytes([5]) + bytes(31)  # the scalar 5: canonical and non-zero
HELLO = {"t": "hello", "v": 1, "name": "alice", "public_key": bytes(32), "software": "p2p66/1"}
MOVE = {"t": "move", "v": 1, "hand": 1, "move": "play:QS", "data": {}}
SEED = {"t": "seed", "hand": 1, "seat": 0, "seq": 9, "seed": b"s" * 32}
KEYS = {
    "t": "keys",
    "hand": 1,
    "seat": 0,
    "seq": 3,
    "reveals": [
        {"kind": "play", "pos": 0, "key": KEY, "card": 21},
        {"kind": "marriage", "pos": 2, "key": KEY, "card": 20, "with": 0},
    ],
}


def pack(value: Any) -> bytes:
    return bytes(msgpack.packb(value))


def fixmap(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return bytes([0x80 | len(pairs)]) + b"".join(k + v for k, v in pairs)


def pairs_of(body: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    return [(pack(k), pack(v)) for k, v in body.items()]


def replaced(body: dict[str, Any], key: str, raw: bytes) -> bytes:
    return fixmap([(k, raw if k == pack(key) else v) for k, v in pairs_of(body)])


def vectors() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(name: str, layer: str, data: bytes, rule: str | None = None) -> None:
        entry: dict[str, Any] = {"name": name, "layer": layer, "hex": data.hex()}
        entry["valid"] = rule is None
        if rule is not None:
            entry["rule"] = rule
        out.append(entry)

    add("hello", "message", pack(HELLO))
    add("move without payload", "message", pack(MOVE))
    add("move with a keys payload", "message", pack({**MOVE, "data": {"payload": KEYS}}))
    add("keys payload", "payload", pack(KEYS))
    add("seed payload", "payload", pack(SEED))
    add("unicode name", "message", pack({**HELLO, "name": "José Ñandú"}))

    wide = "smallest form"
    add("v as uint8", "message", replaced(HELLO, "v", b"\xcc\x01"), wide)
    add("v as uint64", "message", replaced(HELLO, "v", b"\xcf" + struct.pack(">Q", 1)), wide)
    add("hand as int16", "message", replaced(MOVE, "hand", b"\xd1\x00\x01"), wide)
    name = b"alice"
    add("name as str8", "message", replaced(HELLO, "name", b"\xd9\x05" + name), wide)
    add("name as str32", "message", replaced(HELLO, "name", b"\xdb\x00\x00\x00\x05" + name), wide)
    add("body as map16", "message", b"\xde\x00\x05" + fixmap(pairs_of(HELLO))[1:], wide)
    key = b"\xc5\x00\x20" + bytes(32)
    add("public_key as bin16", "message", replaced(HELLO, "public_key", key), wide)
    seed = b"\xc6\x00\x00\x00\x20" + b"s" * 32
    add("seed as bin32", "payload", replaced(SEED, "seed", seed), wide)

    twice = "no key twice"
    move = pairs_of(MOVE)
    add(
        "move twice",
        "message",
        fixmap([*move[:4], (pack("move"), pack("play:QH")), move[4]]),
        twice,
    )
    seed_pairs = pairs_of(SEED)
    add("seq twice", "payload", fixmap([*seed_pairs, (pack("seq"), pack(9))]), twice)

    order = "fixed key order"
    swapped = {"v": 1, **{k: v for k, v in HELLO.items() if k != "v"}}
    add("v before t", "message", pack(swapped), order)
    add("fields reversed", "message", pack(dict(reversed(list(HELLO.items())))), order)
    add("payload fields reversed", "payload", pack(dict(reversed(list(SEED.items())))), order)
    reveal = {"kind": "marriage", "pos": 2, "key": KEY, "with": 0, "card": 20}
    add("reveal with before card", "payload", pack({**KEYS, "reveals": [reveal]}), order)

    fields = "exact fields"
    add("unknown field", "message", pack({**HELLO, "x": 1}), fields)
    add(
        "missing field",
        "message",
        pack({k: v for k, v in HELLO.items() if k != "software"}),
        fields,
    )
    add("unknown field in data", "message", pack({**MOVE, "data": {"note": 1}}), fields)
    add(
        "payload and more in data",
        "message",
        pack({**MOVE, "data": {"payload": KEYS, "x": 1}}),
        fields,
    )
    add("unknown payload field", "payload", pack({**SEED, "x": 0}), fields)

    types = "exact types"
    add("v true", "message", pack({**HELLO, "v": True}), types)
    add("hand true", "message", pack({**MOVE, "hand": True}), types)
    add("name as bin", "message", pack({**HELLO, "name": b"alice"}), types)
    add("public_key as str", "message", pack({**HELLO, "public_key": "0" * 32}), types)
    add("hand as float", "message", pack({**MOVE, "hand": 1.0}), types)
    add("seat as float32", "payload", replaced(SEED, "seat", b"\xca\x00\x00\x00\x00"), types)
    add(
        "map key as bin",
        "message",
        fixmap([(b"\xc4\x01t", pack("hello")), *pairs_of(HELLO)[1:]]),
        types,
    )
    add("extension type", "message", replaced(HELLO, "name", b"\xd4\x01\x00"), types)
    add("invalid UTF-8", "message", replaced(HELLO, "name", b"\xa2\xc3\x28"), types)

    text = "plain text"
    for shown, bad in (("CR", "\r"), ("LF", "\n"), ("ESC", "\x1b"), ("RLO", "\u202e")):
        add(f"name with {shown}", "message", pack({**HELLO, "name": f"a{bad}b"}), text)
    add("reason with LF", "message", pack({"t": "resign", "v": 1, "reason": "x\ny"}), text)
    return out


def build() -> dict[str, Any]:
    return {
        "description": (
            "p2p66 canonical forms (protocol/SPEC.md 17.1): bodies and payloads a receiver "
            "must accept (valid) or refuse as malformed, naming the rule broken"
        ),
        "vectors": vectors(),
    }


def main() -> int:
    return regenerate(OUT, build, __doc__, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
