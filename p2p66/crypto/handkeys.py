"""A party's secrets for one hand, all derived from one 32-byte hand seed.

The seed is the only randomness a party draws per hand. It is committed to
(``seed_commitment``) in the party's first message and revealed when the hand
is over, so anyone can re-derive the lock, the permutation and every card key
and check each step of the hand. Binding the derivation to the config digest
means a seed reused by mistake in another hand still gives fresh secrets.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from p2p66.crypto.config import HandConfig
from p2p66.crypto.errors import LocalUsageError
from p2p66.crypto.fastgroup import public_mul_base_many
from p2p66.crypto.group import Point, Scalar, inverse, mul_base, times
from p2p66.crypto.hashing import (
    TAG_SECRETS,
    TAG_SEED_COMMIT,
    derive_permutation,
    derive_scalar,
    hash32,
    hash_fields,
)

SEED_BYTES = 32

Rng = Callable[[int], bytes]
"""Randomness source: ``rng(n)`` returns n random bytes. Injected, never global."""


def system_rng(n: int) -> bytes:
    """The default randomness at the edge: the OS CSPRNG via ``secrets``."""
    return secrets.token_bytes(n)


def new_seed(rng: Rng = system_rng) -> bytes:
    """A fresh 32-byte hand seed."""
    seed = rng(SEED_BYTES)
    if len(seed) != SEED_BYTES:
        raise LocalUsageError(f"the rng returned {len(seed)} bytes, not {SEED_BYTES}")
    return seed


def seed_commitment(config: HandConfig, seat: int, seed: bytes) -> bytes:
    """``H32(seed-commit, config digest, seat, seed)``, sent in the party's first message."""
    return hash32(TAG_SEED_COMMIT, config.digest, seat, seed)


@dataclass(frozen=True, slots=True)
class HandSecrets:
    """Lock scalar, permutation and per-position card keys of one party in one hand."""

    seat: int
    seed: bytes = field(repr=False)
    base: bytes = field(repr=False)
    lock: Scalar = field(repr=False)
    perm: tuple[int, ...] = field(repr=False)
    keys: tuple[Scalar, ...] = field(repr=False)

    @classmethod
    def derive(cls, config: HandConfig, seat: int, seed: bytes) -> HandSecrets:
        if len(seed) != SEED_BYTES:
            raise LocalUsageError(f"a hand seed is {SEED_BYTES} bytes")
        if not 0 <= seat < config.parties:
            raise LocalUsageError(f"seat {seat} is not at this table of {config.parties}")
        base = hash_fields(TAG_SECRETS, config.digest, seat, seed)
        n = config.size
        return cls(
            seat=seat,
            seed=seed,
            base=base,
            lock=derive_scalar(base, "lock", 0),
            perm=derive_permutation(base, "perm", 0, n),
            keys=tuple(derive_scalar(base, "card-key", j) for j in range(n)),
        )

    def lock_point(self) -> Point:
        return mul_base(self.lock)

    def key_points(self) -> tuple[Point, ...]:
        """``K_j = k_j * G``: the commitments to the card keys, published with the re-key."""
        return tuple(mul_base(k) for k in self.keys)

    def ratios(self) -> tuple[Scalar, ...]:
        """``r_j = k_j / x``: the re-key factors that turn the lock into per-position keys."""
        inv = inverse(self.lock)
        return tuple(Scalar(times(k, inv)) for k in self.keys)


@dataclass(frozen=True, slots=True)
class RevealedSecrets:
    """A party's secrets once its seed is public, with the points they give, computed once.

    Made by ``of``, so ``lock_point`` is ``lock*G`` and ``key_points[j]`` is
    ``keys[j]*G``: the audit compares them with what the party published, and
    the cheaper proof and key checks of a replay's verifier build on them.
    """

    secrets: HandSecrets
    lock_point: Point
    key_points: tuple[Point, ...]

    @classmethod
    def of(cls, sec: HandSecrets) -> RevealedSecrets:
        """Only once the seed is public: the points come from the variable-time accelerator."""
        points = public_mul_base_many([sec.lock, *sec.keys])
        return cls(sec, Point(points[0]), tuple(Point(k) for k in points[1:]))
