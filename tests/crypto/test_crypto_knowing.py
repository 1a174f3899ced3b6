"""Checking a proof with its author's revealed secrets gives exactly the verdict of checking it
without them (SPEC.md 9.4): honest proofs hold, every cheat and every single edit fails, and
secrets that do not fit (other nonces, another seed) fall back to the ordinary check.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest
from cryptokit import game_config, make_table, three_party_config
from hypothesis import given, settings
from hypothesis import strategies as st
from test_crypto_argument import SESSION, honest, other_point

from p2p66.crypto import DealParty, ShuffleNotFromSeed, audit
from p2p66.crypto.argument import (
    argument_nonce_key,
    prove_argument,
    verify_argument,
    verify_argument_knowing,
)
from p2p66.crypto.backlog import ProofBacklog
from p2p66.crypto.config import ARGUMENT, HandConfig
from p2p66.crypto.encoding import card_points
from p2p66.crypto.group import (
    ORDER,
    POINT_BYTES,
    Point,
    Scalar,
    double,
    hash_to_point,
    inverse,
    mul,
    mul_base,
    times,
)
from p2p66.crypto.handkeys import HandSecrets, RevealedSecrets
from p2p66.crypto.hashing import derive_permutation, derive_scalar
from p2p66.crypto.rekey import (
    RekeyStatement,
    prove_rekey,
    rekey_deck,
    verify_rekey,
    verify_rekey_knowing,
)
from p2p66.crypto.shuffle import ShuffleStatement, lock_shuffle
from p2p66.crypto.state import HandState
from p2p66.crypto.transcript import HandTranscript


def secrets_of(key: bytes, n: int) -> tuple[Scalar, tuple[int, ...]]:
    """The lock and permutation ``honest`` derives from ``key``."""
    return derive_scalar(key, "lock", 0), derive_permutation(key, "perm", 0, n)


def knowing(stmt: ShuffleStatement, proof: bytes, key: bytes) -> str | None:
    lock, perm = secrets_of(key, len(stmt.d_in))
    return verify_argument_knowing(stmt, proof, lock, perm, argument_nonce_key(stmt, key))


def edits(
    stmt: ShuffleStatement, proof: bytes, data: st.DataObject
) -> tuple[ShuffleStatement, bytes]:
    """One changed element of the statement or the proof."""
    n = len(stmt.d_in)
    part = data.draw(st.sampled_from(["d_in", "d_out", "lock", "commitment", "response", "ctx"]))
    if part in ("d_in", "d_out"):
        deck = list(getattr(stmt, part))
        i = data.draw(st.integers(0, n - 1))
        deck[i] = other_point(deck[i])
        return replace(stmt, **{part: tuple(deck)}), proof
    if part == "lock":
        return replace(stmt, lock=other_point(stmt.lock)), proof
    if part == "ctx":
        return replace(stmt, ctx=stmt.ctx + b"!"), proof
    if part == "commitment":  # Gamma, Lambda, F or a Y_i: another valid point
        at = data.draw(st.integers(0, n + 2)) * POINT_BYTES
        point = Point(proof[at : at + POINT_BYTES])
        return stmt, proof[:at] + other_point(point) + proof[at + POINT_BYTES :]
    at = (n + 3) * POINT_BYTES + 32 * data.draw(st.integers(0, 2 * n + 2))
    value = (int.from_bytes(proof[at : at + 32], "little") + 1) % ORDER
    return stmt, proof[:at] + value.to_bytes(32, "little") + proof[at + 32 :]


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 24), key=st.binary(min_size=32, max_size=32), data=st.data())
def test_an_argument_checked_with_secrets_gets_the_ordinary_verdict(
    n: int, key: bytes, data: st.DataObject
) -> None:
    stmt, proof = honest(n, key)
    assert knowing(stmt, proof, key) is None
    bad_stmt, bad_proof = edits(stmt, proof, data)
    verdict = verify_argument(bad_stmt, bad_proof)
    assert verdict is not None
    assert knowing(bad_stmt, bad_proof, key) == verdict


def test_secrets_that_do_not_fit_fall_back_to_the_ordinary_check() -> None:
    key = b"f" * 32
    stmt, proof = honest(12, key)
    lock, perm = secrets_of(key, 12)
    nonce_key = argument_nonce_key(stmt, key)
    other = (perm[1], perm[0], *perm[2:])
    assert verify_argument_knowing(stmt, proof, lock, perm, b"other nonces" * 4) is None
    assert verify_argument_knowing(stmt, proof, Scalar(lock + 1), perm, nonce_key) is None
    assert verify_argument_knowing(stmt, proof, lock, other, nonce_key) is None
    assert verify_argument_knowing(stmt, proof, lock, perm[:-1], nonce_key) is None
    assert verify_argument_knowing(stmt, proof, lock, (99, *perm[1:]), nonce_key) is None
    swapped = replace(stmt, d_out=(stmt.d_out[1], stmt.d_out[0], *stmt.d_out[2:]))
    assert verify_argument_knowing(swapped, proof, lock, perm, nonce_key) is not None


def test_malformed_arguments_say_the_same_with_secrets() -> None:
    key = bytes(32)
    stmt, proof = honest(6, key)
    identity = proof[:POINT_BYTES] + bytes(POINT_BYTES) + proof[2 * POINT_BYTES :]
    big = proof[:-32] + (ORDER + 1).to_bytes(32, "little")
    for bad in (proof[:-1], identity, big):
        assert knowing(stmt, bad, key) == verify_argument(stmt, bad) is not None
    short = replace(stmt, d_out=stmt.d_out[:-1])
    assert knowing(short, proof, key) == verify_argument(short, proof) is not None


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: [d[0], Point(double(d[0])), *d[2:]],  # planted marker 2*P
        lambda d: [d[1], *d[1:]],  # a card replaced by a copy of another
        lambda d: [d[0], d[0], *d[2:]],  # duplicated card
        lambda d: [hash_to_point(b"\x07" * 64), *d[1:]],  # made-up card
        lambda d: d[:-1],  # dropped card
    ],
    ids=["planted", "replaced", "duplicated", "made-up", "dropped"],
)
def test_a_forged_deck_fails_with_its_authors_secrets(edit: object) -> None:
    """The honest prover's algorithm on a forged deck, checked by an auditor who knows all."""
    key = b"e" * 32
    lock, perm = secrets_of(key, 24)
    d_in = card_points(SESSION)
    forged = tuple(edit(list(lock_shuffle(d_in, lock, perm))))  # type: ignore[operator]
    stmt = ShuffleStatement(b"ctx", d_in, forged, mul_base(lock))
    if len(forged) != len(d_in):
        proof = honest(24, key)[1]
    else:
        proof = prove_argument(stmt, lock, perm, nonce_key=argument_nonce_key(stmt, key))
    assert knowing(stmt, proof, key) == verify_argument(stmt, proof) is not None


