"""One party of a hand: its secrets on top of the public hand state.

``DealParty`` runs the deck steps by itself (``start``/``receive`` return the
payloads to send), then, during play, builds the reveals the session layer
attaches to moves (``reveal_to``, ``play``, ``marriage``...) and bundles them
with ``send``. It applies its own payloads to the same ``HandState`` as the
others' (without re-verifying its own proofs), so both sides of a table hold
the same state and the same transcript.
"""

from __future__ import annotations

from p2p66.crypto.config import PUBLIC, HandConfig
from p2p66.crypto.deckproof import prove_deck_shuffle
from p2p66.crypto.errors import (
    CheatingDetected,
    LocalUsageError,
    MalformedMessage,
)
from p2p66.crypto.group import Scalar
from p2p66.crypto.handkeys import HandSecrets, seed_commitment
from p2p66.crypto.messages import (
    HandPayload,
    KeyReveal,
    RekeyStep,
    Reveal,
    SeedReveal,
    ShuffleStep,
)
from p2p66.crypto.rekey import RekeyStatement, prove_rekey, rekey_deck
from p2p66.crypto.shuffle import ShuffleStatement, lock_shuffle
from p2p66.crypto.state import HandState, opened_twice
from p2p66.crypto.transcript import HandTranscript
from p2p66.engine.cards import CARD_CODES


