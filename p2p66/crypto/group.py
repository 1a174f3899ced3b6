"""Every group operation of the library, on ristretto255 through rbcl (libsodium).

Points are their canonical 32-byte ristretto255 encodings (``Point``); scalars
are Python ints in ``1 .. ORDER-1`` (``Scalar``) and travel as 32 bytes,
little-endian. Keeping all of it here means one place decides what is valid:
the identity, non-canonical encodings and zero scalars are rejected at the
edge with ``MalformedMessage``, so the rest of the code never meets them.
"""

from __future__ import annotations

from typing import Final, NewType

import rbcl

from p2p66.crypto.errors import CryptoError, MalformedMessage

Point = NewType("Point", bytes)
Scalar = NewType("Scalar", int)

ORDER: Final = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES: Final = 32
SCALAR_BYTES: Final = 32
WIDE_BYTES: Final = 64
IDENTITY: Final = Point(bytes(POINT_BYTES))
BASE: Final = Point(
    bytes.fromhex("e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")
)
"""The ristretto255 generator G (RFC 9496 section 4.4)."""


def is_point(data: bytes) -> bool:
    """True for the canonical encoding of a non-identity group element.

    The top bit is checked here because the libsodium bundled by rbcl ignores
    it: without this check every point would have two accepted encodings, and
    a deck could hold one card twice under two different byte strings.
    """
    return (
        len(data) == POINT_BYTES
        and data != IDENTITY
        and not data[31] & 0x80
        and bool(rbcl.crypto_core_ristretto255_is_valid_point(data))
    )


def decode_point(data: object, what: str) -> Point:
    """``data`` as a point, or MalformedMessage naming ``what`` was wrong."""
    if not isinstance(data, bytes) or len(data) != POINT_BYTES:
        raise MalformedMessage(f"{what} must be {POINT_BYTES} bytes")
    if data == IDENTITY:
        raise MalformedMessage(f"{what} is the identity element")
    if not is_point(data):
        raise MalformedMessage(f"{what} is not a canonical ristretto255 encoding")
    return Point(data)


def decode_points(data: object, count: int | None, what: str) -> tuple[Point, ...]:
    """A concatenation of points (``count`` of them if given), each checked."""
    if not isinstance(data, bytes) or len(data) % POINT_BYTES:
        raise MalformedMessage(f"{what} must be a multiple of {POINT_BYTES} bytes")
    if count is not None and len(data) != count * POINT_BYTES:
        raise MalformedMessage(f"{what} must hold {count} points, not {len(data) // POINT_BYTES}")
    return tuple(
        decode_point(data[i : i + POINT_BYTES], f"{what}[{i // POINT_BYTES}]")
        for i in range(0, len(data), POINT_BYTES)
    )


def decode_response(data: bytes, what: str) -> int:
    """A canonical 32-byte scalar of a proof response (zero allowed: it hides nothing)."""
    if len(data) != SCALAR_BYTES:
        raise MalformedMessage(f"{what} must be {SCALAR_BYTES} bytes")
    value = int.from_bytes(data, "little")
    if value >= ORDER:
        raise MalformedMessage(f"{what} is not a canonical scalar (not below the group order)")
    return value


def decode_scalar(data: object, what: str) -> Scalar:
    """A canonical (``< ORDER``), non-zero 32-byte little-endian scalar."""
    if not isinstance(data, bytes) or len(data) != SCALAR_BYTES:
        raise MalformedMessage(f"{what} must be {SCALAR_BYTES} bytes")
    value = int.from_bytes(data, "little")
    if value >= ORDER:
        raise MalformedMessage(f"{what} is not a canonical scalar (not below the group order)")
    if value == 0:
        raise MalformedMessage(f"{what} is the zero scalar")
    return Scalar(value)


def encode_scalar(s: int) -> bytes:
    return s.to_bytes(SCALAR_BYTES, "little")


def scalar(value: int) -> Scalar:
    """``value`` reduced modulo the order; zero is refused."""
    value %= ORDER
    if value == 0:
        raise CryptoError("the zero scalar is not a valid key")
    return Scalar(value)


def reduce_wide(data: bytes) -> int:
    """A 64-byte string reduced modulo the group order (may be zero)."""
    if len(data) != WIDE_BYTES:
        raise CryptoError(f"a wide scalar needs {WIDE_BYTES} bytes")
    return _int(rbcl.crypto_core_ristretto255_scalar_reduce(data))  # constant time: keys


