"""Helpers of the mental-poker tests: fixed seeds, configs, tables and cheating parties."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace

from p2p66.crypto import PUBLIC, DealParty, HandConfig, RekeyStep, ShuffleStep
from p2p66.crypto.config import ARGUMENT, FACE_DOWN
from p2p66.crypto.deckproof import prove_deck_shuffle
from p2p66.crypto.group import Point
from p2p66.crypto.memory import MemoryTable
from p2p66.crypto.rekey import RekeyStatement, prove_rekey
from p2p66.crypto.shuffle import ShuffleStatement
from p2p66.engine.options import preset

SESSION = hashlib.sha256(b"p2p66 crypto tests").digest()
FAST = 12
"""Soundness used by most "proofs on" tests (the full default, 80, is tested too)."""
MODES = (0, FAST, ARGUMENT)
"""Proofs off, the legacy cut-and-choose, the shuffle argument (the default)."""


def seed(tag: str, seat: int, hand: int = 0) -> bytes:
    return hashlib.sha256(f"{tag}/{seat}/{hand}".encode()).digest()


def game_config(
    soundness: int, game: str = "sixty-six", dealer: int = 0, hand: int = 0
) -> HandConfig:
    return HandConfig.for_game(preset(game), SESSION, hand, dealer, soundness)


def three_party_config(soundness: int) -> HandConfig:
    """24 cards, six to each of three seats, position 18 face up, the rest face down."""
    deal = tuple([s for s in range(3) for _ in range(6)] + [PUBLIC] + [FACE_DOWN] * 5)
    return HandConfig(
        session_id=SESSION,
        hand=0,
        parties=3,
        order=(1, 2, 0),
        deck=tuple(range(24)),
        deal=deal,
        soundness=soundness,
        face_up=18,
    )


def make_table(
    config: HandConfig, tag: str = "t", parties: dict[int, type[DealParty]] | None = None
) -> MemoryTable:
    kinds = parties or {}
    return MemoryTable(
        [
            kinds.get(s, DealParty)(config, s, seed(tag, s, config.hand))
            for s in range(config.parties)
        ]
    )


def dealt(config: HandConfig, tag: str = "t") -> MemoryTable:
    table = make_table(config, tag)
    table.deal()
    return table


DeckEdit = Callable[[list[Point]], list[Point]]


def forged_shuffle(party: DealParty, honest: ShuffleStep, edit: DeckEdit) -> ShuffleStep:
    """``honest`` with its deck edited and a proof made by the honest prover for the forged deck."""
    deck = tuple(edit(list(honest.deck)))
    ctx = party.config.context(party.seat, honest.seq, ShuffleStep.KIND)
    stmt = ShuffleStatement(ctx, party.state.decks[-1], deck, honest.lock)
    proof = prove_deck_shuffle(party.config, stmt, party.secrets)
    return replace(honest, deck=deck, proof=proof)


def forged_rekey(
    party: DealParty, honest: RekeyStep, edit: DeckEdit, d_in: tuple[Point, ...] | None = None
) -> RekeyStep:
    """``honest`` with its deck edited and a proof made with the honest witnesses.

    ``d_in`` is the deck being re-keyed; by default the party's current deck (the
    party has not applied ``honest`` yet).
    """
    deck = tuple(edit(list(honest.deck)))
    if not party.config.soundness:
        return replace(honest, deck=deck)
    ctx = party.config.context(party.seat, honest.seq, RekeyStep.KIND)
    before = party.state.decks[-1] if d_in is None else d_in
    stmt = RekeyStatement(ctx, before, deck, party.state.locks[party.seat], honest.keys)
    proof = prove_rekey(stmt, party.secrets.ratios(), nonce_key=stmt.nonce_key(party.secrets.base))
    return replace(honest, deck=deck, proof=proof)


def cheating_shuffler(edit: DeckEdit) -> type[DealParty]:
    """A party class whose lock-and-shuffle step is edited by ``edit`` (with a proof attempt)."""

    class Cheater(DealParty):
        def _make_shuffle(self) -> ShuffleStep:
            return forged_shuffle(self, super()._make_shuffle(), edit)

    return Cheater


def cheating_rekeyer(edit: DeckEdit) -> type[DealParty]:
    """A party class whose re-key step is edited by ``edit`` (with a proof attempt)."""

    class Cheater(DealParty):
        def _make_rekey(self) -> RekeyStep:
            return forged_rekey(self, super()._make_rekey(), edit)

    return Cheater
