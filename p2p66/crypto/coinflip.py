"""The commit-reveal coin flip that fixes the session id and the first dealer.

Each party draws a 32-byte nonce, sends ``H32(coin-commit, context, seat,
nonce)``, and reveals the nonce once it holds every other commitment, so no
one can choose its nonce after seeing another's. The session id hashes the
context (e.g. protocol version and identity keys, chosen by the session
layer), all commitments and all nonces; the first dealer is derived from it.
With two parties this takes three flights: A commits; B commits and reveals;
A reveals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from p2p66.crypto.config import MAX_PARTIES
from p2p66.crypto.errors import (
    BadCoinReveal,
    LocalUsageError,
    MalformedMessage,
    OutOfOrderMessage,
    ReplayedMessage,
)
from p2p66.crypto.handkeys import Rng, system_rng
from p2p66.crypto.hashing import TAG_COIN_COMMIT, TAG_FIRST_DEALER, TAG_SESSION, hash32, hash_fields

NONCE_BYTES: Final = 32


def _fields(obj: object, kind: str, key: str) -> tuple[int, bytes]:
    if not isinstance(obj, Mapping) or set(obj) != {"t", "seat", key} or obj["t"] != kind:
        raise MalformedMessage(f"a {kind} message is a map with 't', 'seat' and {key!r}")
    seat, value = obj["seat"], obj[key]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < MAX_PARTIES:
        raise MalformedMessage(f"{kind}: 'seat' must be 0..{MAX_PARTIES - 1}")
    if not isinstance(value, bytes) or len(value) != 32:
        raise MalformedMessage(f"{kind}: {key!r} must be 32 bytes")
    return seat, value


@dataclass(frozen=True, slots=True)
class CoinCommit:
    KIND: ClassVar[str] = "coin-commit"
    seat: int
    commitment: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.KIND, "seat": self.seat, "commit": self.commitment}

    @classmethod
    def from_wire(cls, obj: object) -> CoinCommit:
        return cls(*_fields(obj, cls.KIND, "commit"))


@dataclass(frozen=True, slots=True)
class CoinReveal:
    KIND: ClassVar[str] = "coin-reveal"
    seat: int
    nonce: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": self.KIND, "seat": self.seat, "nonce": self.nonce}

    @classmethod
    def from_wire(cls, obj: object) -> CoinReveal:
        return cls(*_fields(obj, cls.KIND, "nonce"))


CoinMessage = CoinCommit | CoinReveal


def decode_coin(obj: object) -> CoinMessage:
    kind = obj.get("t") if isinstance(obj, Mapping) else None
    if kind == CoinCommit.KIND:
        return CoinCommit.from_wire(obj)
    if kind == CoinReveal.KIND:
        return CoinReveal.from_wire(obj)
    raise MalformedMessage("a coin-flip message has type 'coin-commit' or 'coin-reveal'")


@dataclass(frozen=True, slots=True)
class CoinResult:
    session_id: bytes
    first_dealer: int


def coin_commitment(context: bytes, seat: int, nonce: bytes) -> bytes:
    return hash32(TAG_COIN_COMMIT, context, seat, nonce)


def coin_result(context: bytes, commitments: list[bytes], nonces: list[bytes]) -> CoinResult:
    """Session id and first dealer from every seat's commitment and nonce (in seat order)."""
    parties = len(nonces)
    session_id = hash32(TAG_SESSION, context, parties, *commitments, *nonces)
    draw = int.from_bytes(hash_fields(TAG_FIRST_DEALER, session_id)[:8], "big")
    return CoinResult(session_id, draw % parties)


class CoinFlip:
    """One party's side of the flip: ``start()``, then ``receive()`` each message."""

    def __init__(self, parties: int, seat: int, nonce: bytes, context: bytes = b"") -> None:
        if not 2 <= parties <= MAX_PARTIES or not 0 <= seat < parties:
            raise LocalUsageError(f"seat {seat} at a table of {parties} is impossible")
        if len(nonce) != NONCE_BYTES:
            raise LocalUsageError(f"a coin nonce is {NONCE_BYTES} bytes")
        self.parties = parties
        self.seat = seat
        self.context = context
        self._nonce = nonce
        self._commits: dict[int, bytes] = {}
        self._nonces: dict[int, bytes] = {}
        self._started = False

    @classmethod
    def random(
        cls, parties: int, seat: int, context: bytes = b"", rng: Rng = system_rng
    ) -> CoinFlip:
        return cls(parties, seat, rng(NONCE_BYTES), context)

    def start(self) -> list[CoinMessage]:
        """Our commitment (and our reveal, if every other commitment is already here)."""
        if self._started:
            raise LocalUsageError("the coin flip was already started")
        self._started = True
        commit = CoinCommit(self.seat, coin_commitment(self.context, self.seat, self._nonce))
        self._commits[self.seat] = commit.commitment
        return [commit, *self._maybe_reveal()]

    def receive(self, msg: CoinMessage) -> list[CoinMessage]:
        """Check another party's message; return our reveal when it becomes due."""
        seat = msg.seat
        if seat == self.seat or seat >= self.parties:
            raise MalformedMessage(
                f"a coin-flip message from seat {seat} cannot reach seat {self.seat}"
            )
        if isinstance(msg, CoinCommit):
            if seat in self._commits:
                raise ReplayedMessage(seat, "sent its coin-flip commitment twice")
            self._commits[seat] = msg.commitment
        else:
            if seat not in self._commits:
                raise OutOfOrderMessage(
                    seat, "revealed its coin-flip nonce before committing to it"
                )
            if seat in self._nonces:
                raise ReplayedMessage(seat, "revealed its coin-flip nonce twice")
            if coin_commitment(self.context, seat, msg.nonce) != self._commits[seat]:
                raise BadCoinReveal(
                    seat, "revealed a coin-flip nonce that does not match its commitment"
                )
            self._nonces[seat] = msg.nonce
        return self._maybe_reveal() if self._started else []

    def _maybe_reveal(self) -> list[CoinMessage]:
        if self.seat in self._nonces or len(self._commits) < self.parties:
            return []
        self._nonces[self.seat] = self._nonce
        return [CoinReveal(self.seat, self._nonce)]

    @property
    def result(self) -> CoinResult | None:
        """The session id and first dealer, once every nonce is revealed."""
        if len(self._nonces) < self.parties:
            return None
        seats = range(self.parties)
        return coin_result(
            self.context, [self._commits[s] for s in seats], [self._nonces[s] for s in seats]
        )
