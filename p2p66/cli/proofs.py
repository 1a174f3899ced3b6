"""The ``--soundness`` setting of host: what it accepts, and what proofs mean in plain words.

``on`` (the default) is the shuffle argument, whose soundness error is
negligible whatever the cheater computes; ``off`` leaves cheats to the audit
at the end of each hand. A number is the legacy cut-and-choose with that
many rounds: its k bits are *work* (a cheater grinds the Fiat-Shamir hash
about 2^k times), so network play refuses fewer than ``NETWORK_MIN_ROUNDS``
on either side.
"""

from __future__ import annotations

from typing import Final

from p2p66.crypto.config import ARGUMENT, MAX_ROUNDS, ProofKind, proof_kind

NETWORK_MIN_ROUNDS: Final = 64
WORDS: Final = {"on": ARGUMENT, "off": 0}


def parse_soundness(text: str) -> int:
    """The recorded soundness for ``on``, ``off`` or a number of cut-and-choose rounds.

    Raises ValueError with a message for the player.
    """
    value = WORDS.get(text.strip().lower())
    if value is not None:
        return value
    try:
        rounds = int(text)
    except ValueError:
        raise ValueError(f"--soundness takes on, off or a number of rounds, not {text!r}") from None
    if rounds in (0, ARGUMENT):
        return rounds
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"--soundness: cut-and-choose rounds are 1..{MAX_ROUNDS}, not {rounds}")
    return rounds


def network_refusal(soundness: int) -> str | None:
    """Why network play refuses this soundness (too few cut-and-choose rounds), or None."""
    if proof_kind(soundness) is ProofKind.CUT_AND_CHOOSE and soundness < NETWORK_MIN_ROUNDS:
        return (
            f"cut-and-choose proofs with {soundness} rounds can be forged with about "
            f"2^{soundness} hashes (the challenge can be ground offline); network play needs "
            f"at least {NETWORK_MIN_ROUNDS} rounds, or --soundness on"
        )
    return None


def describe_proofs(soundness: int) -> str:
    """What the proofs protect against, in words a player can weigh."""
    kind = proof_kind(soundness)
    if kind is ProofKind.OFF:
        return "proofs off (a cheat is found only by the audit at the end of each hand)"
    if kind is ProofKind.ARGUMENT:
        return "shuffle proofs on (a cheat is caught with all but negligible probability)"
    return (
        f"cut-and-choose proofs with {soundness} rounds (a cheater who computes about "
        f"2^{soundness} hashes can pass a marked or altered deck)"
    )
