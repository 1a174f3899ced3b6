"""Hashing, domain separation and the deterministic derivations (scalars, permutations)."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p66.crypto.group import ORDER
from p2p66.crypto.hashing import (
    Drbg,
    check_permutation,
    derive_permutation,
    derive_scalar,
    encode_field,
    hash32,
    hash_fields,
    invert_permutation,
)


def test_field_encoding() -> None:
    assert encode_field(b"ab") == b"\x00\x00\x00\x02ab"
    assert encode_field("é") == b"\x00\x00\x00\x02\xc3\xa9"
    assert encode_field(258) == b"\x00\x00\x00\x08" + bytes(6) + b"\x01\x02"
    with pytest.raises(TypeError):
        encode_field(True)


def test_hash_is_sha512_over_length_prefixed_fields() -> None:
    expected = hashlib.sha512(encode_field("tag") + encode_field(b"x") + encode_field(1)).digest()
    assert hash_fields("tag", b"x", 1) == expected
    assert hash32("tag", b"x", 1) == expected[:32]


def test_fields_cannot_be_shifted() -> None:
    # Without length prefixes these two would hash alike.
    assert hash_fields("t", b"ab", b"c") != hash_fields("t", b"a", b"bc")
    assert hash_fields("t", b"a") != hash_fields("u", b"a")


def test_derived_scalars_are_valid_and_separated() -> None:
    a = derive_scalar(b"key", "lock", 0)
    assert 0 < a < ORDER
    assert a == derive_scalar(b"key", "lock", 0)
    assert len({a, derive_scalar(b"key", "lock", 1), derive_scalar(b"key", "card-key", 0)}) == 3


@given(st.binary(max_size=16), st.integers(2, 24))
def test_derived_permutations_are_permutations(key: bytes, n: int) -> None:
    perm = derive_permutation(key, "perm", 0, n)
    assert check_permutation(perm, n)
    inv = invert_permutation(perm)
    assert [perm[inv[i]] for i in range(n)] == list(range(n))


def test_permutations_are_roughly_uniform() -> None:
    counts = Counter(derive_permutation(b"k", "perm", i, 3) for i in range(6000))
    assert len(counts) == 6
    assert all(850 < c < 1150 for c in counts.values()), counts


def test_drbg_below_stays_in_range() -> None:
    drbg = Drbg(b"k", "x", 0)
    draws = [drbg.below(7) for _ in range(700)]
    assert set(draws) == set(range(7))
    with pytest.raises(ValueError):
        drbg.below(0)


def test_check_permutation() -> None:
    assert check_permutation((1, 0, 2), 3)
    assert not check_permutation((1, 1, 2), 3)
    assert not check_permutation((0, 1), 3)
