"""The payloads parties exchange during a hand, as frozen value objects.

Each has ``to_wire() -> dict`` of msgpack-friendly values (bytes, int, str,
lists, None) and ``from_wire(obj)`` that checks every field and raises
``MalformedMessage`` on anything else, so whatever garbage arrives becomes
our error, never another exception. Decks and key lists travel as one byte
string of concatenated 32-byte points. Every payload carries the hand number,
the author's seat and the author's sequence number within the hand; they are
bound into the proofs, so a replayed or reordered message is caught.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Protocol

from p2p66.crypto.argument import argument_size
from p2p66.crypto.config import MAX_HAND, MAX_PARTIES, MAX_ROUNDS
from p2p66.crypto.errors import MalformedMessage
from p2p66.crypto.fastgroup import decode_public_points
from p2p66.crypto.group import (
    Point,
    Scalar,
    decode_point,
    decode_scalar,
    encode_scalar,
)
from p2p66.crypto.handkeys import SEED_BYTES
from p2p66.crypto.shuffle import shuffle_proof_size
from p2p66.engine.cards import NUM_CARD_IDS

MAX_SEQ: Final = 2**32 - 1
MAX_REVEALS: Final = 2 * NUM_CARD_IDS
MAX_PROOF_BYTES: Final = max(
    shuffle_proof_size(MAX_ROUNDS, NUM_CARD_IDS), argument_size(NUM_CARD_IDS)
)
DIGEST_BYTES: Final = 32

RevealKind = Literal["to", "public", "play", "marriage", "exchange", "take"]
REVEAL_KINDS: Final[tuple[RevealKind, ...]] = (
    "to",
    "public",
    "play",
    "marriage",
    "exchange",
    "take",
)


def _map(obj: object, kind: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    """``obj`` if it is a map with exactly ``keys``, in that order (one encoding per value)."""
    if not isinstance(obj, Mapping):
        raise MalformedMessage(f"a {kind} message must be a map, not {type(obj).__name__}")
    if tuple(obj) != keys:
        if set(obj) == set(keys):
            raise MalformedMessage(
                f"{kind} message: fields out of order; the order is {list(keys)}"
            )
        missing = [k for k in keys if k not in obj]
        extra = sorted(repr(k)[:40] for k in obj if k not in keys)
        raise MalformedMessage(f"{kind} message: missing fields {missing}, unknown fields {extra}")
    return obj


def _int(obj: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MalformedMessage(f"field {key!r} must be an integer {low}..{high}, not {value!r}")
    return value


def _bytes(obj: Mapping[str, Any], key: str, size: int | None = None, most: int = 0) -> bytes:
    value = obj[key]
    if not isinstance(value, bytes):
        raise MalformedMessage(f"field {key!r} must be bytes, not {type(value).__name__}")
    if size is not None and len(value) != size:
        raise MalformedMessage(f"field {key!r} must be {size} bytes, not {len(value)}")
    if most and len(value) > most:
        raise MalformedMessage(f"field {key!r} is longer than {most} bytes")
    return value


def _header(obj: Mapping[str, Any], kind: str) -> tuple[int, int, int]:
    if obj["t"] != kind:
        raise MalformedMessage(f"expected a {kind!r} message, got {obj['t']!r}")
    return (
        _int(obj, "hand", 0, MAX_HAND),
        _int(obj, "seat", 0, MAX_PARTIES - 1),
        _int(obj, "seq", 0, MAX_SEQ),
    )


class _Headed(Protocol):
    KIND: ClassVar[str]

    @property
    def hand(self) -> int: ...
    @property
    def seat(self) -> int: ...
    @property
    def seq(self) -> int: ...


def _head(msg: _Headed) -> dict[str, Any]:
    """The header every payload starts with; the order is part of the wire bytes."""
    return {"t": msg.KIND, "hand": msg.hand, "seat": msg.seat, "seq": msg.seq}


def _deck(obj: Mapping[str, Any], key: str) -> tuple[Point, ...]:
    data = _bytes(obj, key, most=32 * NUM_CARD_IDS)
    points = decode_public_points(data, None, f"field {key!r}")
    if len(points) < 2:
        raise MalformedMessage(f"field {key!r} must hold at least two points")
    return points


@dataclass(frozen=True, slots=True)
class ShuffleStep:
    """A party's lock-and-shuffle: the new deck, ``X = x*G``, its seed commitment, the proof."""

    KIND: ClassVar[str] = "shuffle"
    hand: int
    seat: int
    seq: int
    config: bytes
    commitment: bytes
    lock: Point
    deck: tuple[Point, ...]
    proof: bytes

    def to_wire(self) -> dict[str, Any]:
        return {
            **_head(self),
            "config": self.config,
            "commit": self.commitment,
            "lock": bytes(self.lock),
            "deck": b"".join(self.deck),
            "proof": self.proof,
        }

    @classmethod
    def from_wire(cls, obj: object) -> ShuffleStep:
        m = _map(obj, cls.KIND, _SHUFFLE_KEYS)
        hand, seat, seq = _header(m, cls.KIND)
        return cls(
            hand=hand,
            seat=seat,
            seq=seq,
            config=_bytes(m, "config", DIGEST_BYTES),
            commitment=_bytes(m, "commit", DIGEST_BYTES),
            lock=decode_point(m["lock"], "field 'lock'"),
            deck=_deck(m, "deck"),
            proof=_bytes(m, "proof", most=MAX_PROOF_BYTES),
        )


