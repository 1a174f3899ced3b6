"""Group arithmetic on PUBLIC values for verifiers: an optional compiled accelerator, else rbcl.

A replay's verifier spends most of its time in weighted sums of points
(``sum s_i * P_i``) and base-point multiplications. rbcl offers one
multiplication per call; ``r255.c`` (built by ``scripts/build_r255.py``, never
by ``pip install``) adds a variable-time multi-scalar multiplication and a
table-driven base multiplication, written from RFC 9496 and Hisil et al.
Variable time means its running time depends on the scalars: only proofs'
public values, and secrets already revealed, may come here, never a key in
use. The results are the same group elements, so the same bytes: a
differential test compares it with rbcl. ``P2P66_PURE=1`` forces rbcl; a
build whose source stamp does not match ``r255.c`` is ignored.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from p2p66.crypto.group import (
    BASE,
    IDENTITY,
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    add,
    decode_points,
    mul_any,
    mul_base_any,
)

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "r255.c"
LIBRARY = HERE / "_r255.so"
STAMP = HERE / "_r255.sha256"
"""The SHA-256 of the ``r255.c`` the library was built from (written by the build)."""


def source_digest(source: Path = SOURCE) -> str:
    return hashlib.sha256(source.read_bytes()).hexdigest()


class Accelerator:
    """The compiled library's entry points, with their ctypes signatures.

    Loaded with ``PyDLL``, which keeps the GIL during each call: the library's
    tables are built on first use and must not be raced by two threads.
    """

    def __init__(self, path: Path) -> None:
        lib = ctypes.PyDLL(str(path))
        self._msm = lib.r255_msm
        self._base = lib.r255_mul_base
        self._valid = lib.r255_is_valid
        self._all = lib.r255_all_points
        for func in (self._msm, self._base, self._valid, self._all):
            func.restype = ctypes.c_int
        self._msm.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        self._base.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        self._valid.argtypes = [ctypes.c_char_p]
        self._all.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

    def msm(self, scalars: bytes, points: bytes) -> bytes | None:
        """``sum s_i * P_i`` (32-byte scalars, encodings), or None if a point is invalid."""
        out = ctypes.create_string_buffer(32)
        if self._msm(out, scalars, points, len(points) // 32) != 1:
            return None
        return out.raw

    def mul_base(self, scalars: bytes) -> bytes | None:
        """Every ``s_i * G``, concatenated, or None if a scalar is 2^255 or more."""
        out = ctypes.create_string_buffer(len(scalars))
        if self._base(out, scalars, len(scalars) // 32) != 1:
            return None
        return out.raw

    def is_valid(self, point: bytes) -> bool:
        """A canonical ristretto255 encoding (the identity included)."""
        return bool(self._valid(point) == 1)

    def all_points(self, points: bytes) -> bool:
        """Every 32 bytes a canonical encoding of a group element other than the identity."""
        return bool(self._all(points, len(points) // 32) == 1)


def load(library: Path = LIBRARY, stamp: Path = STAMP) -> tuple[Accelerator | None, str]:
    """The accelerator if built, current and allowed, and a sentence saying which path runs."""
    if os.environ.get("P2P66_PURE") == "1":
        return None, "rbcl (P2P66_PURE=1)"
    if not library.exists():
        return None, "rbcl (no compiled accelerator: python scripts/build_r255.py)"
    try:
        current = stamp.read_text().strip() == source_digest()
    except OSError:
        current = False
    if not current:
        return None, "rbcl (the compiled accelerator is stale: rebuild it)"
    try:
        return Accelerator(library), "compiled r255 accelerator"
    except OSError as exc:  # pragma: no cover - a library built for another machine
        return None, f"rbcl (the compiled accelerator did not load: {exc})"


_ACCEL, BACKEND = load()
ACCELERATED = _ACCEL is not None
"""True when ``public_msm`` is one compiled call (a two-point sum costs about one product)."""


def _encode(scalars: Sequence[int]) -> bytes:
    return b"".join((s % ORDER).to_bytes(SCALAR_BYTES, "little") for s in scalars)


def public_msm(scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    """``sum scalars[i] * points[i]`` of public values (any ints; the identity if it cancels)."""
    if len(scalars) != len(points):
        raise ValueError("public_msm needs as many scalars as points")  # our caller's bug
    if _ACCEL is not None and all(len(p) == POINT_BYTES for p in points):  # else rbcl refuses
        out = _ACCEL.msm(_encode(scalars), b"".join(points))
        if out is not None:
            return out
    # rbcl: its answer (and its error for an invalid point) is the reference
    total: bytes = IDENTITY
    for s, p in zip(scalars, points, strict=True):
        term = mul_base_any(s % ORDER) if p == BASE else mul_any(s % ORDER, p)
        total = term if total == IDENTITY else add(total, term)
    return total


def decode_public_points(data: object, count: int | None, what: str) -> tuple[Point, ...]:
    """``group.decode_points`` of public data: one compiled check of every point when built.

    Only the acceptance is short-cut: whenever the accelerator finds a point
    wrong (or is absent), ``decode_points`` decides, with its exact message.
    """
    if (
        _ACCEL is not None
        and isinstance(data, bytes)
        and len(data) % POINT_BYTES == 0
        and (count is None or len(data) == count * POINT_BYTES)
        and _ACCEL.all_points(data)
    ):
        return tuple(Point(data[i : i + POINT_BYTES]) for i in range(0, len(data), POINT_BYTES))
    return decode_points(data, count, what)


def public_mul(s: int, p: bytes) -> bytes:
    """``s * p`` of a public scalar and point."""
    return public_msm((s,), (p,))


def public_mul_base_many(scalars: Sequence[int]) -> list[bytes]:
    """``s * G`` for each public scalar (any ints, reduced here)."""
    if _ACCEL is not None and scalars:
        out = _ACCEL.mul_base(_encode(scalars))
        if out is not None:
            return [out[i : i + 32] for i in range(0, len(out), 32)]
    return [mul_base_any(s % ORDER) for s in scalars]


def public_mul_base(s: int) -> bytes:
    """``s * G`` of a public scalar."""
    return public_mul_base_many((s,))[0]