def test_an_argument_replayed_from_another_context_fails_with_secrets() -> None:
    key = b"r" * 32
    stmt, proof = honest(24, key, ctx=b"hand 0, seat 0, seq 0")
    moved = replace(stmt, ctx=b"hand 1, seat 0, seq 0")
    lock, perm = secrets_of(key, 24)
    # the auditor of the other hand derives the nonces the prover would have used there
    verdict = verify_argument_knowing(moved, proof, lock, perm, argument_nonce_key(moved, key))
    assert verdict == verify_argument(moved, proof) is not None


# --- re-key proofs ------------------------------------------------------------------


def revealed(lock: Scalar, keys: tuple[Scalar, ...]) -> RevealedSecrets:
    """What an auditor knows of a party whose seed gave ``lock`` and ``keys``."""
    sec = HandSecrets(0, bytes(32), bytes(64), lock, tuple(range(len(keys))), keys)
    return RevealedSecrets.of(sec)


def rekeyed(n: int, key: bytes) -> tuple[RekeyStatement, bytes, Scalar, tuple[Scalar, ...]]:
    lock = derive_scalar(key, "lock", 0)
    keys = tuple(derive_scalar(key, "card-key", j) for j in range(n))
    inv = inverse(lock)
    ratios = tuple(Scalar(times(k, inv)) for k in keys)
    d_in = tuple(mul(derive_scalar(key, "in", 0), p) for p in card_points(SESSION)[:n])
    stmt = RekeyStatement(
        b"ctx", d_in, rekey_deck(d_in, ratios), mul_base(lock), tuple(mul_base(k) for k in keys)
    )
    return stmt, prove_rekey(stmt, ratios, nonce_key=key * 2), lock, keys


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 24), key=st.binary(min_size=32, max_size=32), data=st.data())
def test_a_rekey_proof_checked_with_secrets_gets_the_ordinary_verdict(
    n: int, key: bytes, data: st.DataObject
) -> None:
    stmt, proof, lock, keys = rekeyed(n, key)
    assert verify_rekey_knowing(stmt, proof, revealed(lock, keys)) is None
    part = data.draw(st.sampled_from(["d_in", "d_out", "keys", "lock", "response", "ctx"]))
    j = data.draw(st.integers(0, n - 1))
    if part in ("d_in", "d_out", "keys"):
        points = list(getattr(stmt, part))
        points[j] = other_point(points[j])
        stmt = replace(stmt, **{part: tuple(points)})
    elif part == "lock":
        stmt = replace(stmt, lock=other_point(stmt.lock))
    elif part == "ctx":
        stmt = replace(stmt, ctx=b"another hand")
    else:
        at = 32 * data.draw(st.integers(0, n))
        value = (int.from_bytes(proof[at : at + 32], "little") + 1) % ORDER
        proof = proof[:at] + value.to_bytes(32, "little") + proof[at + 32 :]
    verdict = verify_rekey(stmt, proof)
    assert verdict is not None
    assert verify_rekey_knowing(stmt, proof, revealed(lock, keys)) == verdict


