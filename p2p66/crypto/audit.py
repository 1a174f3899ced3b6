"""Audit a finished hand from its public transcript and the revealed seeds.

The audit replays every payload through a fresh ``HandState`` (the live
checks: order, proofs, keys against commitments, the ledger) and, before
each, recomputes from the author's seed what an honest author would have
sent: the lock, the shuffled deck, the re-keyed deck, the key commitments,
every revealed key. The first difference is raised as a ``CheatingDetected``
naming the author; a bad deck is classified by decrypting it with the
revealed locks (duplicated card, made-up card, planted ``2*P``, or a valid
shuffle that is not the seed's). With proofs off this is where cheats that
could not be pinned on anyone during play get their name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from p2p66.crypto.backlog import ProofBacklog
from p2p66.crypto.encoding import codebook, doubled_codebook
from p2p66.crypto.errors import (
    BadSeedReveal,
    ConfigMismatch,
    DuplicatedCard,
    InvalidRekey,
    MadeUpCard,
    MissingSeed,
    PlantedPoint,
    ShuffleNotFromSeed,
    WrongKey,
)
from p2p66.crypto.group import Point, inverse, mul, product
from p2p66.crypto.handkeys import HandSecrets, RevealedSecrets, seed_commitment
from p2p66.crypto.ledger import Event
from p2p66.crypto.messages import HandPayload, KeyReveal, RekeyStep, ShuffleStep
from p2p66.crypto.rekey import rekey_deck
from p2p66.crypto.shuffle import lock_shuffle
from p2p66.crypto.state import HandState
from p2p66.crypto.transcript import HandTranscript
from p2p66.engine.cards import CARD_CODES


@dataclass(frozen=True, slots=True)
class AuditReport:
    """What a clean audit established about the hand."""

    session_id: bytes
    hand: int
    deck: tuple[int, ...]
    """The card id at every deck position: the deal, as the engine would take it."""
    dealt: tuple[tuple[int, ...], ...]
    """Per seat, the positions opened privately to it."""
    events: tuple[Event, ...]
    """Every opening, play, show, exchange and take, in order."""
    proofs_checked: int
    payloads: int
    deal_complete: bool


def audit(
    transcript: HandTranscript,
    seeds: Mapping[int, bytes] | None = None,
    *,
    verify_proofs: bool = True,
    backlog: ProofBacklog | None = None,
) -> AuditReport:
    """Recompute and check the whole hand; return the report or raise the first cheat found.

    ``seeds`` adds to (or stands in for) the ``SeedReveal`` payloads of the transcript.
    ``verify_proofs=False`` is for a player who already checked every proof live: with
    every seed revealed, each deck is recomputed from its seed anyway, which is stronger.
    ``backlog``: the proofs a replay verifier held back for this hand, settled here with
    the revealed secrets once the audit is clean.
    """
    auditor = _Auditor(transcript, seeds, verify_proofs, backlog)
    report = auditor.run()
    if backlog is not None:
        backlog.settle_hand(transcript.config, auditor.revealed)
    return report


class _Auditor:
    def __init__(
        self,
        transcript: HandTranscript,
        seeds: Mapping[int, bytes] | None,
        verify_proofs: bool = True,
        backlog: ProofBacklog | None = None,
    ) -> None:
        self.verify_proofs = verify_proofs
        self.backlog = backlog
        self.config = transcript.config
        self.payloads = transcript.payloads
        self.seeds = {**transcript.seeds(), **(seeds or {})}
        self.state = HandState(self.config)
        self.secrets: dict[int, HandSecrets] = {}
        self.revealed: dict[int, RevealedSecrets] = {}
        self.missing: list[int] = []
        self.cards: tuple[int, ...] = self.config.deck
        """The card at every position after the shuffles so far, each found equal to its seed's."""
        self.exact_shuffles = 0

    def run(self) -> AuditReport:
        for payload in self.payloads:
            self.state.check_header(payload)
            self._from_seed(payload)
            self.state.apply(payload, verify=self.verify_proofs)
        if self.missing:
            raise MissingSeed(
                self.missing[0], "did not reveal its hand seed, so its steps are unchecked"
            )
        return self._report()

    def _from_seed(self, payload: HandPayload) -> None:
        seat = payload.seat
        if isinstance(payload, ShuffleStep):
            if payload.config != self.config.digest:
                raise ConfigMismatch(seat, "started the hand with another hand configuration")
            seed = self.seeds.get(seat)
            if seed is None:
                self.missing.append(seat)
                return
            if seed_commitment(self.config, seat, seed) != payload.commitment:
                raise BadSeedReveal(seat, "revealed a hand seed that does not match its commitment")
            derived = HandSecrets.derive(self.config, seat, seed)
            self.secrets[seat] = derived
            self.revealed[seat] = RevealedSecrets.of(derived)
            self._shuffle(payload, self.revealed[seat])
            return
        known = self.revealed.get(seat)
        if known is None:
            return
        sec = known.secrets
        if isinstance(payload, RekeyStep):
            self._rekey(payload, known)
        elif isinstance(payload, KeyReveal):
            for r in payload.reveals:
                if r.pos < self.config.size and r.key != sec.keys[r.pos]:
                    raise WrongKey(
                        seat, f"revealed a key for position {r.pos} that its seed does not give"
                    )

    def _shuffle(self, msg: ShuffleStep, known: RevealedSecrets) -> None:
        seat, sec = msg.seat, known.secrets
        if msg.lock != known.lock_point:
            raise ShuffleNotFromSeed(seat, "published a lock point its seed does not give")
        d_in = self.state.decks[-1]
        if len(msg.deck) != len(d_in):
            return  # the live check's to report
        if self._proven(msg, d_in, known) or msg.deck == lock_shuffle(d_in, sec.lock, sec.perm):
            self.cards = tuple(self.cards[p] for p in sec.perm)
            self.exact_shuffles += 1
            return
        shufflers = [s for s in self.config.order if s in self.state.locks] + [seat]
        if any(s not in self.secrets for s in shufflers):
            raise ShuffleNotFromSeed(seat, "its shuffled deck is not the one its seed gives")
        self._classify(seat, msg.deck, shufflers)

    def _proven(self, msg: ShuffleStep, d_in: tuple[Point, ...], known: RevealedSecrets) -> bool:
        """The held-back shuffle argument holds for the seed's own permutation: by its
        soundness the deck is the seed's shuffle, no need to recompute it (SPEC.md 9.4)."""
        return self.backlog is not None and self.backlog.settle_seed_shuffle(
            self.config, msg.seat, d_in, msg.deck, known
        )

    def _classify(self, seat: int, deck: tuple[Point, ...], shufflers: list[int]) -> None:
        unlock = inverse(product([self.secrets[s].lock for s in shufflers]))
        points = [mul(unlock, p) for p in deck]
        book = codebook(self.config.session_id)
        allowed = set(self.config.deck)
        cards = [book.get(p) for p in points]
        if all(c is None or c not in allowed for c in cards):
            raise ShuffleNotFromSeed(seat, "its deck is not locked with the lock its seed gives")
        doubled = doubled_codebook(self.config.session_id)
        for j, (card, point) in enumerate(zip(cards, points, strict=True)):
            if card in allowed:
                continue
            if point in doubled:
                raise PlantedPoint(
                    seat,
                    f"put twice the point of {CARD_CODES[doubled[point]]} at position {j}, "
                    "a marker to track that card",
                )
            raise MadeUpCard(seat, f"put a point that is no card of this deck at position {j}")
        for card, count in Counter(c for c in cards if c is not None).items():
            if count > 1:
                where = [j for j, c in enumerate(cards) if c == card]
                raise DuplicatedCard(
                    seat,
                    f"put {CARD_CODES[card]} at positions {where}: duplicated or substituted",
                )
        raise ShuffleNotFromSeed(
            seat, "its deck is a shuffle of the cards, but not the one its seed gives"
        )

    def _rekey(self, msg: RekeyStep, known: RevealedSecrets) -> None:
        seat, sec = msg.seat, known.secrets
        expected_keys = known.key_points
        for j, (got, want) in enumerate(zip(msg.keys, expected_keys, strict=False)):
            if got != want:
                raise InvalidRekey(
                    seat, f"committed to a card key for position {j} its seed does not give"
                )
        d_in = self.state.decks[-1]
        if len(msg.deck) != len(d_in) or self.config.soundness:
            # With proofs on, the re-key proof (checked live, or by this audit) for these
            # K_j = k_j*G and the seed's X forces D_out[j] = (k_j/x)*D_in[j]: no need to redo it.
            return
        expected = rekey_deck(d_in, sec.ratios())
        for j, (got, want) in enumerate(zip(msg.deck, expected, strict=True)):
            if got != want:
                raise InvalidRekey(
                    seat, f"re-keyed position {j} by a factor its seed does not give"
                )

    def _report(self) -> AuditReport:
        config = self.config
        n_shuffles = len(self.state.locks)
        if n_shuffles == config.parties == self.exact_shuffles:
            deck = self.cards  # every shuffle was its seed's: the cards follow the permutations
        elif n_shuffles == config.parties:  # pragma: no cover - a bad shuffle raised above
            unlock = inverse(product([self.secrets[s].lock for s in config.order]))
            book = codebook(config.session_id)
            deck = tuple(book[mul(unlock, p)] for p in self.state.decks[config.parties])
        else:
            deck = ()
        ledger = self.state.ledger
        return AuditReport(
            session_id=config.session_id,
            hand=config.hand,
            deck=deck,
            dealt=tuple(tuple(ledger.opened_to(s)) for s in range(config.parties)),
            events=tuple(ledger.events),
            proofs_checked=self.state.proofs_checked,
            payloads=len(self.payloads),
            deal_complete=self.state.deal_complete(),
        )
