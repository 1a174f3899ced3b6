"""Ed25519 signature checks: libsodium first (faster), ``cryptography`` decides refusals.

A replay's verifier checks one signature per record, a sixth of its time
through ``cryptography`` (about 115 us each here). The libsodium that rbcl
bundles checks one in about 70 us. Its rules are stricter than OpenSSL's
(it also refuses small-order and non-canonical keys and ``R``), so a
signature libsodium accepts is one ``cryptography`` accepts, and whenever
libsodium refuses, ``cryptography`` is asked: the accepted set is exactly
today's, only most of the work is done by the faster library.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

KEY_BYTES = 32
SIGNATURE_BYTES = 64

_Check = Callable[[bytes, bytes, bytes], bool]


def openssl_verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """The reference answer: RFC 8032 verification by ``cryptography`` (OpenSSL)."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def _sodium_check() -> _Check | None:
    """libsodium's ``crypto_sign_verify_detached`` from rbcl's bundled library, if present."""
    try:
        from rbcl._sodium import _sodium
    except ImportError:  # pragma: no cover - an rbcl built without its bundled library
        return None
    func = getattr(_sodium, "crypto_sign_verify_detached", None)
    if func is None:  # pragma: no cover - a libsodium without Ed25519
        return None
    func.restype = ctypes.c_int
    func.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]

    def check(public_key: bytes, signature: bytes, message: bytes) -> bool:
        return bool(func(signature, message, len(message), public_key) == 0)

    return check


_SODIUM = _sodium_check()


def sodium_available() -> bool:
    """True if the fast path is in use (for tests and benchmarks)."""
    return _SODIUM is not None


def verify_ed25519(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True if ``signature`` is ``public_key``'s Ed25519 signature of ``message``.

    The answer is ``openssl_verify``'s: libsodium only short-cuts acceptances.
    """
    if not isinstance(public_key, bytes) or not isinstance(signature, bytes):
        return False
    if len(public_key) != KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False  # what cryptography says too, before libsodium reads 32/64 bytes
    if _SODIUM is not None and _SODIUM(public_key, signature, message):
        return True
    return openssl_verify(public_key, signature, message)
