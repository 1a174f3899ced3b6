"""Who sits where: the seating every player signs before a three- or four-player match.

The host proposes a ``Seating`` (a fresh nonce, the rule preset, and every
seat's name and identity key, the host at seat 0); its *table id* is the
SHA-256 of its canonical encoding, and every player signs
``SEATING_DOMAIN || table id`` to accept it. The table id then names the
match everywhere below (the star relay's acknowledgements sign it), so
nothing signed at one table counts at another.

Lobby messages (one channel DATA message each, msgpack maps in canonical
form, type under ``"t"``, version ``"v"`` 1):

=========  ==================  ==========================================
``t``      from                fields
=========  ==================  ==========================================
``wait``   host                ``seat``, ``seated``, ``of``: your seat so far
``seating`` host               ``nonce``, ``preset``, ``seats`` [[name, key]...], ``sig``
``accept`` joiner              ``sig`` (over the table id)
``refuse`` joiner              ``reason``
``void``   host                ``reason``: the seating is off, wait again
``start``  host                ``sigs``: every seat's signature, in seat order
=========  ==================  ==========================================
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from p2p66.net.errors import MalformedFrame
from p2p66.net.identity import PUBLIC_KEY_SIZE, SIGNATURE_SIZE, PeerIdentity, check_name

SEATING_DOMAIN: Final = b"p2p66/seating/v1\x00"
VERSION: Final = 1
NONCE_SIZE: Final = 32
MIN_SEATS: Final = 3
MAX_SEATS: Final = 8
MAX_TEXT: Final = 200
MAX_LOBBY_MESSAGE: Final = 4096
_NOT_PLAIN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class MalformedLobbyMessage(MalformedFrame):
    """A lobby message that breaks the format (the sender's fault; the text names it)."""


@dataclass(frozen=True, slots=True)
class Seating:
    """The seats of one table: ``seats[i]`` sits at seat ``i`` (the host at 0)."""

    nonce: bytes
    preset: str
    seats: tuple[PeerIdentity, ...]

    def body(self) -> dict[str, Any]:
        return {
            "nonce": self.nonce,
            "preset": self.preset,
            "seats": [[p.name, p.public_key] for p in self.seats],
        }

    @property
    def table_id(self) -> bytes:
        return hashlib.sha256(SEATING_DOMAIN + msgpack.packb(self.body())).digest()

    def signing_input(self) -> bytes:
        return SEATING_DOMAIN + self.table_id

    def check_signatures(self, sigs: list[bytes]) -> None:
        """``BadSignature`` naming the first seat whose signature does not verify."""
        if len(sigs) != len(self.seats):
            raise MalformedLobbyMessage(
                f"the start message has {len(sigs)} signatures for {len(self.seats)} seats"
            )
        for peer, sig in zip(self.seats, sigs, strict=True):
            peer.verify(sig, self.signing_input())


def encode(kind: str, **fields: object) -> bytes:
    return msgpack.packb({"t": kind, "v": VERSION, **fields})


_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "wait": ("seat", "seated", "of"),
    "seating": ("nonce", "preset", "seats", "sig"),
    "accept": ("sig",),
    "refuse": ("reason",),
    "void": ("reason",),
    "start": ("sigs",),
}


def decode(data: bytes, sender: str) -> dict[str, Any]:
    """One lobby message from ``sender`` (named in every error), checked field by field."""
    if len(data) > MAX_LOBBY_MESSAGE:
        raise MalformedLobbyMessage(
            f"{sender} sent a {len(data)}-byte lobby message; the limit is {MAX_LOBBY_MESSAGE}"
        )
    try:
        message = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises many types; all mean "malformed"
        raise MalformedLobbyMessage(
            f"{sender} sent a lobby message that is not msgpack: {exc}"
        ) from None
    kind = message.get("t") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(kind, str) or kind not in _FIELDS:
        raise MalformedLobbyMessage(f"{sender} sent an unknown lobby message")
    exact = type(message.get("v")) is int and message["v"] == VERSION
    if list(message) != ["t", "v", *_FIELDS[kind]] or not exact:
        raise MalformedLobbyMessage(
            f"{sender}'s {kind!r} message needs exactly t, v {VERSION}, {', '.join(_FIELDS[kind])}"
        )
    _check_fields(kind, message, sender)
    if msgpack.packb(message) != data:
        raise MalformedLobbyMessage(f"{sender}'s {kind!r} message is not in canonical encoding")
    checked: dict[str, Any] = message
    return checked


def _check_fields(kind: str, message: dict[str, Any], sender: str) -> None:
    def bad(what: str) -> MalformedLobbyMessage:
        return MalformedLobbyMessage(f"{sender}'s {kind!r} message: {what}")

    def uint(key: str) -> None:
        value = message[key]
        if type(value) is not int or not 0 <= value <= MAX_SEATS:
            raise bad(f"{key} must be a small integer")

    if kind == "wait":
        for key in ("seat", "seated", "of"):
            uint(key)
    elif kind in ("accept", "seating"):
        if not _is_bytes(message["sig"], SIGNATURE_SIZE):
            raise bad("sig must be 64 bytes")
    elif kind in ("refuse", "void"):
        if not _is_text(message["reason"]):
            raise bad(f"reason must be at most {MAX_TEXT} characters of plain text")
    elif kind == "start":
        sigs = message["sigs"]
        if not (isinstance(sigs, list) and all(_is_bytes(s, SIGNATURE_SIZE) for s in sigs)):
            raise bad("sigs must be a list of 64-byte signatures")
    if kind == "seating":
        seating_from(message, sender)


def seating_from(message: dict[str, Any], sender: str) -> Seating:
    """The ``Seating`` a checked ``seating`` message describes."""
    nonce, preset, seats = message["nonce"], message["preset"], message["seats"]
    if not _is_bytes(nonce, NONCE_SIZE) or not _is_text(preset) or not isinstance(seats, list):
        raise MalformedLobbyMessage(f"{sender}'s seating needs a 32-byte nonce, a preset, seats")
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise MalformedLobbyMessage(f"{sender}'s seating has {len(seats)} seats, not 3 to 8")
    people = []
    for entry in seats:
        if not (
            isinstance(entry, list)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and _is_bytes(entry[1], PUBLIC_KEY_SIZE)
        ):
            raise MalformedLobbyMessage(
                f"{sender}'s seating lists a seat as other than [name, key]"
            )
        try:
            check_name(entry[0])
        except ValueError as exc:
            raise MalformedLobbyMessage(f"{sender}'s seating names a player badly: {exc}") from None
        people.append(PeerIdentity(entry[0], entry[1]))
    if len({p.public_key for p in people}) != len(people):
        raise MalformedLobbyMessage(f"{sender}'s seating puts one identity key in two seats")
    return Seating(nonce, preset, tuple(people))


def _is_bytes(value: object, size: int) -> bool:
    return isinstance(value, bytes) and len(value) == size


def _is_text(value: object) -> bool:
    return (
        isinstance(value, str)
        and len(value) <= MAX_TEXT
        and not any(
            unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in value
        )
    )
