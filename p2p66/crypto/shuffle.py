"""Lock-and-shuffle and its Fiat-Shamir cut-and-choose proof.

A lock-and-shuffle step turns ``D_in`` into ``D_out[j] = x * D_in[perm[j]]``
and publishes ``X = x*G``. The proof shows, without revealing x or perm, that
``D_out`` is a permutation of ``x * D_in`` for the x of ``X`` (so no card can
be duplicated, replaced, made up or marked, e.g. by planting ``2*P`` beside
``P``). Per round i the prover makes an intermediate shuffle
``E_i[j] = s_i * D_in[rho_i[j]]`` with ``S_i = s_i*G``; the challenge bit asks
for the link to ``D_in`` (``s_i, rho_i``) or to ``D_out``
(``u_i = s_i/x, phi_i = perm^-1 o rho_i``, so ``E_i[j] = u_i*D_out[phi_i[j]]``
and ``S_i = u_i*X``). A cheater survives each round with probability 1/2.

The proof is sent in compressed form (challenge + responses): the verifier
rebuilds every ``E_i, S_i`` from the responses and recomputes the challenge,
so the wire carries 32 + n bytes per round instead of 32*n.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.crypto.errors import MalformedMessage
from p2p66.crypto.group import (
    Point,
    Scalar,
    decode_scalar,
    encode_scalar,
    inverse,
    mul,
    mul_base,
    times,
)
from p2p66.crypto.hashing import (
    TAG_SHUFFLE_CHALLENGE,
    TAG_SHUFFLE_NONCE,
    check_permutation,
    derive_permutation,
    derive_scalar,
    hash32,
    hash_fields,
    invert_permutation,
)

CHALLENGE_BYTES = 32


def lock_shuffle(deck: tuple[Point, ...], lock: Scalar, perm: tuple[int, ...]) -> tuple[Point, ...]:
    """``out[j] = lock * deck[perm[j]]``."""
    return tuple(mul(lock, deck[p]) for p in perm)


def shuffle_proof_size(rounds: int, n: int) -> int:
    return 0 if rounds == 0 else CHALLENGE_BYTES + rounds * (32 + n)


@dataclass(frozen=True, slots=True)
class ShuffleStatement:
    """What a shuffle proof proves: ``d_out`` is a permutation of ``x * d_in``, ``lock = x*G``."""

    ctx: bytes
    d_in: tuple[Point, ...]
    d_out: tuple[Point, ...]
    lock: Point

    def nonce_key(self, base: bytes) -> bytes:
        """The prover's per-statement nonce key: its randomness depends on what is proven."""
        return hash_fields(
            TAG_SHUFFLE_NONCE, base, self.ctx, b"".join(self.d_in), b"".join(self.d_out), self.lock
        )

    def challenge(self, rounds: int, commitments: list[bytes]) -> bytes:
        return hash32(
            TAG_SHUFFLE_CHALLENGE,
            self.ctx,
            rounds,
            b"".join(self.d_in),
            b"".join(self.d_out),
            self.lock,
            *commitments,
        )


def _bit(challenge: bytes, i: int) -> int:
    return (challenge[i >> 3] >> (i & 7)) & 1


def prove_shuffle(
    stmt: ShuffleStatement, lock: Scalar, perm: tuple[int, ...], *, nonce_key: bytes, rounds: int
) -> bytes:
    """The compressed proof ``challenge || response_0 || ... || response_{rounds-1}``."""
    if rounds == 0:
        return b""
    n = len(stmt.d_in)
    secrets: list[tuple[Scalar, tuple[int, ...]]] = []
    commitments: list[bytes] = []
    for i in range(rounds):
        s = derive_scalar(nonce_key, "s", i)
        rho = derive_permutation(nonce_key, "rho", i, n)
        secrets.append((s, rho))
        commitments.append(b"".join(mul(s, stmt.d_in[r]) for r in rho) + mul_base(s))
    challenge = stmt.challenge(rounds, commitments)
    inv_perm = invert_permutation(perm)
    inv_lock = inverse(lock)
    out = [challenge]
    for i, (s, rho) in enumerate(secrets):
        if _bit(challenge, i):
            out.append(encode_scalar(times(s, inv_lock)) + bytes(inv_perm[r] for r in rho))
        else:
            out.append(encode_scalar(s) + bytes(rho))
    return b"".join(out)


def verify_shuffle(stmt: ShuffleStatement, proof: bytes, rounds: int) -> str | None:
    """None if the proof holds, else the reason it fails (for the error message)."""
    n = len(stmt.d_in)
    if len(proof) != shuffle_proof_size(rounds, n):
        return f"the proof has {len(proof)} bytes, {shuffle_proof_size(rounds, n)} expected"
    if rounds == 0:
        return None
    challenge = proof[:CHALLENGE_BYTES]
    step = 32 + n
    commitments: list[bytes] = []
    for i in range(rounds):
        chunk = proof[CHALLENGE_BYTES + i * step : CHALLENGE_BYTES + (i + 1) * step]
        try:
            s = decode_scalar(chunk[:32], f"round {i} scalar")
        except MalformedMessage as exc:
            return str(exc)
        links = tuple(chunk[32:])
        if not check_permutation(links, n):
            return f"round {i} does not give a permutation"
        if _bit(challenge, i):
            deck = b"".join(mul(s, stmt.d_out[k]) for k in links)
            commitments.append(deck + mul(s, stmt.lock))
        else:
            deck = b"".join(mul(s, stmt.d_in[k]) for k in links)
            commitments.append(deck + mul_base(s))
    if stmt.challenge(rounds, commitments) != challenge:
        return "the recomputed challenge differs: the deck is not a shuffle of the locked input"
    return None
