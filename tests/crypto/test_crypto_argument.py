"""The shuffle argument (SPEC.md 9.3): honest proofs verify, every cheat and every edit fails.

The cheats are the ones the cut-and-choose is tested against (test_crypto_cheats.py):
a planted marker, a replaced card, a made-up card, a duplicated card, a dropped card and
a proof replayed from another context, each with a real proof attempt by the honest
prover for the forged deck; plus any single changed element of a statement or a proof.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from cryptokit import (
    cheating_shuffler,
    forged_shuffle,
    game_config,
    make_table,
    three_party_config,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.crypto import (
    BadDeck,
    DealParty,
    DuplicatedCard,
    InvalidConfig,
    InvalidShuffleProof,
    ShuffleStep,
    audit,
)
from p2p66.crypto.argument import (
    argument_nonce_key,
    argument_size,
    prove_argument,
    verify_argument,
)
from p2p66.crypto.config import ARGUMENT, HandConfig, ProofKind
from p2p66.crypto.encoding import card_point, card_points
from p2p66.crypto.group import ORDER, POINT_BYTES, Point, double, hash_to_point, mul, mul_base
from p2p66.crypto.hashing import derive_permutation, derive_scalar
from p2p66.crypto.memory import MemoryTable
from p2p66.crypto.shuffle import ShuffleStatement, lock_shuffle, prove_shuffle
from p2p66.engine.cards import NINE

SESSION = hashlib.sha256(b"argument tests").digest()


def honest(n: int, key: bytes, ctx: bytes = b"ctx") -> tuple[ShuffleStatement, bytes]:
    """A true statement over n card points and its proof, all derived from ``key``."""
    lock = derive_scalar(key, "lock", 0)
    perm = derive_permutation(key, "perm", 0, n)
    d_in = tuple(mul(derive_scalar(key, "in", 0), p) for p in card_points(SESSION)[:n])
    stmt = ShuffleStatement(ctx, d_in, lock_shuffle(d_in, lock, perm), mul_base(lock))
    return stmt, prove_argument(stmt, lock, perm, nonce_key=argument_nonce_key(stmt, key))


def other_point(p: Point) -> Point:
    return Point(double(p))


# --- the argument on its own --------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 24), key=st.binary(min_size=32, max_size=32), data=st.data())
def test_honest_proofs_verify_and_any_single_change_fails(
    n: int, key: bytes, data: st.DataObject
) -> None:
    stmt, proof = honest(n, key)
    assert len(proof) == argument_size(n)
    assert verify_argument(stmt, proof) is None
    part = data.draw(st.sampled_from(["d_in", "d_out", "lock", "commitment", "response"]))
    if part in ("d_in", "d_out"):
        deck = list(getattr(stmt, part))
        i = data.draw(st.integers(0, n - 1))
        deck[i] = other_point(deck[i])
        assert verify_argument(replace(stmt, **{part: tuple(deck)}), proof) is not None
    elif part == "lock":
        assert verify_argument(replace(stmt, lock=other_point(stmt.lock)), proof) is not None
    elif part == "commitment":  # Gamma, Lambda, F or a Y_i: another valid point
        k = data.draw(st.integers(0, n + 2))
        at = k * POINT_BYTES
        point = Point(proof[at : at + POINT_BYTES])
        bad = proof[:at] + other_point(point) + proof[at + POINT_BYTES :]
        assert verify_argument(stmt, bad) is not None
    else:  # c, an r_i, a z_i, z_gamma or z_x: still canonical, one more
        k = data.draw(st.integers(0, 2 * n + 2))
        at = (n + 3) * POINT_BYTES + 32 * k
        value = (int.from_bytes(proof[at : at + 32], "little") + 1) % ORDER
        bad = proof[:at] + value.to_bytes(32, "little") + proof[at + 32 :]
        assert verify_argument(stmt, bad) is not None


def test_malformed_proofs_say_why() -> None:
    stmt, proof = honest(6, bytes(32))
    assert "bytes" in str(verify_argument(stmt, proof[:-1]))
    identity = proof[:POINT_BYTES] + bytes(POINT_BYTES) + proof[2 * POINT_BYTES :]
    assert "identity" in str(verify_argument(stmt, identity))
    at = len(proof) - 32
    big = proof[:at] + (ORDER + 1).to_bytes(32, "little")
    assert "canonical" in str(verify_argument(stmt, big))
    assert "cards" in str(verify_argument(replace(stmt, d_out=stmt.d_out[:-1]), proof))


def test_proof_for_one_permutation_does_not_prove_another() -> None:
    stmt, proof = honest(8, b"k" * 32)
    swapped = (stmt.d_out[1], stmt.d_out[0], *stmt.d_out[2:])
    assert verify_argument(replace(stmt, d_out=swapped), proof) is not None


def test_a_replayed_proof_fails_in_another_context() -> None:
    stmt, proof = honest(24, b"r" * 32, ctx=b"hand 0, seat 0, seq 0")
    assert verify_argument(stmt, proof) is None
    assert verify_argument(replace(stmt, ctx=b"hand 1, seat 0, seq 0"), proof) is not None


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: [d[0], Point(double(d[0])), *d[2:]],  # planted marker 2*P
        lambda d: [d[0], d[0], *d[2:]],  # duplicated card
        lambda d: [hash_to_point(b"\x07" * 64), *d[1:]],  # made-up card
    ],
    ids=["planted", "duplicated", "made-up"],
)
def test_the_prover_cannot_prove_an_edited_deck(edit: object) -> None:
    """The honest prover's algorithm, run on a forged deck, gives a proof that fails."""
    key = b"e" * 32
    lock, perm = derive_scalar(key, "lock", 0), derive_permutation(key, "perm", 0, 24)
    d_in = card_points(SESSION)
    forged = tuple(edit(list(lock_shuffle(d_in, lock, perm))))  # type: ignore[operator]
    stmt = ShuffleStatement(b"ctx", d_in, forged, mul_base(lock))
    proof = prove_argument(stmt, lock, perm, nonce_key=argument_nonce_key(stmt, key))
    assert verify_argument(stmt, proof) is not None


