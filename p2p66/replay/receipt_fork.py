"""A fork proven after the game: two joiners' receipts files that disagree.

Each joiner's ``.receipts`` file (``p2p66.replay.receipts``) holds the host's
signed receipt for every record it was shown. Two honest histories agree on
every position both files cover; the first position where the host signed
two different heads is a fork proof (``p2p66.replay.fork``) that anybody can
check without secrets. What cannot be compared is said, and whose it is:
files of two different matches, or an entry the host key does not sign
(the file was damaged or forged by whoever hands it over).
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.replay.fork import Evidence, ForkProof, check_fork_proof
from p2p66.replay.receipts import Receipts
from p2p66.session.headacks import HOST_SEAT, HeadAck


class ReceiptsMismatch(ValueError):
    """The two files cannot be compared (the message says which file and why)."""


@dataclass(frozen=True, slots=True)
class Agreement:
    """No fork: both files hold the same receipts for every position up to ``upto``."""

    upto: int
    last_a: int
    last_b: int

    def describe(self) -> str:
        if self.upto < 0:
            return "no fork: the two files have no position in common to compare"
        text = f"no fork: the two agree up to position {self.upto}"
        if self.last_a != self.last_b:
            text += f" (one holds receipts up to {self.last_a}, the other up to {self.last_b})"
        return text


def _check(name: str, receipts: Receipts, receipt: HeadAck) -> None:
    header = receipts.header
    if not receipt.verify_signature(header.host_key, header.table):
        raise ReceiptsMismatch(
            f"{name}: the receipt for record {receipt.seq} is not signed by the host key of "
            "its header for this table (the file was damaged or forged)"
        )


def find_fork(
    a: Receipts, b: Receipts, names: tuple[str, str] = ("A", "B")
) -> ForkProof | Agreement:
    """The first position the host's receipts in ``a`` and ``b`` disagree on, as a proof.

    Every receipt compared is checked against the host key; the proof built is
    checked again as any verifier would (``check_fork_proof``) before it is returned.
    """
    if a.header.table != b.header.table:
        raise ReceiptsMismatch(
            f"{names[0]} and {names[1]} are from different matches (their table ids differ)"
        )
    if a.header.host_key != b.header.host_key:
        raise ReceiptsMismatch(
            f"{names[0]} and {names[1]} name different host keys for one table "
            "(one of the files was altered)"
        )
    theirs = {r.seq: r for r in b.entries}
    upto = -1
    for mine in a.entries:
        other = theirs.get(mine.seq)
        if other is None:
            continue
        _check(names[0], a, mine)
        _check(names[1], b, other)
        if mine.head != other.head:
            proof = ForkProof(
                a.header.table, HOST_SEAT, a.header.host_key, Evidence(mine), Evidence(other)
            )
            check_fork_proof(proof.encode())  # our bug if it fails: the receipts were checked
            return proof
        upto = mine.seq
    last = (a.entries[-1].seq if a.entries else -1, b.entries[-1].seq if b.entries else -1)
    return Agreement(upto, *last)
