"""Domain-separated hashing and deterministic derivation of scalars and permutations.

One encoding for everything that is hashed, so that no two different inputs
ever hash alike and a second implementation can reproduce every byte
(protocol/SPEC.md, "Hashing"):

    H(tag, f1, ..., fk) = SHA-512( enc(tag) || enc(f1) || ... || enc(fk) )
    enc(bytes b) = u32be(len(b)) || b
    enc(str s)   = enc(utf8(s))
    enc(int i)   = enc(u64be(i))            (0 <= i < 2**64)

``H32`` is the first 32 bytes of ``H``. Secrets are never drawn from a random
source here: they are derived from a seed, so the audit can recompute them.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Final

from p2p66.crypto.group import Scalar, reduce_wide

Field = bytes | str | int

PREFIX: Final = "p2p66/v1/"
TAG_COIN_COMMIT: Final = PREFIX + "coin-commit"
TAG_SESSION: Final = PREFIX + "session"
TAG_FIRST_DEALER: Final = PREFIX + "first-dealer"
TAG_CARD: Final = PREFIX + "card"
TAG_CONFIG: Final = PREFIX + "config"
TAG_SEED_COMMIT: Final = PREFIX + "seed-commit"
TAG_SECRETS: Final = PREFIX + "secrets"
TAG_SCALAR: Final = PREFIX + "scalar"
TAG_DRBG: Final = PREFIX + "drbg"
TAG_CONTEXT: Final = PREFIX + "context"
TAG_SHUFFLE_NONCE: Final = PREFIX + "shuffle-nonce"
TAG_SHUFFLE_CHALLENGE: Final = PREFIX + "shuffle-challenge"
TAG_ARGUMENT_STATEMENT: Final = PREFIX + "argument-statement"
TAG_ARGUMENT_NONCE: Final = PREFIX + "argument-nonce"
TAG_ARGUMENT_POINT: Final = PREFIX + "argument-point"
TAG_ARGUMENT_CHALLENGE: Final = PREFIX + "argument-challenge"
TAG_REKEY_NONCE: Final = PREFIX + "rekey-nonce"
TAG_REKEY_CHALLENGE: Final = PREFIX + "rekey-challenge"

_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")


def encode_field(value: Field) -> bytes:
    """``enc`` of SPEC.md: a length-prefixed byte string (ints as 8 bytes big-endian)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not hash fields; use 0 or 1")
    if isinstance(value, int):
        raw = _U64.pack(value)
    elif isinstance(value, str):
        raw = value.encode("utf-8")
    else:
        raw = value
    return _U32.pack(len(raw)) + raw


def hash_fields(tag: str, *fields: Field) -> bytes:
    """``H``: SHA-512 over the tag and the fields, each length-prefixed."""
    h = hashlib.sha512(encode_field(tag))
    for f in fields:
        h.update(encode_field(f))
    return h.digest()


def hash32(tag: str, *fields: Field) -> bytes:
    """``H32``: the first 32 bytes of ``H``."""
    return hash_fields(tag, *fields)[:32]


def derive_scalar(key: bytes, label: str, index: int) -> Scalar:
    """``H(scalar, key, label, index, ctr) mod order`` for the first ctr = 0, 1, ... not zero."""
    ctr = 0
    while True:
        value = reduce_wide(hash_fields(TAG_SCALAR, key, label, index, ctr))
        if value:
            return Scalar(value)
        ctr += 1  # pragma: no cover - probability 2**-252


class Drbg:
    """A byte stream ``H(drbg, key, label, index, 0) || H(..., 1) || ...`` with unbiased draws."""

    __slots__ = ("_block", "_buf", "_index", "_key", "_label")

    def __init__(self, key: bytes, label: str, index: int) -> None:
        self._key = key
        self._label = label
        self._index = index
        self._block = 0
        self._buf = b""

    def _take8(self) -> int:
        if len(self._buf) < 8:
            self._buf += hash_fields(TAG_DRBG, self._key, self._label, self._index, self._block)
            self._block += 1
        out, self._buf = self._buf[:8], self._buf[8:]
        return int(_U64.unpack(out)[0])

    def below(self, bound: int) -> int:
        """Uniform in ``[0, bound)``: 8-byte big-endian draws, rejecting the biased top."""
        if not 0 < bound < 2**32:
            raise ValueError("bound out of range")
        limit = 2**64 - (2**64 % bound)
        while True:
            value = self._take8()
            if value < limit:
                return value % bound


def derive_permutation(key: bytes, label: str, index: int, n: int) -> tuple[int, ...]:
    """Fisher-Yates over ``0..n-1`` driven by ``Drbg(key, label, index)``.

    For i = n-1 down to 1: j = below(i+1), swap a[i] and a[j]. The result p
    is used as ``out[j] = in[p[j]]``.
    """
    drbg = Drbg(key, label, index)
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = drbg.below(i + 1)
        a[i], a[j] = a[j], a[i]
    return tuple(a)


def check_permutation(perm: bytes | tuple[int, ...], n: int) -> bool:
    return len(perm) == n and sorted(perm) == list(range(n))


def invert_permutation(perm: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)
