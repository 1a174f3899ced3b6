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
from p2p66.crypto.deckproof import verify_deck_shuffle, verify_deck_shuffle_knowing
from p2p66.crypto.handkeys import HandSecrets
from p2p66.crypto.rekey import RekeyStatement, verify_rekey, verify_rekey_knowing
from p2p66.crypto.shuffle import ShuffleStatement


@dataclass(frozen=True, slots=True)
class PendingProof:
    """One proof accepted on credit: what it must prove, under which hand, by whom."""

    config: HandConfig
    seat: int
    statement: ShuffleStatement | RekeyStatement
    proof: bytes

    def verdict(self, sec: HandSecrets | None = None) -> str | None:
        """None if the proof holds, else why not; ``sec``: the author's revealed secrets."""
        stmt = self.statement
        if isinstance(stmt, RekeyStatement):
            if sec is None:
                return verify_rekey(stmt, self.proof)
            return verify_rekey_knowing(stmt, self.proof, sec.lock, sec.keys)
        if sec is None:
            return verify_deck_shuffle(self.config, stmt, self.proof)
        return verify_deck_shuffle_knowing(self.config, stmt, self.proof, sec)


class ProofBacklog:
    """The proofs of a verifying run not yet checked, and whether all checked so far held."""

    def __init__(self) -> None:
        self._pending: dict[bytes, list[PendingProof]] = {}
        self.failed = 0
        self.settled = 0

    def add(
        self,
        config: HandConfig,
        seat: int,
        statement: ShuffleStatement | RekeyStatement,
        proof: bytes,
    ) -> None:
        self._pending.setdefault(config.digest, []).append(
            PendingProof(config, seat, statement, proof)
        )

    def settle_hand(self, config: HandConfig, secrets: Mapping[int, HandSecrets]) -> None:
        """Check the hand's proofs, each with its author's secrets where they are known."""
        for pending in self._pending.pop(config.digest, []):
            self._record(pending.verdict(secrets.get(pending.seat)))

    def settle_rest(self) -> None:
        """Check every proof still held back, without secrets."""
        pending, self._pending = self._pending, {}
        for proofs in pending.values():
            for proof in proofs:
                self._record(proof.verdict())

    @property
    def sound(self) -> bool:
        """True once every proof is checked and held: the run that trusted them stands."""
        return not self._pending and not self.failed

    def _record(self, verdict: str | None) -> None:
        self.settled += 1
        self.failed += verdict is not None
