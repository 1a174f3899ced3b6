"""The libsodium fast path of Ed25519 checks answers exactly as ``cryptography`` does."""

from __future__ import annotations

import ctypes
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p66.crypto.sigcheck import openssl_verify, sodium_available, verify_ed25519

L = 2**252 + 27742317777372353535851937790883648493
P = 2**255 - 19
IDENTITY = (1).to_bytes(32, "little")
SMALL_ORDER = [
    IDENTITY,
    (P - 1).to_bytes(32, "little"),  # y = -1: order 2
    bytes(32),  # y = 0: order 4
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # order 8
]


def _keypair(seed: int) -> tuple[Ed25519PrivateKey, bytes]:
    key = Ed25519PrivateKey.from_private_bytes(random.Random(seed).randbytes(32))
    return key, key.public_key().public_bytes_raw()


def _base_times(s: int) -> bytes:
    """``s*B`` on edwards25519 through rbcl's libsodium (for signatures by a small-order key)."""
    from rbcl._sodium import _sodium

    out = ctypes.create_string_buffer(32)
    func = _sodium.crypto_scalarmult_ed25519_base_noclamp
    assert func(out, s.to_bytes(32, "little")) == 0
    return out.raw


def _cases() -> list[tuple[str, bytes, bytes, bytes]]:
    key, pub = _keypair(1)
    msg = b"p2p66 record"
    sig = key.sign(msg)
    r, s = sig[:32], int.from_bytes(sig[32:], "little")
    cases = [
        ("valid", pub, sig, msg),
        ("empty message", pub, key.sign(b""), b""),
        ("tampered message", pub, sig, msg + b"!"),
        ("tampered R", pub, bytes([sig[0] ^ 1]) + sig[1:], msg),
        ("tampered S", pub, sig[:32] + bytes([sig[32] ^ 1]) + sig[33:], msg),
        ("S + L (non-canonical S)", pub, r + (s + L).to_bytes(32, "little"), msg),
        ("other key", _keypair(2)[1], sig, msg),
        ("key with the sign bit flipped", pub[:31] + bytes([pub[31] ^ 0x80]), sig, msg),
        ("y >= p (non-canonical key)", (P + 1).to_bytes(32, "little"), sig, msg),
        ("short signature", pub, sig[:63], msg),
        ("short key", pub[:31], sig, msg),
    ]
    for i, small in enumerate(SMALL_ORDER):
        # With a small-order key A, k*A is small: R = S*B verifies cofactorless for the identity.
        s_any = 12345 + i
        cases.append(
            (
                f"small-order key {i}, R = S*B",
                small,
                _base_times(s_any) + s_any.to_bytes(32, "little"),
                msg,
            )
        )
        cases.append(
            (f"small-order key {i}, R = identity, S = 0", small, IDENTITY + bytes(32), msg)
        )
        cases.append((f"small-order R {i}", pub, small + sig[32:], msg))
    rng = random.Random(7)
    for i in range(20):
        cases.append((f"random bytes {i}", rng.randbytes(32), rng.randbytes(64), rng.randbytes(i)))
    return cases


@pytest.mark.parametrize(
    ("what", "key", "sig", "msg"), _cases(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_fast_path_agrees_with_cryptography(what: str, key: bytes, sig: bytes, msg: bytes) -> None:
    assert verify_ed25519(key, sig, msg) is openssl_verify(key, sig, msg), what


def test_reference_answers_are_what_the_cases_mean() -> None:
    """The cases exercise both answers, and the refusal fallback really runs."""
    answers = {what: openssl_verify(k, s, m) for what, k, s, m in _cases()}
    assert answers["valid"] and answers["empty message"]
    assert not answers["tampered message"] and not answers["S + L (non-canonical S)"]
    assert answers["small-order key 0, R = S*B"]  # OpenSSL accepts; libsodium refuses it


def test_libsodium_is_the_path_in_use() -> None:
    assert sodium_available()


def test_many_valid_signatures_accept() -> None:
    for seed in range(30):
        key, pub = _keypair(seed)
        msg = bytes([seed]) * seed
        assert verify_ed25519(pub, key.sign(msg), msg)