class DealParty:
    """The sans-IO mental-poker party of seat ``seat`` for one hand."""

    def __init__(self, config: HandConfig, seat: int, seed: bytes) -> None:
        self.config = config
        self.seat = seat
        self.secrets = HandSecrets.derive(config, seat, seed)
        self.state = HandState(config)
        self._known: dict[int, int] = {}
        self._deal_keys_sent = False

    # --- the deck steps --------------------------------------------------------

    def start(self) -> list[HandPayload]:
        """Payloads to send at the start of the hand (the first shuffler's step; else none)."""
        return self._advance()

    def receive(self, *payloads: HandPayload) -> list[HandPayload]:
        """Check and apply other parties' payloads; return what we must send in reply.

        Give a whole incoming flight at once when possible: our reply is made
        after all of it, so every party records the payloads in the same order.
        The session must make sure each ``payload.seat`` is the authenticated
        sender. Raises ``CheatingDetected`` (naming the offender) or
        ``MalformedMessage``; a payload that fails its checks is not applied
        (with proofs off, a bad card found while opening our own hand is
        raised after the payload that completed its keys was applied).
        """
        for payload in payloads:
            if payload.seat == self.seat:
                raise MalformedMessage(
                    f"a payload claiming our own seat {self.seat} came from outside"
                )
            self.state.apply(payload)
            self._learn()
        return self._advance()

    def _advance(self) -> list[HandPayload]:
        out: list[HandPayload] = []
        while True:
            step = self.state.expected_step
            payload: HandPayload | None
            if step == ("shuffle", self.seat):
                payload = self._make_shuffle()
            elif step == ("rekey", self.seat):
                payload = self._make_rekey()
            elif self.seat in self.state.key_points and not self._deal_keys_sent:
                self._deal_keys_sent = True
                payload = self._make_deal_keys()
                if payload is None:
                    continue
            else:
                break
            self._emit(payload)
            out.append(payload)
        self._learn()
        return out

    def _emit(self, payload: HandPayload) -> None:
        try:
            self.state.apply(payload, verify=False, known=self._known)
        except CheatingDetected as exc:
            if exc.party != self.seat:
                raise  # our message exposed someone else's cheat (e.g. a bad card it opened)
            raise LocalUsageError(f"our own message was refused: {exc}") from exc

    def _make_shuffle(self) -> ShuffleStep:
        seq = self.state.next_seq(self.seat)
        ctx = self.config.context(self.seat, seq, ShuffleStep.KIND)
        sec = self.secrets
        d_in = self.state.decks[-1]
        d_out = lock_shuffle(d_in, sec.lock, sec.perm)
        lock_point = sec.lock_point()
        stmt = ShuffleStatement(ctx, d_in, d_out, lock_point)
        proof = prove_deck_shuffle(self.config, stmt, sec)
        return ShuffleStep(
            hand=self.config.hand,
            seat=self.seat,
            seq=seq,
            config=self.config.digest,
            commitment=seed_commitment(self.config, self.seat, sec.seed),
            lock=lock_point,
            deck=d_out,
            proof=proof,
        )

    def _make_rekey(self) -> RekeyStep:
        seq = self.state.next_seq(self.seat)
        ctx = self.config.context(self.seat, seq, RekeyStep.KIND)
        sec = self.secrets
        d_in = self.state.decks[-1]
        ratios = sec.ratios()
        d_out = rekey_deck(d_in, ratios)
        key_points = sec.key_points()
        lock_point = self.state.locks[self.seat]
        proof = b""
        if self.config.soundness:
            stmt = RekeyStatement(ctx, d_in, d_out, lock_point, key_points)
            proof = prove_rekey(stmt, ratios, nonce_key=stmt.nonce_key(sec.base), lock=sec.lock)
        return RekeyStep(
            hand=self.config.hand, seat=self.seat, seq=seq, deck=d_out, keys=key_points, proof=proof
        )

    def _make_deal_keys(self) -> KeyReveal | None:
        reveals = []
        for pos, target in enumerate(self.config.deal):
            if target == PUBLIC:
                reveals.append(self.reveal_public(pos))
            elif target >= 0 and target != self.seat:
                reveals.append(self.reveal_to(pos, target))
        if not reveals:
            return None
        return KeyReveal(
            self.config.hand, self.seat, self.state.next_seq(self.seat), tuple(reveals)
        )

    def _learn(self) -> None:
        """Open every position newly in our hand or made public; a repeated card is a cheat."""
        if self.state.final_deck is None:
            return
        ledger = self.state.ledger
        for pos, p in enumerate(ledger.positions):
            if pos in self._known:
                continue
            if p.card is not None:
                card = p.card
            elif p.holder == self.seat:
                keys = [p.keys[s] for s in range(self.config.parties) if s != self.seat]
                card = self.state.open_with(pos, [*keys, self.secrets.keys[pos]])
            else:
                continue
            for other, known in self._known.items():
                if known == card:
                    raise opened_twice(card, other, pos)
            self._known[pos] = card

    # --- play: reveals that ride along with moves ------------------------------

    def _key(self, pos: int) -> Scalar:
        if not 0 <= pos < self.config.size:
            raise LocalUsageError(f"position {pos} is outside the deck of {self.config.size}")
        if self.seat not in self.state.key_points:
            raise LocalUsageError("card keys can be revealed only after our re-key step")
        return self.secrets.keys[pos]

    def reveal_to(self, pos: int, seat: int) -> Reveal:
        """Our key for ``pos``, opening it privately to ``seat`` (a deal or a draw)."""
        return Reveal("to", pos, self._key(pos), to=seat)

    def reveal_public(self, pos: int) -> Reveal:
        """Our key for ``pos``, opening it to everyone (the face-up trump)."""
        return Reveal("public", pos, self._key(pos))

    def _own_card(self, pos: int) -> int:
        if pos not in self._known or self.state.ledger.holder(pos) != self.seat:
            raise LocalUsageError(f"position {pos} is not in our hand")
        return self._known[pos]

    def play(self, pos: int) -> Reveal:
        """Play our card at ``pos``: our key makes it public."""
        return Reveal("play", pos, self._key(pos), card=self._own_card(pos))

    def marriage(self, pos: int, partner: int) -> Reveal:
        """Show our card at ``pos`` as the partner of the card just led from ``partner``."""
        return Reveal("marriage", pos, self._key(pos), card=self._own_card(pos), partner=partner)

    def exchange(self, pos: int) -> Reveal:
        """Give our card at ``pos`` (the exchange card of trumps) for the face-up card."""
        return Reveal("exchange", pos, self._key(pos), card=self._own_card(pos))

    def take(self, pos: int) -> Reveal:
        """Take the face-up card at ``pos`` into our hand (the last draw)."""
        return Reveal("take", pos, self._key(pos))

    def send(self, *reveals: Reveal) -> KeyReveal:
        """Bundle reveals into the payload to attach to our next message; applied to our state."""
        if not reveals:
            raise LocalUsageError("a key message needs at least one reveal")
        payload = KeyReveal(self.config.hand, self.seat, self.state.next_seq(self.seat), reveals)
        self._emit(payload)
        self._learn()
        return payload

    def reveal_seed(self) -> SeedReveal:
        """Our hand seed, for the end of the hand: after it we send nothing more."""
        payload = SeedReveal(
            self.config.hand, self.seat, self.state.next_seq(self.seat), self.secrets.seed
        )
        self._emit(payload)
        return payload

    # --- what we know ----------------------------------------------------------

    @property
    def deal_complete(self) -> bool:
        return self.state.deal_complete()

    def known_cards(self) -> dict[int, int]:
        """Every position whose card we know (ours and public): position -> card id."""
        return dict(self._known)

    def hand(self) -> dict[int, int]:
        """Our cards not yet played: position -> card id."""
        held = self.state.ledger.held_by(self.seat)
        return {pos: self._known[pos] for pos in held if pos in self._known}

    def card_at(self, pos: int) -> int | None:
        return self._known.get(pos)

    def position_of(self, card: int) -> int:
        """The position of a card we know, or LocalUsageError."""
        for pos, known in self._known.items():
            if known == card:
                return pos
        raise LocalUsageError(f"{CARD_CODES[card]} is not a card we know")

    def transcript(self) -> HandTranscript:
        return HandTranscript(self.config, tuple(self.state.payloads))
