"""Proofs a replay verifier holds back until the hand's revealed seeds make them cheap to check.

A verifier reading a whole file needs each proof's verdict only once the file
is read, not the moment the proof arrives. So a verifying ``HandState`` hands
its proofs to a ``ProofBacklog``; the hand's audit, which knows every revealed
secret, settles them (``verify_*_knowing``: the same verdict at about half the
cost), and whatever is left when the file ends (a hand without an audit) is
checked the usual way. The run that held proofs back counts only if every one
of them held (``sound``); otherwise the verifier reads the records again,
checking every proof on arrival, so that the first bad proof is reported on
the record that carried it, exactly as a live judge would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from p2p66.crypto.config import HandConfig
from p2p66.crypto.deckproof import (
    shuffle_proves_seed,
    verify_deck_shuffle,
    verify_deck_shuffle_knowing,
)
from p2p66.crypto.group import Point, Scalar, mul_base
from p2p66.crypto.handkeys import RevealedSecrets
from p2p66.crypto.rekey import RekeyStatement, verify_rekey, verify_rekey_knowing
from p2p66.crypto.shuffle import ShuffleStatement


@dataclass(frozen=True, slots=True)
class PendingProof:
    """One proof accepted on credit: what it must prove, under which hand, by whom."""

    config: HandConfig
    seat: int
    statement: ShuffleStatement | RekeyStatement
    proof: bytes

    def verdict(self, known: RevealedSecrets | None = None) -> str | None:
        """None if the proof holds, else why not; ``known``: the author's revealed secrets."""
        stmt = self.statement
        if isinstance(stmt, RekeyStatement):
            if known is None:
                return verify_rekey(stmt, self.proof)
            return verify_rekey_knowing(stmt, self.proof, known)
        if known is None:
            return verify_deck_shuffle(self.config, stmt, self.proof)
        return verify_deck_shuffle_knowing(self.config, stmt, self.proof, known.secrets)


@dataclass(frozen=True, slots=True)
class PendingKey:
    """One card key accepted on credit: it must match the commitment ``K_pos`` its author sent."""

    seat: int
    pos: int
    key: Scalar
    commitment: Point

    def verdict(self, known: RevealedSecrets | None = None) -> str | None:
        """None if ``key*G`` is the commitment. The seed's key with the seed's commitment
        holds without a multiplication (``known.key_points`` are the seed's keys times G)."""
        if (
            known is not None
            and self.key == known.secrets.keys[self.pos]
            and self.commitment == known.key_points[self.pos]
        ):
            return None
        if mul_base(self.key) == self.commitment:
            return None
        return f"player {self.seat}'s key for position {self.pos} does not match its commitment"


Pending = PendingProof | PendingKey


class ProofBacklog:
    """The proofs and keys of a verifying run not yet checked, and whether all checked held."""

    def __init__(self) -> None:
        self._pending: dict[bytes, list[Pending]] = {}
        self.failed = 0
        self.proofs = 0
        """Proofs checked so far (and keys, below)."""
        self.keys = 0

    def add_proof(
        self,
        config: HandConfig,
        seat: int,
        statement: ShuffleStatement | RekeyStatement,
        proof: bytes,
    ) -> None:
        self._pending.setdefault(config.digest, []).append(
            PendingProof(config, seat, statement, proof)
        )

    def add_key(
        self, config: HandConfig, seat: int, pos: int, key: Scalar, commitment: Point
    ) -> None:
        self._pending.setdefault(config.digest, []).append(PendingKey(seat, pos, key, commitment))

    def pending(self, config: HandConfig) -> tuple[Pending, ...]:
        """What the hand of ``config`` still has held back, in the order it arrived."""
        return tuple(self._pending.get(config.digest, ()))

    def settle_seed_shuffle(
        self,
        config: HandConfig,
        seat: int,
        d_in: tuple[Point, ...],
        d_out: tuple[Point, ...],
        known: RevealedSecrets,
    ) -> bool:
        """Settle ``seat``'s held-back shuffle argument from ``d_in`` to ``d_out`` if it holds
        for the seed's own permutation (``shuffle_proves_seed``); False leaves it held back."""
        items = self._pending.get(config.digest, [])
        for i, item in enumerate(items):
            if (
                isinstance(item, PendingProof)
                and isinstance(item.statement, ShuffleStatement)
                and item.seat == seat
                and item.statement.d_in == d_in
                and item.statement.d_out == d_out
                and item.statement.lock == known.lock_point
                and shuffle_proves_seed(config, item.statement, item.proof, known.secrets)
            ):
                del items[i]
                self._record(item, None)
                return True
        return False

    def settle_hand(self, config: HandConfig, known: Mapping[int, RevealedSecrets]) -> None:
        """Check the hand's proofs and keys, each with its author's secrets where known."""
        for pending in self._pending.pop(config.digest, []):
            self._record(pending, pending.verdict(known.get(pending.seat)))

    def settle_rest(self) -> None:
        """Check everything still held back, without secrets."""
        pending, self._pending = self._pending, {}
        for items in pending.values():
            for item in items:
                self._record(item, item.verdict())

    @property
    def sound(self) -> bool:
        """True once everything is checked and held: the run that trusted it stands."""
        return not self._pending and not self.failed

    def _record(self, item: Pending, verdict: str | None) -> None:
        if isinstance(item, PendingKey):
            self.keys += 1
        else:
            self.proofs += 1
        self.failed += verdict is not None
