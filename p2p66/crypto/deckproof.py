"""The shuffle proof a hand's config selects, made and checked in one place.

``soundness`` 1..128 is the legacy cut-and-choose (kept so old replays
verify), 256 the shuffle argument, 0 no proof. The party, the public state,
the audit and the test kit all go through here, so they never disagree on
which proof a hand carries.
"""

from __future__ import annotations

from p2p66.crypto.argument import (
    argument_nonce_key,
    argument_proves_seed,
    prove_argument,
    verify_argument,
    verify_argument_knowing,
)
from p2p66.crypto.config import HandConfig, ProofKind
from p2p66.crypto.handkeys import HandSecrets
from p2p66.crypto.shuffle import ShuffleStatement, prove_shuffle, verify_shuffle


def prove_deck_shuffle(config: HandConfig, stmt: ShuffleStatement, sec: HandSecrets) -> bytes:
    """The proof for ``stmt`` by the owner of ``sec`` (empty with proofs off)."""
    if config.proof is ProofKind.ARGUMENT:
        nonce_key = argument_nonce_key(stmt, sec.base)
        return prove_argument(stmt, sec.lock, sec.perm, nonce_key=nonce_key)
    return prove_shuffle(
        stmt, sec.lock, sec.perm, nonce_key=stmt.nonce_key(sec.base), rounds=config.soundness
    )


def verify_deck_shuffle(config: HandConfig, stmt: ShuffleStatement, proof: bytes) -> str | None:
    """None if ``proof`` proves ``stmt`` under the hand's proof kind, else why not."""
    if config.proof is ProofKind.ARGUMENT:
        return verify_argument(stmt, proof)
    return verify_shuffle(stmt, proof, config.soundness)


def verify_deck_shuffle_knowing(
    config: HandConfig, stmt: ShuffleStatement, proof: bytes, sec: HandSecrets
) -> str | None:
    """``verify_deck_shuffle``'s verdict, from an auditor who knows the prover's revealed secrets.

    Only the shuffle argument has a cheaper way (``verify_argument_knowing``);
    the legacy cut-and-choose is checked as ever.
    """
    if config.proof is ProofKind.ARGUMENT:
        nonce_key = argument_nonce_key(stmt, sec.base)
        return verify_argument_knowing(stmt, proof, sec.lock, sec.perm, nonce_key)
    return verify_deck_shuffle(config, stmt, proof)


def shuffle_proves_seed(
    config: HandConfig, stmt: ShuffleStatement, proof: bytes, sec: HandSecrets
) -> bool:
    """True if ``proof`` is a shuffle argument that holds for ``sec``'s own permutation.

    An auditor may then take ``D_out`` as the seed's shuffle of ``D_in`` without
    recomputing it (SPEC.md 9.4); the cut-and-choose gives no such shortcut.
    """
    if config.proof is not ProofKind.ARGUMENT:
        return False
    nonce_key = argument_nonce_key(stmt, sec.base)
    return argument_proves_seed(stmt, proof, sec.lock, sec.perm, nonce_key)
