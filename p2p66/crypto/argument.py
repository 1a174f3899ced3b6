"""The shuffle argument: a zero-knowledge proof that a deck is a locked permutation of another.

Statement (``ShuffleStatement``): ``d_out[i] = x * d_in[perm[i]]`` for some
permutation and the x of ``X = x*G``. Built from Neff's iterated logarithmic
multiplication proof (ILMPP) and his simple k-shuffle (CCS 2001, sections 2
and 3), reduced to this Diffie-Hellman form by public random weights
(protocol/SPEC.md section 9.3 has every byte and the soundness argument):

1. ``e_i`` are derived from the statement; ``E = sum e_i d_in[i]``. A true
   statement gives ``sum e_perm(i) d_out[i] = x*E``; a false one, for all
   n! orders at once, only with probability ``n!/q`` (under 2^-172 for 24
   cards).
2. The prover hides the permuted weights as ``Y_i = gamma*e_perm(i)*G`` with
   ``Gamma = gamma*G`` and publishes ``Lambda = gamma^n*G`` and ``F = x*E``.
   Neff's simple k-shuffle on ``(e_i*G) -> Y_i`` at a random point t (an
   ILMPP of n+1 terms) shows ``{Y_i} = gamma*{e_i*G}`` as multisets.
3. A linear Schnorr proof under the same challenge ties them to the decks:
   ``log Y_i`` are the weights of ``sum y_i d_out[i] = gamma*F``, and
   ``F = x*E`` with ``X = x*G`` (Chaum-Pedersen).

Soundness does not depend on any number of rounds: every challenge is a full
scalar, so grinding the Fiat-Shamir hash gains nothing measurable. The proof
is compressed (challenge and responses; the verifier recomputes the
commitments): ``32 * (3n + 6)`` bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.crypto.errors import CryptoError, MalformedMessage
from p2p66.crypto.fastgroup import (
    decode_public_points,
    public_msm,
    public_mul,
    public_mul_base_many,
)
from p2p66.crypto.group import (
    BASE,
    IDENTITY,
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    Scalar,
    add,
    decode_response,
    encode_scalar,
    inverse,
    minus,
    mul_any,
    mul_base,
    mul_base_any,
    plus,
    reduce_wide,
    sub,
    times,
)
from p2p66.crypto.hashing import (
    TAG_ARGUMENT_CHALLENGE,
    TAG_ARGUMENT_NONCE,
    TAG_ARGUMENT_POINT,
    TAG_ARGUMENT_STATEMENT,
    derive_scalar,
    hash_fields,
)
from p2p66.crypto.shuffle import ShuffleStatement


def argument_size(n: int) -> int:
    """Bytes of the argument for a deck of n cards."""
    return POINT_BYTES * (n + 3) + SCALAR_BYTES * (2 * n + 3)


def argument_nonce_key(stmt: ShuffleStatement, base: bytes) -> bytes:
    """The prover's nonce key: its randomness depends on its secret base and on the statement."""
    return hash_fields(
        TAG_ARGUMENT_NONCE, base, stmt.ctx, b"".join(stmt.d_in), b"".join(stmt.d_out), stmt.lock
    )


def _statement_hash(stmt: ShuffleStatement) -> bytes:
    return hash_fields(
        TAG_ARGUMENT_STATEMENT, stmt.ctx, b"".join(stmt.d_in), b"".join(stmt.d_out), stmt.lock
    )


def inverses(values: list[int]) -> list[int]:
    """Every value's inverse with one constant-time inversion (Montgomery's trick)."""
    prefix = [1]
    for value in values:
        prefix.append(times(prefix[-1], value))
    inv = int(inverse(Scalar(prefix[-1])))
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = times(inv, prefix[i])
        inv = times(inv, values[i])
    return out


def weights(stmt: ShuffleStatement) -> tuple[bytes, tuple[int, ...]]:
    """The statement hash h and the public weights ``e_i = derive_scalar(h, "e", i)``."""
    h = _statement_hash(stmt)
    return h, tuple(derive_scalar(h, "e", i) for i in range(len(stmt.d_in)))


def weighted_sum(scalars: tuple[int, ...], points: tuple[Point, ...]) -> bytes:
    """``sum scalars[i] * points[i]`` (the identity encoding if it cancels)."""
    total = mul_any(scalars[0], points[0])
    for s, p in zip(scalars[1:], points[1:], strict=True):
        total = add(total, mul_any(s, p))
    return total


def evaluation_point(h: bytes, first: bytes) -> int:
    """Neff's t: where the two polynomials are compared, fixed after the first message."""
    return reduce_wide(hash_fields(TAG_ARGUMENT_POINT, h, first))


def _challenge(h: bytes, first: bytes, commitments: list[bytes]) -> int:
    return reduce_wide(hash_fields(TAG_ARGUMENT_CHALLENGE, h, first, b"".join(commitments)))