@dataclass(frozen=True, slots=True)
class RekeyStep:
    """A party's re-key: the new deck, the card-key commitments ``K_j``, the proof."""

    KIND: ClassVar[str] = "rekey"
    hand: int
    seat: int
    seq: int
    deck: tuple[Point, ...]
    keys: tuple[Point, ...]
    proof: bytes

    def to_wire(self) -> dict[str, Any]:
        return {
            **_head(self),
            "deck": b"".join(self.deck),
            "keys": b"".join(self.keys),
            "proof": self.proof,
        }

    @classmethod
    def from_wire(cls, obj: object) -> RekeyStep:
        m = _map(obj, cls.KIND, _REKEY_KEYS)
        hand, seat, seq = _header(m, cls.KIND)
        deck = _deck(m, "deck")
        keys = _deck(m, "keys")
        if len(keys) != len(deck):
            raise MalformedMessage("a rekey message needs one key commitment per deck position")
        return cls(
            hand=hand,
            seat=seat,
            seq=seq,
            deck=deck,
            keys=keys,
            proof=_bytes(m, "proof", most=MAX_PROOF_BYTES),
        )


@dataclass(frozen=True, slots=True)
class Reveal:
    """One card key revealed, and what for.

    ``to``: for the seat ``to`` (a private opening, e.g. a deal or a draw);
    ``public``: for everyone (the face-up trump); ``play``: the author plays
    the card it holds at ``pos``, naming it ``card``; ``marriage``: the author
    shows its card at ``pos`` as the partner of the card it plays at
    ``partner``; ``exchange``: the author gives its card at ``pos`` for the
    face-up card; ``take``: the author takes the face-up card into its hand.
    """

    kind: RevealKind
    pos: int
    key: Scalar
    to: int | None = None
    card: int | None = None
    partner: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in REVEAL_KINDS:
            raise MalformedMessage(f"unknown reveal kind {self.kind!r}")
        needs_to = self.kind == "to"
        needs_card = self.kind in ("play", "marriage", "exchange")
        needs_partner = self.kind == "marriage"
        if (self.to is not None) != needs_to:
            raise MalformedMessage(
                f"a {self.kind!r} reveal {'needs' if needs_to else 'takes no'} 'to'"
            )
        if (self.card is not None) != needs_card:
            raise MalformedMessage(
                f"a {self.kind!r} reveal {'needs' if needs_card else 'takes no'} 'card'"
            )
        if (self.partner is not None) != needs_partner:
            raise MalformedMessage(
                f"a {self.kind!r} reveal {'needs' if needs_partner else 'takes no'} 'with'"
            )

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "pos": self.pos, "key": encode_scalar(self.key)}
        if self.to is not None:
            out["to"] = self.to
        if self.card is not None:
            out["card"] = self.card
        if self.partner is not None:
            out["with"] = self.partner
        return out

    @classmethod
    def from_wire(cls, obj: object) -> Reveal:
        if not isinstance(obj, Mapping) or not {"kind", "pos", "key"} <= set(obj):
            raise MalformedMessage("a reveal is a map with at least 'kind', 'pos' and 'key'")
        kind = obj["kind"]
        if kind not in REVEAL_KINDS:
            raise MalformedMessage(f"unknown reveal kind {kind!r}")
        m = _map(obj, f"{kind!r} reveal", ("kind", "pos", "key", *_REVEAL_EXTRA[kind]))
        extra = {
            k: _int(m, k, 0, NUM_CARD_IDS - 1 if k != "to" else MAX_PARTIES - 1)
            for k in _REVEAL_EXTRA[kind]
        }
        return cls(
            kind=kind,
            pos=_int(m, "pos", 0, NUM_CARD_IDS - 1),
            key=decode_scalar(m["key"], "reveal key"),
            to=extra.get("to"),
            card=extra.get("card"),
            partner=extra.get("with"),
        )


