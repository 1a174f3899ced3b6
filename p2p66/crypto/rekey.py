"""Re-keying with per-position keys and its Chaum-Pedersen (Schnorr-style) proof.

After every party has locked and shuffled, each party P re-keys every
position j: ``D_out[j] = r_j * D_in[j]`` with ``r_j = k_j / x``, and publishes
``K_j = k_j * G``. P's net factor on position j is then the card key ``k_j``,
which P can reveal for that one card, checkable at once by ``k_j*G == K_j``.
The proof shows for every j that ``log_{D_in[j]} D_out[j] = log_X K_j``
(X = x*G from P's shuffle step): n discrete-log-equality proofs under one
Fiat-Shamir challenge, sent compressed as ``c || z_0 || ... || z_{n-1}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.crypto.fastgroup import ACCELERATED, public_msm, public_mul_base_many
from p2p66.crypto.group import (
    ORDER,
    SCALAR_BYTES,
    Point,
    Scalar,
    encode_scalar,
    mul,
    mul_any,
    mul_base,
    plus,
    public_inverse,
    reduce_wide,
    times,
)
from p2p66.crypto.handkeys import RevealedSecrets
from p2p66.crypto.hashing import TAG_REKEY_CHALLENGE, TAG_REKEY_NONCE, derive_scalar, hash_fields


def rekey_deck(deck: tuple[Point, ...], ratios: tuple[Scalar, ...]) -> tuple[Point, ...]:
    """``out[j] = ratios[j] * deck[j]``."""
    return tuple(mul(r, p) for r, p in zip(ratios, deck, strict=True))


def rekey_proof_size(n: int) -> int:
    return SCALAR_BYTES * (n + 1)


@dataclass(frozen=True, slots=True)
class RekeyStatement:
    """What a re-key proof proves: ``log_{d_in[j]} d_out[j] = log_lock keys[j]`` for every j."""

    ctx: bytes
    d_in: tuple[Point, ...]
    d_out: tuple[Point, ...]
    lock: Point
    keys: tuple[Point, ...]

    def _fields(self) -> tuple[bytes, ...]:
        return (
            self.ctx,
            b"".join(self.d_in),
            b"".join(self.d_out),
            self.lock,
            b"".join(self.keys),
        )

    def nonce_key(self, base: bytes) -> bytes:
        return hash_fields(TAG_REKEY_NONCE, base, *self._fields())

    def challenge(self, commitments: list[bytes]) -> int:
        return reduce_wide(hash_fields(TAG_REKEY_CHALLENGE, *self._fields(), b"".join(commitments)))


def prove_rekey(
    stmt: RekeyStatement,
    ratios: tuple[Scalar, ...],
    *,
    nonce_key: bytes,
    lock: Scalar | None = None,
) -> bytes:
    """Commit ``A_j = w_j*D_in[j], B_j = w_j*X``; respond ``z_j = w_j + c*r_j``.

    Given the lock x of ``X``, ``B_j`` is computed as ``(w_j*x)*G``: the same point, at
    the price of a base-point multiplication.
    """
    nonces = [derive_scalar(nonce_key, "w", j) for j in range(len(stmt.d_in))]

    def b_point(w: Scalar) -> bytes:
        return mul(w, stmt.lock) if lock is None else mul_base(Scalar(times(w, lock)))

    commitments = [mul(w, p) + b_point(w) for w, p in zip(nonces, stmt.d_in, strict=True)]
    c = stmt.challenge(commitments)
    z = [plus(w, times(c, r)) for w, r in zip(nonces, ratios, strict=True)]
    return encode_scalar(c) + b"".join(encode_scalar(v) for v in z)


def _responses(stmt: RekeyStatement, proof: bytes) -> list[int] | str:
    """``c, z_0 .. z_{n-1}``, or the reason they are malformed."""
    n = len(stmt.d_in)
    if len(proof) != rekey_proof_size(n):
        return f"the proof has {len(proof)} bytes, {rekey_proof_size(n)} expected"
    values = [
        int.from_bytes(proof[i : i + SCALAR_BYTES], "little")
        for i in range(0, len(proof), SCALAR_BYTES)
    ]
    if any(v >= ORDER for v in values):
        return "the proof holds a non-canonical scalar"
    return values


FAILED = "the recomputed challenge differs: some position was re-keyed by an unknown factor"


def verify_rekey(stmt: RekeyStatement, proof: bytes) -> str | None:
    """None if every ``A_j = z_j*D_in[j] - c*D_out[j]``, ``B_j = z_j*X - c*K_j`` hash back to c."""
    values = _responses(stmt, proof)
    if isinstance(values, str):
        return values
    c, z = values[0], values[1:]
    commitments = [
        public_msm((z[j], -c), (stmt.d_in[j], stmt.d_out[j]))
        + public_msm((z[j], -c), (stmt.lock, stmt.keys[j]))
        for j in range(len(z))
    ]
    if stmt.challenge(commitments) != c:
        return FAILED
    return None


def verify_rekey_knowing(stmt: RekeyStatement, proof: bytes, known: RevealedSecrets) -> str | None:
    """``verify_rekey``'s verdict, cheaper for an auditor who knows the lock and the card keys.

    With ``X = x*G`` and every ``K_j = k_j*G`` (checked here), ``B_j = z_j*X - c*K_j``
    is ``(z_j*x - c*k_j)*G``, one base-point multiplication. ``A_j`` is
    ``z_j*D_in[j] - c*D_out[j]``: one two-point sum with the accelerator; with
    rbcl alone it is cheaper to check ``D_out[j] = r_j*D_in[j]`` for ``r_j = k_j/x``
    and take ``(z_j - c*r_j)*D_in[j]``: two multiplications and no addition.
    The points are the ones ``verify_rekey`` rebuilds, so the verdict is the
    same; when anything known does not match, this is ``verify_rekey`` itself.
    The keys are revealed secrets, so variable-time arithmetic leaks nothing.
    """
    values = _responses(stmt, proof)
    if isinstance(values, str):
        return values
    c, z = values[0], values[1:]
    lock, keys = known.secrets.lock, known.secrets.keys
    if (
        known.lock_point != stmt.lock
        or known.key_points != stmt.keys
        or len(keys) != len(z)
        or len(stmt.d_out) != len(z)
    ):
        return verify_rekey(stmt, proof)
    if ACCELERATED:
        a_points = [public_msm((z[j], -c), (stmt.d_in[j], stmt.d_out[j])) for j in range(len(z))]
    else:
        inv = public_inverse(lock)  # revealed
        ratios = [k * inv % ORDER for k in keys]
        if any(mul_any(r, p) != q for r, p, q in zip(ratios, stmt.d_in, stmt.d_out, strict=True)):
            return verify_rekey(stmt, proof)
        a_points = [mul_any((z[j] - c * ratios[j]) % ORDER, stmt.d_in[j]) for j in range(len(z))]
    b_points = public_mul_base_many([z[j] * lock - c * k for j, k in enumerate(keys)])
    commitments = [a + b for a, b in zip(a_points, b_points, strict=True)]
    if stmt.challenge(commitments) != c:
        return verify_rekey(stmt, proof)  # the same verdict, and its exact reason
    return None