def _ilmpp_commitment_logs(theta: list[Scalar], u: list[int], v: list[int]) -> list[int]:
    """Logs of Neff's ``A_0 = th_0*V_0``, ``A_i = th_i*V_i - th_{i-1}*U_i``, ``A_n = -th*U_n``."""
    k = len(theta)
    logs = [times(theta[0], v[0])]
    logs += [minus(times(theta[i], v[i]), times(theta[i - 1], u[i])) for i in range(1, k)]
    logs.append(minus(0, times(theta[k - 1], u[k])))
    return logs


def _ilmpp_responses(theta: list[Scalar], u: list[int], v: list[int], c: int) -> list[int]:
    """``r_i = th_i + c * prod_{j<=i} u_j/v_j``: what makes every ``A_i`` equation hold."""
    if 0 in v:  # pragma: no cover - t hit a root: probability n/2**252
        raise CryptoError("the shuffle argument met a zero term; retry with another nonce")
    ratio = 1
    responses = []
    for i, inv_v in enumerate(inverses(v[: len(theta)])):
        ratio = times(ratio, times(u[i], inv_v))
        responses.append(plus(theta[i], times(c, ratio)))
    return responses


def prove_argument(
    stmt: ShuffleStatement, lock: Scalar, perm: tuple[int, ...], *, nonce_key: bytes
) -> bytes:
    """The argument ``Gamma Lambda F Y_0..Y_{n-1} | c r_0..r_{n-1} z_0..z_{n-1} z_g z_x``."""
    n = len(stmt.d_in)
    h, e = weights(stmt)
    big_e = public_msm(e, stmt.d_in)  # public weights and deck: the accelerator may take it
    gamma = derive_scalar(nonce_key, "gamma", 0)
    y = [times(gamma, e[perm[i]]) for i in range(n)]
    lam: int = gamma
    for _ in range(n - 1):
        lam = times(lam, gamma)
    big_f = mul_any(lock, big_e)
    first = b"".join(
        [mul_base(gamma), mul_base(Scalar(lam)), big_f, *(mul_base(Scalar(v)) for v in y)]
    )
    t = evaluation_point(h, first)
    # Neff's ILMPP on U = (e_i - t)*G .. , Lambda and V = Y_i - t*Gamma .., G: prod u = prod v.
    u = [(w - t) % ORDER for w in e] + [lam]
    v = [minus(y[i], times(gamma, t)) for i in range(n)] + [1]
    theta = [derive_scalar(nonce_key, "theta", i) for i in range(n)]
    # The linear part: Y_i = y_i*G, sum y_i*Q_i = gamma*F, Gamma = gamma*G, X = x*G, F = x*E.
    w = [derive_scalar(nonce_key, "w", i) for i in range(n)]
    w_gamma = derive_scalar(nonce_key, "w-gamma", 0)
    w_x = derive_scalar(nonce_key, "w-x", 0)
    commitments = [mul_base_any(a) for a in _ilmpp_commitment_logs(theta, u, v)]
    commitments += [mul_base(wi) for wi in w]
    commitments.append(sub(weighted_sum(tuple(w), stmt.d_out), mul_any(w_gamma, big_f)))
    commitments += [mul_base(w_gamma), mul_base(w_x), mul_any(w_x, big_e)]
    c = _challenge(h, first, commitments)
    responses = _ilmpp_responses(theta, u, v, c)
    responses += [plus(w[i], times(c, y[i])) for i in range(n)]
    responses += [plus(w_gamma, times(c, gamma)), plus(w_x, times(c, lock))]
    return first + encode_scalar(c) + b"".join(encode_scalar(r) for r in responses)


@dataclass(frozen=True, slots=True)
class _Parsed:
    """An argument's fields, each decoded and checked for range."""

    first: bytes
    gamma: Point
    lam: Point
    big_f: Point
    y: tuple[Point, ...]
    c: int
    r: tuple[int, ...]
    z: tuple[int, ...]
    z_gamma: int
    z_x: int


def _parse(stmt: ShuffleStatement, proof: bytes) -> _Parsed | str:
    """The argument's fields, or the reason they are malformed."""
    n = len(stmt.d_in)
    if len(stmt.d_out) != n:
        return f"the deck has {len(stmt.d_out)} cards, {n} expected"
    if len(proof) != argument_size(n):
        return f"the proof has {len(proof)} bytes, {argument_size(n)} expected"
    split = POINT_BYTES * (n + 3)
    first = proof[:split]
    try:
        points = decode_public_points(first, n + 3, "the argument's commitments")
        scalars = [
            decode_response(proof[i : i + SCALAR_BYTES], f"the argument's scalar {k}")
            for k, i in enumerate(range(split, len(proof), SCALAR_BYTES))
        ]
    except MalformedMessage as exc:
        return str(exc)
    return _Parsed(
        first,
        points[0],
        points[1],
        points[2],
        points[3:],
        scalars[0],
        tuple(scalars[1 : n + 1]),
        tuple(scalars[n + 1 : 2 * n + 1]),
        scalars[2 * n + 1],
        scalars[2 * n + 2],
    )