# --- the argument in a hand -----------------------------------------------------------


def test_the_default_hand_uses_the_argument_and_records_it() -> None:
    config = game_config(ARGUMENT)
    assert config.proof is ProofKind.ARGUMENT
    assert HandConfig.from_wire(config.to_wire()) == config
    assert config.digest != replace(config, soundness=128).digest
    assert game_config(80).proof is ProofKind.CUT_AND_CHOOSE
    assert game_config(0).proof is ProofKind.OFF
    for bad in (129, 255, 257, -1):
        with pytest.raises(InvalidConfig, match="shuffle argument"):
            game_config(bad)


@pytest.mark.parametrize("config", [game_config(ARGUMENT), three_party_config(ARGUMENT)])
def test_honest_hands_deal_in_the_same_flights_and_audit(config: HandConfig) -> None:
    table = make_table(config, "honest")
    assert table.deal() == 2 * config.parties - 1
    table.reveal_seeds()
    report = audit(table.parties[0].transcript())
    assert report.proofs_checked == 2 * config.parties
    assert all(len(p.state.payloads[0].proof) for p in table.parties if p.seat == config.order[0])


def plant(deck: list[Point]) -> list[Point]:
    return [deck[0], Point(double(deck[0])), *deck[2:]]


def made_up(deck: list[Point]) -> list[Point]:
    return [*deck[:5], hash_to_point(b"\x07" * 64), *deck[6:]]


def swap(deck: list[Point]) -> list[Point]:
    return [deck[1], deck[0], *deck[2:]]


@pytest.mark.parametrize("cheater", [0, 1])
@pytest.mark.parametrize("edit", [plant, made_up, swap], ids=["planted", "made-up", "swapped"])
def test_forged_shuffles_are_caught_live_and_blamed(cheater: int, edit: object) -> None:
    table = make_table(game_config(ARGUMENT), parties={cheater: cheating_shuffler(edit)})  # type: ignore[arg-type]
    with pytest.raises(InvalidShuffleProof) as err:
        table.deal()
    assert err.value.party == cheater


def test_replaced_card_is_caught_live() -> None:
    """Schnapsen's 20 cards: the dealer swaps in the locked nine of clubs."""
    config = game_config(ARGUMENT, "schnapsen")

    class Substituter(DealParty):
        def _make_shuffle(self) -> ShuffleStep:
            nine = mul(self.secrets.lock, card_point(config.session_id, NINE))
            return forged_shuffle(self, super()._make_shuffle(), lambda d: [nine, *d[1:]])

    table = MemoryTable([Substituter(config, 0, b"s" * 32), DealParty(config, 1, b"t" * 32)])
    with pytest.raises(InvalidShuffleProof) as err:
        table.deal()
    assert err.value.party == 0


def test_duplicated_and_dropped_cards_are_refused_before_the_proof() -> None:
    table = make_table(game_config(ARGUMENT))
    a, b = table.parties
    step = a.start()[0]
    assert isinstance(step, ShuffleStep)
    with pytest.raises(DuplicatedCard) as dup:
        b.receive(forged_shuffle(a, step, lambda d: [d[0], d[0], *d[2:]]))
    with pytest.raises(BadDeck) as dropped:
        b.receive(replace(step, deck=step.deck[:-1]))
    assert dup.value.party == dropped.value.party == 0


def test_a_shuffle_replayed_from_another_hand_is_refused() -> None:
    """Hand 1 starts from the same card points: only the context tells hand 0's proof apart."""
    first = make_table(game_config(ARGUMENT, hand=0), "replay").parties[0].start()[0]
    table = make_table(game_config(ARGUMENT, hand=1), "replay")
    a, b = table.parties
    step = a.start()[0]
    assert isinstance(step, ShuffleStep) and isinstance(first, ShuffleStep)
    assert a.state.decks[0] == make_table(game_config(ARGUMENT), "x").parties[0].state.decks[0]
    replayed = replace(step, lock=first.lock, deck=first.deck, proof=first.proof)
    with pytest.raises(InvalidShuffleProof) as err:
        b.receive(replayed)
    assert err.value.party == 0
    assert b.receive(step)  # the hand's own proof goes through


def test_a_cut_and_choose_proof_is_refused_in_an_argument_hand() -> None:
    config = game_config(ARGUMENT)
    a = DealParty(config, 0, b"c" * 32)
    step = a.start()[0]
    assert isinstance(step, ShuffleStep)
    stmt = ShuffleStatement(config.context(0, 0, "shuffle"), a.state.decks[0], step.deck, step.lock)
    sec = a.secrets
    legacy = prove_shuffle(stmt, sec.lock, sec.perm, nonce_key=stmt.nonce_key(sec.base), rounds=40)
    with pytest.raises(InvalidShuffleProof, match="bytes"):
        DealParty(config, 1, b"d" * 32).receive(replace(step, proof=legacy))
