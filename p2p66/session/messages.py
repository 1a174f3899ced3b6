"""Session messages: typed values and their msgpack encoding (see protocol/SPEC.md).

Every message is one msgpack map with ``t`` (its type), ``v`` (the protocol
version) and the fields of its table in the spec, in that order, in canonical
msgpack (``canonical.unpack``). ``decode`` accepts exactly that and nothing
else: any other shape, an unknown field, a field of the wrong type (a bool is
not an int), text with control or bidirectional-formatting characters, is a
``RemoteProtocolError`` that says what was wrong. ``data`` is a map of fixed
shape per type (``DATA_FIELDS``) whose payloads are defined by the mental-poker
layer and checked there.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final

import msgpack

from p2p66.session.canonical import NonCanonical, ordered_keys, unpack
from p2p66.session.errors import RemoteProtocolError

PROTOCOL_VERSION: Final = 1
MAX_MESSAGE: Final = 60 * 1024


@dataclass(frozen=True, slots=True)
class Message:
    """Base of every message; ``TYPE`` is its ``t`` on the wire."""

    TYPE: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """First message of each side: who we are (the key must match the transport's)."""

    TYPE: ClassVar[str] = "hello"
    name: str
    public_key: bytes
    software: str


@dataclass(frozen=True, slots=True)
class Propose(Message):
    """Host -> joiner: the full rule options, the proof soundness and the move time limit."""

    TYPE: ClassVar[str] = "propose"
    options: dict[str, Any]
    soundness: int
    move_seconds: int


@dataclass(frozen=True, slots=True)
class Accept(Message):
    TYPE: ClassVar[str] = "accept"


@dataclass(frozen=True, slots=True)
class Refuse(Message):
    TYPE: ClassVar[str] = "refuse"
    reason: str


@dataclass(frozen=True, slots=True)
class CoinCommit(Message):
    """Commitment H(nonce) for the coin flip that fixes the session id and first dealer."""

    TYPE: ClassVar[str] = "coin-commit"
    commitment: bytes


@dataclass(frozen=True, slots=True)
class CoinReveal(Message):
    TYPE: ClassVar[str] = "coin-reveal"
    nonce: bytes


@dataclass(frozen=True, slots=True)
class Deal(Message):
    """One flight of the shuffle-and-deal of hand ``hand`` (mental-poker payload)."""

    TYPE: ClassVar[str] = "deal"
    hand: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Move(Message):
    """A move in RULES.md notation, with the card openings and keys it carries."""

    TYPE: ClassVar[str] = "move"
    hand: int
    move: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Keys(Message):
    """Card keys owed to the other player when no move of ours can carry them."""

    TYPE: ClassVar[str] = "keys"
    hand: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reveal(Message):
    """End of a hand: the author's hand seed (a mental-poker payload), for the audit."""

    TYPE: ClassVar[str] = "reveal"
    hand: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Resign(Message):
    """The author leaves the match on purpose (at any time): the other player wins."""

    TYPE: ClassVar[str] = "resign"
    reason: str


@dataclass(frozen=True, slots=True)
class Abandoned(Message):
    """The author's claim that ``player`` went silent owing record ``record`` (this one's
    sequence number) past the time limit and the reconnect grace: it wins by forfeit."""

    TYPE: ClassVar[str] = "abandoned"
    player: int
    record: int


MESSAGE_TYPES: Final[dict[str, type[Message]]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Propose,
        Accept,
        Refuse,
        CoinCommit,
        CoinReveal,
        Deal,
        Move,
        Keys,
        Reveal,
        Resign,
        Abandoned,
    )
}

_FIELD_TYPES: Final[dict[str, type]] = {
    "name": str,
    "public_key": bytes,
    "software": str,
    "options": dict,
    "soundness": int,
    "move_seconds": int,
    "reason": str,
    "commitment": bytes,
    "nonce": bytes,
    "hand": int,
    "data": dict,
    "move": str,
    "seed": bytes,
    "player": int,
    "record": int,
}
_FIXED_BYTES: Final = {"public_key": 32, "commitment": 32, "nonce": 32, "seed": 32}
_MAX_TEXT: Final = 200

DATA_FIELDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "deal": (("payloads",),),
    "move": ((), ("payload",)),
    "keys": (("payload",),),
    "reveal": (("payload",),),
}
"""The shapes ``data`` may take per message type: the keys, in order."""


def unsafe_text(text: str) -> str | None:
    """Why ``text`` may not travel in a message (None if it may).

    Refused: control, format (Cf: the bidirectional overrides and isolates, the
    zero-width characters), private-use, surrogate and unassigned characters,
    and the line and paragraph separators: all of them can rewrite what a
    terminal shows next to them.
    """
    for ch in text:
        category = unicodedata.category(ch)
        if category[0] == "C" or category in ("Zl", "Zp"):
            return f"it holds the character U+{ord(ch):04X} ({category})"
    return None


def encode(message: Message) -> bytes:
    """The canonical msgpack bytes of a message."""
    body: dict[str, Any] = {"t": message.TYPE, "v": PROTOCOL_VERSION}
    for f in fields(message):
        body[f.name] = getattr(message, f.name)
    data = msgpack.packb(body)
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"a {message.TYPE} message of {len(data)} bytes exceeds {MAX_MESSAGE}")
    return data


def decode(data: bytes, author: int | None = None) -> Message:
    """Parse message bytes; RemoteProtocolError (blaming ``author``) if malformed."""

    def bad(why: str) -> RemoteProtocolError:
        return RemoteProtocolError(f"malformed message: {why}", author)

    if len(data) > MAX_MESSAGE:
        raise bad(f"{len(data)} bytes is over the {MAX_MESSAGE}-byte limit")
    try:
        obj = unpack(data)
    except NonCanonical as exc:
        raise bad(str(exc)) from None
    if not isinstance(obj, dict):
        raise bad("a message must be a map")
    version = obj.get("v")
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise RemoteProtocolError(
            f"malformed message: protocol version {version!r} is not supported (this p2p66 "
            f"speaks version {PROTOCOL_VERSION})",
            author,
        )
    kind = obj.get("t")
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise bad(f"unknown message type {_shown(obj.get('t'))}")
    names = [f.name for f in fields(cls)]
    wrong = ordered_keys(obj, [("t", "v", *names)])
    if wrong is not None:
        raise bad(f"{cls.TYPE}: {wrong}")
    values: dict[str, Any] = {}
    for name in names:
        value = obj[name]
        expected = _FIELD_TYPES[name]
        if type(value) is not expected:
            raise bad(f"{cls.TYPE}.{name} must be {expected.__name__}")
        if isinstance(value, bytes) and name in _FIXED_BYTES and len(value) != _FIXED_BYTES[name]:
            raise bad(f"{cls.TYPE}.{name} must be {_FIXED_BYTES[name]} bytes")
        if isinstance(value, str):
            if len(value) > _MAX_TEXT:
                raise bad(f"{cls.TYPE}.{name} is longer than {_MAX_TEXT} characters")
            unsafe = unsafe_text(value)
            if unsafe is not None:
                raise bad(f"{cls.TYPE}.{name} is not plain text: {unsafe}")
        if isinstance(value, int) and not 0 <= value < 2**31:
            raise bad(f"{cls.TYPE}.{name} is out of range")
        if name == "data" and isinstance(value, dict):
            wrong = ordered_keys(value, DATA_FIELDS[cls.TYPE])
            if wrong is not None:
                raise bad(f"{cls.TYPE}.data: {wrong}")
        values[name] = value
    return cls(**values)


def _shown(value: object) -> str:
    """A peer's value in an error message: short, and never raw control characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