def hash_to_point(data: bytes) -> Point:
    """libsodium's ``crypto_core_ristretto255_from_hash`` (Elligator, 64 bytes in)."""
    if len(data) != WIDE_BYTES:
        raise CryptoError(f"hash_to_point needs {WIDE_BYTES} bytes")
    point = bytes(rbcl.crypto_core_ristretto255_from_hash(data))
    if point == IDENTITY:  # only for contrived inputs (e.g. 64 zero bytes), never a hash
        raise CryptoError("hash_to_point gave the identity")
    return Point(point)


def mul(s: Scalar, p: Point) -> Point:
    """``s * p`` for a non-zero scalar and a valid point (never the identity)."""
    return Point(rbcl.crypto_scalarmult_ristretto255(s.to_bytes(SCALAR_BYTES, "little"), p))


def mul_base(s: Scalar) -> Point:
    """``s * G`` with G the ristretto255 generator."""
    return Point(rbcl.crypto_scalarmult_ristretto255_base(s.to_bytes(SCALAR_BYTES, "little")))


def combine(a: int, p: Point, b: int, q: Point) -> bytes:
    """``a*p - b*q`` for any scalars (zero allowed); may return the identity encoding.

    Used only by verifiers, whose recomputed commitments feed a hash and are
    never decoded as points, so the identity needs no special case.
    """
    return sub(mul_any(a % ORDER, p), mul_any(b % ORDER, q))


def double(p: Point) -> bytes:
    """``2 * p`` by addition (cheaper than a multiplication)."""
    return bytes(rbcl.crypto_core_ristretto255_add(p, p))


def inverse(s: Scalar) -> Scalar:
    """``1/s`` modulo the order, by libsodium's constant-time inversion (s may be secret)."""
    return Scalar(_int(rbcl.crypto_core_ristretto255_scalar_invert(encode_scalar(s))))


def public_inverse(s: Scalar) -> Scalar:
    """``1/s`` of a public scalar (e.g. keys everyone has seen): variable time, 20x faster."""
    return Scalar(pow(s, -1, ORDER))


def product(scalars: list[Scalar] | tuple[Scalar, ...]) -> Scalar:
    """The product of non-zero scalars modulo the order (constant-time steps)."""
    acc = 1
    for s in scalars:
        acc = times(acc, s)
    return Scalar(acc)


def public_product(scalars: list[Scalar] | tuple[Scalar, ...]) -> Scalar:
    """The product of public non-zero scalars (keys everyone has seen): variable time, faster."""
    acc = 1
    for s in scalars:
        acc = acc * s % ORDER
    return Scalar(acc)


# --- constant-time scalar arithmetic (libsodium), for values that may be secret ---------
# Scalars here are ints below ORDER (zero allowed); each step runs in libsodium on the
# 32-byte encodings, so no secret goes through Python's variable-time big integers.


def _int(data: bytes) -> int:
    return int.from_bytes(data, "little")


def times(a: int, b: int) -> int:
    """``a*b`` modulo the order."""
    return _int(rbcl.crypto_core_ristretto255_scalar_mul(encode_scalar(a), encode_scalar(b)))


def plus(a: int, b: int) -> int:
    """``a+b`` modulo the order."""
    return _int(rbcl.crypto_core_ristretto255_scalar_add(encode_scalar(a), encode_scalar(b)))


def minus(a: int, b: int) -> int:
    """``a-b`` modulo the order."""
    return _int(rbcl.crypto_core_ristretto255_scalar_sub(encode_scalar(a), encode_scalar(b)))


# --- verifier arithmetic: any scalar, any point, results only hashed or compared ----------


def mul_any(s: int, p: bytes) -> bytes:
    """``s * p`` for any scalar below the order and any encoding (identity allowed)."""
    return bytes(rbcl.crypto_scalarmult_ristretto255_allow_scalar_zero(encode_scalar(s), p))


def mul_base_any(s: int) -> bytes:
    """``s * G`` for any scalar below the order (zero gives the identity)."""
    return bytes(rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero(encode_scalar(s)))


def add(p: bytes, q: bytes) -> bytes:
    return bytes(rbcl.crypto_core_ristretto255_add(p, q))


def sub(p: bytes, q: bytes) -> bytes:
    return bytes(rbcl.crypto_core_ristretto255_sub(p, q))
