"""The group module: what is a valid point or scalar, and the arithmetic the protocol uses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p66.crypto import MalformedMessage
from p2p66.crypto.group import (
    IDENTITY,
    ORDER,
    Scalar,
    combine,
    decode_point,
    decode_points,
    decode_scalar,
    double,
    encode_scalar,
    hash_to_point,
    inverse,
    is_point,
    mul,
    mul_base,
    product,
    scalar,
)
from p2p66.crypto.group import CryptoError as GroupCryptoError

P = hash_to_point(bytes(range(64)))
BASE = mul_base(Scalar(1))


def test_identity_is_refused() -> None:
    assert not is_point(IDENTITY)
    with pytest.raises(MalformedMessage, match="identity"):
        decode_point(IDENTITY, "the lock")


def test_non_canonical_and_off_curve_encodings_are_refused() -> None:
    # 2**255 - 1 is no canonical field element; 1 is "negative"; the top bit must be clear
    # (rbcl's libsodium would accept it, giving every point a second encoding).
    for bad in (b"\xff" * 32, bytes(BASE[:31]) + bytes([BASE[31] | 0x80]), b"\x01" + bytes(31)):
        with pytest.raises(MalformedMessage, match="canonical"):
            decode_point(bad, "p")


@pytest.mark.parametrize("bad", [b"", bytes(31), bytes(33), "x" * 32, 7, None])
def test_wrong_types_and_lengths(bad: object) -> None:
    with pytest.raises(MalformedMessage, match="32 bytes"):
        decode_point(bad, "p")
    with pytest.raises(MalformedMessage, match="32 bytes"):
        decode_scalar(bad, "s")


def test_scalars_must_be_canonical_and_non_zero() -> None:
    with pytest.raises(MalformedMessage, match="zero"):
        decode_scalar(bytes(32), "key")
    with pytest.raises(MalformedMessage, match="canonical"):
        decode_scalar(ORDER.to_bytes(32, "little"), "key")
    assert decode_scalar(encode_scalar(ORDER - 1), "key") == ORDER - 1
    with pytest.raises(GroupCryptoError):
        scalar(ORDER)


def test_decode_points_counts() -> None:
    assert decode_points(P + BASE, 2, "deck") == (P, BASE)
    with pytest.raises(MalformedMessage, match="hold 3 points"):
        decode_points(P + BASE, 3, "deck")
    with pytest.raises(MalformedMessage, match="deck\\[1\\]"):
        decode_points(P + IDENTITY, None, "deck")


@given(st.binary(min_size=32, max_size=32))
def test_any_32_bytes_decode_or_fail_cleanly(data: bytes) -> None:
    try:
        point = decode_point(data, "p")
    except MalformedMessage:
        return
    assert is_point(point)


@given(st.integers(1, ORDER - 1), st.integers(1, ORDER - 1))
def test_arithmetic(a: int, b: int) -> None:
    sa, sb = Scalar(a), Scalar(b)
    assert mul(inverse(sa), mul(sa, P)) == P
    assert mul(sb, mul(sa, P)) == mul(product([sa, sb]), P)
    assert mul(sa, BASE) == mul_base(sa)
    assert combine(a, P, a, P) == IDENTITY
    assert combine(0, P, ORDER - 1, P) == P  # 0*P - (-1)*P


def test_double_is_two_times() -> None:
    assert double(P) == mul(Scalar(2), P)


def test_hash_to_point_needs_64_bytes() -> None:
    with pytest.raises(GroupCryptoError):
        hash_to_point(bytes(32))
    with pytest.raises(GroupCryptoError, match="identity"):
        hash_to_point(bytes(64))  # Elligator maps zero to the identity
    assert is_point(hash_to_point(b"\x01" * 64))
