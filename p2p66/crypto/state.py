"""The public state of one hand, and the checks every message must pass.

``HandState`` never knows which party is "us": it applies every payload,
ours and the others', with the same rules (message order, deck checks,
proofs, keys against their commitments, the ledger), like h11's connection
state. A party adds only its secrets on top (``DealParty``), and the audit
adds the revealed seeds.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from p2p66.crypto.backlog import ProofBacklog
from p2p66.crypto.config import HandConfig, deck_points
from p2p66.crypto.deckproof import verify_deck_shuffle
from p2p66.crypto.encoding import codebook
from p2p66.crypto.errors import (
    BadDeck,
    BadSeedReveal,
    CheatingDetected,
    ConfigMismatch,
    DuplicatedCard,
    InvalidRekey,
    InvalidShuffleProof,
    LocalUsageError,
    MalformedMessage,
    OutOfOrderMessage,
    PositionConflict,
    ReplayedMessage,
    UnknownCardOpened,
    WrongKey,
)
from p2p66.crypto.fastgroup import public_mul, public_mul_base
from p2p66.crypto.group import (
    Point,
    Scalar,
    inverse,
    mul,
    product,
    public_inverse,
    public_product,
)
from p2p66.crypto.handkeys import seed_commitment
from p2p66.crypto.ledger import Ledger
from p2p66.crypto.messages import HandPayload, KeyReveal, RekeyStep, SeedReveal, ShuffleStep
from p2p66.crypto.rekey import RekeyStatement, verify_rekey
from p2p66.crypto.shuffle import ShuffleStatement
from p2p66.engine.cards import CARD_CODES


def opened_twice(card: int, first: int, second: int) -> DuplicatedCard:
    """The same card opened at two positions: some deck step was bad (proofs off)."""
    return DuplicatedCard(
        None, f"{CARD_CODES[card]} opened at positions {first} and {second}: a deck step was bad"
    )


@lru_cache(maxsize=4096)
def _unlock_public(combined: Scalar, point: Point) -> Point:
    """``point / combined`` for keys everyone has seen.

    Kept: a replay's verifier opens every public card live and again in the
    hand's audit (a fresh state over the same payloads), a variable-base
    multiplication each. Only public keys are cached, never a secret one.
    """
    return Point(public_mul(public_inverse(combined), point))


def _unlock_secret(combined: Scalar, point: Point) -> Point:
    """``point / combined`` where a key may be secret: constant time, never kept."""
    return mul(inverse(combined), point)


def forget_public_openings() -> None:
    """Empty that cache: benchmarks that verify one file twice measure a cold verifier."""
    _unlock_public.cache_clear()


class HandState:
    """Decks, lock points, key commitments, seeds and the ledger of one hand."""

    def __init__(self, config: HandConfig) -> None:
        self.config = config
        self.decks: list[tuple[Point, ...]] = [deck_points(config)]
        self.locks: dict[int, Point] = {}
        self.commitments: dict[int, bytes] = {}
        self.key_points: dict[int, tuple[Point, ...]] = {}
        self.seeds: dict[int, bytes] = {}
        self.ledger = Ledger(config)
        self.payloads: list[HandPayload] = []
        self.proofs_checked = 0
        self._schedule = config.schedule()
        self._step = 0
        self._next_seq = [0] * config.parties
        self._codebook = codebook(config.session_id)
        self._cards = frozenset(config.deck)
        self._public_seen: dict[int, int] = {}
        self.backlog: ProofBacklog | None = None
        """Where a replay verifier's proofs and keys wait for the audit (None: checked live)."""

    # --- queries -------------------------------------------------------------

    @property
    def expected_step(self) -> tuple[str, int] | None:
        """The next deck step ``("shuffle" | "rekey", seat)``, or None once the deck is final."""
        return self._schedule[self._step] if self._step < len(self._schedule) else None

    @property
    def final_deck(self) -> tuple[Point, ...] | None:
        return self.decks[-1] if self._step == len(self._schedule) else None

    def next_seq(self, seat: int) -> int:
        return self._next_seq[seat]

    def deal_complete(self) -> bool:
        return self.final_deck is not None and self.ledger.deal_complete()

    def open_with(self, pos: int, keys: list[Scalar], *, public: bool = False) -> int:
        """The card at ``pos`` of the final deck under the product of ``keys``, or raise.

        ``public``: every key has been revealed, so no constant-time arithmetic is needed.
        """
        deck = self.final_deck
        if deck is None:
            raise LocalUsageError(f"position {pos} cannot be opened before the deck is final")
        if public:
            point = _unlock_public(public_product(keys), deck[pos])
        else:
            point = _unlock_secret(product(keys), deck[pos])
        card = self._codebook.get(point)
        if card is None or card not in self._cards:
            raise UnknownCardOpened(
                None,
                f"position {pos} opens to no card of this deck although every key matches its "
                "commitment: a lock, shuffle or re-key step was bad",
            )
        return card

    # --- applying messages ---------------------------------------------------

    def check_header(self, payload: HandPayload) -> None:
        """Hand number, sequence number and turn: replays and reordering stop here."""
        seat = payload.seat
        if not 0 <= seat < self.config.parties:
            raise MalformedMessage(f"seat {seat} is not at this table of {self.config.parties}")
        if payload.hand != self.config.hand:
            raise ReplayedMessage(
                seat, f"sent a message of hand {payload.hand} during hand {self.config.hand}"
            )
        expected = self._next_seq[seat]
        if payload.seq < expected:
            raise ReplayedMessage(seat, f"sent its message number {payload.seq} again")
        if payload.seq > expected:
            raise OutOfOrderMessage(
                seat, f"sent its message number {payload.seq} before number {expected}"
            )
        if seat in self.seeds:
            raise OutOfOrderMessage(seat, "sent a message after revealing its seed")
        if isinstance(payload, ShuffleStep | RekeyStep):
            step = (payload.KIND, seat)
            if self.expected_step != step:
                raise OutOfOrderMessage(
                    seat, f"sent a {payload.KIND} step out of turn (next: {self._describe_next()})"
                )
        elif isinstance(payload, KeyReveal) and seat not in self.key_points:
            raise OutOfOrderMessage(seat, "revealed card keys before its re-key step")
        elif isinstance(payload, SeedReveal) and seat not in self.commitments:
            raise OutOfOrderMessage(seat, "revealed a seed it never committed to")

    def _describe_next(self) -> str:
        step = self.expected_step
        return "no more deck steps" if step is None else f"{step[0]} by player {step[1]}"

    def apply(
        self, payload: HandPayload, *, verify: bool = True, known: Mapping[int, int] | None = None
    ) -> None:
        """Check and record one payload; on any error the state is left unchanged.

        For a payload we made ourselves, ``verify=False`` skips re-checking our
        proofs and keys, and ``known`` (our cards by position) saves re-opening
        the cards we play; the ledger rules still apply to us as to anyone.
        """
        self.check_header(payload)
        if isinstance(payload, ShuffleStep):
            self._shuffle(payload, verify)
        elif isinstance(payload, RekeyStep):
            self._rekey(payload, verify)
        elif isinstance(payload, KeyReveal):
            self._keys(payload, verify, known or {})
        else:
            self._seed(payload)
        self._next_seq[payload.seat] += 1
        self.payloads.append(payload)

    def _check_deck(self, seat: int, deck: tuple[Point, ...], what: str) -> None:
        if len(deck) != self.config.size:
            raise BadDeck(
                seat, f"sent a {what} deck of {len(deck)} cards, {self.config.size} expected"
            )
        if len(set(deck)) != len(deck):
            raise DuplicatedCard(seat, f"sent a {what} deck holding the same card twice")

    def _shuffle(self, msg: ShuffleStep, verify: bool) -> None:
        seat = msg.seat
        if msg.config != self.config.digest:
            raise ConfigMismatch(seat, "started the hand with another hand configuration")
        self._check_deck(seat, msg.deck, "shuffled")
        if verify:
            ctx = self.config.context(seat, msg.seq, msg.KIND)
            stmt = ShuffleStatement(ctx, self.decks[-1], msg.deck, msg.lock)
            if self.backlog is not None:
                self.backlog.add_proof(self.config, seat, stmt, msg.proof)
                reason = None
            else:
                reason = verify_deck_shuffle(self.config, stmt, msg.proof)
            if reason is not None:
                raise InvalidShuffleProof(seat, f"its lock-and-shuffle proof fails: {reason}")
            self.proofs_checked += self.config.soundness > 0
        self.decks.append(msg.deck)
        self.locks[seat] = msg.lock
        self.commitments[seat] = msg.commitment
        self._step += 1

    def _rekey(self, msg: RekeyStep, verify: bool) -> None:
        seat = msg.seat
        self._check_deck(seat, msg.deck, "re-keyed")
        if len(msg.keys) != self.config.size:
            raise BadDeck(
                seat, f"sent {len(msg.keys)} key commitments, {self.config.size} expected"
            )
        if verify and self.config.soundness:
            ctx = self.config.context(seat, msg.seq, msg.KIND)
            stmt = RekeyStatement(ctx, self.decks[-1], msg.deck, self.locks[seat], msg.keys)
            if self.backlog is not None:
                self.backlog.add_proof(self.config, seat, stmt, msg.proof)
                reason = None
            else:
                reason = verify_rekey(stmt, msg.proof)
            if reason is not None:
                raise InvalidRekey(seat, f"its re-key proof fails: {reason}")
            self.proofs_checked += 1
        elif verify and msg.proof:
            raise InvalidRekey(seat, "sent a re-key proof although proofs are off")
        self.decks.append(msg.deck)
        self.key_points[seat] = msg.keys
        self._step += 1

    def _keys(self, msg: KeyReveal, verify: bool, known: Mapping[int, int]) -> None:
        seat = msg.seat
        commitments = self.key_points[seat]
        saved = self.ledger.checkpoint(r.pos for r in msg.reveals)
        seen = dict(self._public_seen)

        def open_card(pos: int) -> int:
            return self._open_public(pos, known.get(pos))

        try:
            for reveal in msg.reveals:
                if reveal.pos >= self.config.size:
                    raise PositionConflict(
                        seat, f"revealed a key for position {reveal.pos}, outside the deck"
                    )
                if not verify:
                    pass
                elif self.backlog is not None:
                    self.backlog.add_key(
                        self.config, seat, reveal.pos, reveal.key, commitments[reveal.pos]
                    )
                elif public_mul_base(reveal.key) != commitments[reveal.pos]:  # a public key
                    raise WrongKey(
                        seat,
                        f"revealed a key for position {reveal.pos} not matching its commitment",
                    )
                self.ledger.apply(seat, reveal, open_card)
        except CheatingDetected:
            self.ledger.restore(saved)
            self._public_seen = seen
            raise

    def _open_public(self, pos: int, known: int | None) -> int:
        if known is None:
            keys = self.ledger.positions[pos].keys
            card = self.open_with(pos, [keys[s] for s in range(self.config.parties)], public=True)
        else:
            card = known
        other = self._public_seen.get(card)
        if other is not None and other != pos:
            raise opened_twice(card, other, pos)
        self._public_seen[card] = pos
        return card

    def _seed(self, msg: SeedReveal) -> None:
        if seed_commitment(self.config, msg.seat, msg.seed) != self.commitments[msg.seat]:
            raise BadSeedReveal(msg.seat, "revealed a hand seed that does not match its commitment")
        self.seeds[msg.seat] = msg.seed