_REVEAL_EXTRA: Final[dict[str, tuple[str, ...]]] = {
    "to": ("to",),
    "public": (),
    "play": ("card",),
    "marriage": ("card", "with"),
    "exchange": ("card",),
    "take": (),
}


@dataclass(frozen=True, slots=True)
class KeyReveal:
    """Card keys revealed by one party in one message (rides along with a game move)."""

    KIND: ClassVar[str] = "keys"
    hand: int
    seat: int
    seq: int
    reveals: tuple[Reveal, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            **_head(self),
            "reveals": [r.to_wire() for r in self.reveals],
        }

    @classmethod
    def from_wire(cls, obj: object) -> KeyReveal:
        m = _map(obj, cls.KIND, _KEYS_KEYS)
        hand, seat, seq = _header(m, cls.KIND)
        items = m["reveals"]
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_REVEALS:
            raise MalformedMessage(f"field 'reveals' must be a list of 1..{MAX_REVEALS} reveals")
        return cls(hand=hand, seat=seat, seq=seq, reveals=tuple(Reveal.from_wire(r) for r in items))


@dataclass(frozen=True, slots=True)
class SeedReveal:
    """A party's hand seed, revealed when the hand is over so anyone can audit it."""

    KIND: ClassVar[str] = "seed"
    hand: int
    seat: int
    seq: int
    seed: bytes

    def __repr__(self) -> str:
        return f"SeedReveal(hand={self.hand}, seat={self.seat}, seq={self.seq})"

    def to_wire(self) -> dict[str, Any]:
        return {
            **_head(self),
            "seed": self.seed,
        }

    @classmethod
    def from_wire(cls, obj: object) -> SeedReveal:
        m = _map(obj, cls.KIND, _SEED_KEYS)
        hand, seat, seq = _header(m, cls.KIND)
        return cls(hand=hand, seat=seat, seq=seq, seed=_bytes(m, "seed", SEED_BYTES))


HandPayload = ShuffleStep | RekeyStep | KeyReveal | SeedReveal

_HEADER: Final = ("t", "hand", "seat", "seq")
_SHUFFLE_KEYS: Final = (*_HEADER, "config", "commit", "lock", "deck", "proof")
_REKEY_KEYS: Final = (*_HEADER, "deck", "keys", "proof")
_KEYS_KEYS: Final = (*_HEADER, "reveals")
_SEED_KEYS: Final = (*_HEADER, "seed")
_DECODERS: Final[dict[str, Callable[[object], HandPayload]]] = {
    ShuffleStep.KIND: ShuffleStep.from_wire,
    RekeyStep.KIND: RekeyStep.from_wire,
    KeyReveal.KIND: KeyReveal.from_wire,
    SeedReveal.KIND: SeedReveal.from_wire,
}


def decode_payload(obj: object) -> HandPayload:
    """Any hand payload from its wire form, or MalformedMessage."""
    if not isinstance(obj, Mapping) or "t" not in obj:
        raise MalformedMessage("a hand payload is a map with a type field 't'")
    kind = obj["t"]
    decoder = _DECODERS.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        raise MalformedMessage(f"unknown hand payload type {kind!r}")
    return decoder(obj)