def verify_argument(stmt: ShuffleStatement, proof: bytes) -> str | None:
    """None if the argument holds, else the reason it fails (for the error message).

    Every recomputed commitment is one weighted sum of public points
    (``public_msm``: one call to the accelerator when it is built, and
    rbcl's multiplications and one subtraction otherwise, as before).
    """
    p = _parse(stmt, proof)
    if isinstance(p, str):
        return p
    n = len(stmt.d_in)
    c, r, z = p.c, p.r, p.z
    h, e = weights(stmt)
    big_e = public_msm(e, stmt.d_in)
    t = evaluation_point(h, p.first)
    g, gamma = BASE, p.gamma
    t_gamma = public_mul(t, gamma)
    v_pts = [sub(y, t_gamma) for y in p.y]
    commitments = [public_msm((r[0], -c * (e[0] - t)), (v_pts[0], g))]
    commitments += [public_msm((r[i], -r[i - 1] * (e[i] - t)), (v_pts[i], g)) for i in range(1, n)]
    commitments.append(public_msm((c, -r[n - 1]), (g, p.lam)))
    commitments += [public_msm((z[i], -c), (g, p.y[i])) for i in range(n)]
    commitments.append(public_msm((*z, -p.z_gamma), (*stmt.d_out, p.big_f)))
    commitments += [
        public_msm((p.z_gamma, -c), (g, gamma)),
        public_msm((p.z_x, -c), (g, stmt.lock)),
        public_msm((p.z_x, -c), (big_e, p.big_f)),
    ]
    if _challenge(h, p.first, commitments) != c:
        return FAILED
    return None


FAILED = "the recomputed challenge differs: the deck is not a shuffle of the locked input"


def verify_argument_knowing(
    stmt: ShuffleStatement, proof: bytes, lock: Scalar, perm: tuple[int, ...], nonce_key: bytes
) -> str | None:
    """``verify_argument``'s verdict, cheaper for an auditor who knows the prover's secrets.

    Once a hand's seeds are revealed, the lock x, the permutation and (if the
    prover derived its nonces as section 9.3 says it SHOULD) gamma are known, so
    the logs of ``Gamma``, ``Lambda``, ``Y_i`` and ``X`` are too. Each is
    checked (``log*G`` must equal the point sent, and ``F = x*E``); then every
    commitment with a known log is one base-point multiplication, and
    ``D2 = zx*E - c*F = (zx - c*x)*E`` one multiplication instead of two. The
    points are exactly the ones ``verify_argument`` rebuilds, so the verdict
    is the same; whenever a known log does not match (other nonces, another
    seed), this is ``verify_argument`` itself. The scalars are revealed
    secrets, so Python's variable-time arithmetic leaks nothing.
    """
    if _holds_knowing(stmt, proof, lock, perm, nonce_key):
        return None
    return verify_argument(stmt, proof)  # the same verdict, and its exact reason


def argument_proves_seed(
    stmt: ShuffleStatement, proof: bytes, lock: Scalar, perm: tuple[int, ...], nonce_key: bytes
) -> bool:
    """True if the argument holds with ``Y_i = (gamma*e_perm(i))*G`` for this very ``perm``.

    Then, by the argument's soundness (SPEC.md 9.3 and 9.4), ``D_out[i] = x*D_in[perm[i]]``
    except with negligible probability, so an auditor need not recompute the deck.
    """
    return _holds_knowing(stmt, proof, lock, perm, nonce_key)


def _holds_knowing(
    stmt: ShuffleStatement, proof: bytes, lock: Scalar, perm: tuple[int, ...], nonce_key: bytes
) -> bool:
    """True if every known log fits and the commitments they give hash back to c."""
    p = _parse(stmt, proof)
    n = len(stmt.d_in)
    if isinstance(p, str) or sorted(perm) != list(range(n)):
        return False
    h, e = weights(stmt)
    g = derive_scalar(nonce_key, "gamma", 0)
    y = [g * e[perm[i]] % ORDER for i in range(n)]
    lam = pow(g, n, ORDER)
    # revealed secrets: public values now, so the variable-time accelerator may take them
    if public_mul_base_many([g, lam, lock, *y]) != [p.gamma, p.lam, stmt.lock, *p.y]:
        return False
    big_e = public_msm(e, stmt.d_in)
    if big_e == IDENTITY or public_mul(lock, big_e) != p.big_f:
        return False
    c, r, z = p.c, p.r, p.z
    t = evaluation_point(h, p.first)
    v = [(yi - g * t) % ORDER for yi in y]
    logs = [r[0] * v[0] - c * (e[0] - t)]
    logs += [r[i] * v[i] - r[i - 1] * (e[i] - t) for i in range(1, n)]
    logs.append(c - r[n - 1] * lam)
    logs += [z[i] - c * y[i] for i in range(n)]
    opened = (p.z_x - c * lock) % ORDER
    known = public_mul_base_many([*logs, p.z_gamma - c * g, opened])
    commitments = known[: 2 * n + 1]
    commitments.append(public_msm((*z, -p.z_gamma), (*stmt.d_out, p.big_f)))
    commitments += [*known[2 * n + 1 :], public_mul(opened, big_e)]
    return _challenge(h, p.first, commitments) == c