def test_rekey_secrets_that_do_not_fit_fall_back_to_the_ordinary_check() -> None:
    stmt, proof, lock, keys = rekeyed(8, b"k" * 32)
    assert verify_rekey_knowing(stmt, proof, revealed(Scalar(lock + 1), keys)) is None
    assert verify_rekey_knowing(stmt, proof, revealed(lock, (keys[1], keys[0], *keys[2:]))) is None
    assert verify_rekey_knowing(stmt, proof, revealed(lock, keys[:-1])) is None
    for bad in (proof[:-1], proof[:-32] + (ORDER + 5).to_bytes(32, "little")):
        assert (
            verify_rekey_knowing(stmt, bad, revealed(lock, keys))
            == verify_rekey(stmt, bad)
            is not None
        )


def test_fitting_secrets_spare_the_ordinary_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of it: with the author's secrets an honest proof never needs the costly way."""
    from p2p66.crypto import argument, rekey

    def refuse(*_: object) -> str:
        raise AssertionError("the ordinary check ran")

    key = b"s" * 32
    stmt, proof = honest(24, key)
    r_stmt, r_proof, lock, keys = rekeyed(24, key)
    monkeypatch.setattr(argument, "verify_argument", refuse)
    monkeypatch.setattr(rekey, "verify_rekey", refuse)
    assert knowing(stmt, proof, key) is None
    assert verify_rekey_knowing(r_stmt, r_proof, revealed(lock, keys)) is None


# --- the audit of a replay's verifier, with the proofs held back -----------------------


def held_back(transcript: HandTranscript) -> ProofBacklog:
    """The proofs and keys a replay's verifier holds back for this transcript's audit."""
    backlog = ProofBacklog()
    state = HandState(transcript.config)
    state.backlog = backlog
    for payload in transcript.payloads:
        state.apply(payload)
    return backlog


def other_perm_shuffler() -> type[DealParty]:
    """A party that shuffles (and proves) with a permutation its seed does not give."""

    class Cheater(DealParty):
        def __init__(self, config: HandConfig, seat: int, seed: bytes) -> None:
            super().__init__(config, seat, seed)
            perm = self.secrets.perm
            self.secrets = replace(self.secrets, perm=(perm[1], perm[0], *perm[2:]))

    return Cheater


@pytest.mark.parametrize("config", [game_config(ARGUMENT), three_party_config(ARGUMENT)])
def test_held_back_proofs_settle_in_the_audit_without_recomputing_the_decks(
    config: HandConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = make_table(config, "held")
    table.deal()
    table.reveal_seeds()
    transcript = table.parties[0].transcript()
    expected = audit(transcript, verify_proofs=False)  # as a live player audits
    backlog = held_back(transcript)

    def refuse(*_: object) -> None:
        raise AssertionError("the audit recomputed a deck the argument had proven")

    auditing = importlib.import_module("p2p66.crypto.audit")  # the package exports the function
    monkeypatch.setattr(auditing, "lock_shuffle", refuse)
    assert audit(transcript, verify_proofs=False, backlog=backlog) == expected
    assert backlog.sound and backlog.proofs == 2 * config.parties


def test_a_proven_shuffle_that_is_not_the_seeds_is_still_named_by_the_audit() -> None:
    table = make_table(game_config(ARGUMENT), parties={1: other_perm_shuffler()})
    table.deal()  # a valid shuffle with a valid argument: play cannot tell
    table.reveal_seeds()
    transcript = table.parties[0].transcript()
    backlog = held_back(transcript)
    with pytest.raises(ShuffleNotFromSeed) as err:
        audit(transcript, verify_proofs=False, backlog=backlog)
    assert err.value.party == 1
    backlog.settle_rest()
    assert backlog.sound  # its argument is valid: only the seed gives it away


# --- any bytes at all: the same verdict, never an exception --------------------------

FUZZ_KEY = b"z" * 32
FUZZ_ARGUMENT = honest(4, FUZZ_KEY)
FUZZ_REKEY = rekeyed(4, FUZZ_KEY)


@settings(max_examples=60, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=700),
        st.binary(min_size=len(FUZZ_ARGUMENT[1]), max_size=len(FUZZ_ARGUMENT[1])),
    )
)
def test_any_bytes_as_an_argument_get_the_ordinary_verdict(data: bytes) -> None:
    stmt, _ = FUZZ_ARGUMENT
    verdict = verify_argument(stmt, data)
    assert verdict is not None
    assert knowing(stmt, data, FUZZ_KEY) == verdict


@settings(max_examples=60, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.binary(min_size=len(FUZZ_REKEY[1]), max_size=len(FUZZ_REKEY[1])),
    )
)
def test_any_bytes_as_a_rekey_proof_get_the_ordinary_verdict(data: bytes) -> None:
    stmt, _, lock, keys = FUZZ_REKEY
    verdict = verify_rekey(stmt, data)
    assert verdict is not None
    assert verify_rekey_knowing(stmt, data, revealed(lock, keys)) == verdict
