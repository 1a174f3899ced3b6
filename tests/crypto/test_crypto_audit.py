"""The audit: what a clean hand reports, and that it names the first thing wrong and its author."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import msgpack
import pytest
from cryptokit import FAST, dealt, game_config

from p2p66.crypto import (
    CheatingDetected,
    HandTranscript,
    InvalidShuffleProof,
    KeyReveal,
    MissingSeed,
    NotYourCard,
    Reveal,
    ShuffleStep,
    WrongKey,
    audit,
)
from p2p66.crypto.group import ORDER, Scalar
from p2p66.crypto.memory import MemoryTable, play_two_player_hand
from p2p66.crypto.state import HandState, _unlock_public, forget_public_openings
from p2p66.engine.deal import deal_layout
from p2p66.engine.options import preset


@cache
def finished(soundness: int) -> MemoryTable:
    table = dealt(game_config(soundness, dealer=1), f"audit{soundness}")
    play_two_player_hand(table, deal_layout(preset("sixty-six")), 1, lambda s, h: max(h))
    table.reveal_seeds()
    return table


@pytest.mark.parametrize("soundness", [0, FAST])
def test_clean_report(soundness: int) -> None:
    a = finished(soundness).parties[0]
    report = audit(a.transcript())
    assert report.session_id == a.config.session_id and report.hand == 0
    assert report.deal_complete
    assert report.payloads == len(a.state.payloads)
    assert report.proofs_checked == (4 if soundness else 0)
    # the dealer is seat 1: it holds 3-5 and 9-11 plus its draws
    assert set(report.dealt[1]) >= {3, 4, 5, 9, 10, 11}
    assert set(report.dealt[0]) >= {0, 1, 2, 6, 7, 8}
    assert not set(report.dealt[0]) & set(report.dealt[1])
    assert report.deck == tuple(a.known_cards()[pos] for pos in range(24))
    played = [e for e in report.events if e.kind == "play"]
    assert {e.seat for e in played} == {0, 1} and len(played) == 24


def test_transcript_survives_the_wire() -> None:
    transcript = finished(FAST).parties[0].transcript()
    wire = msgpack.packb(transcript.to_wire(), use_bin_type=True)
    again = HandTranscript.from_wire(msgpack.unpackb(wire, raw=False))
    assert audit(again) == audit(transcript)


def test_a_seed_never_revealed() -> None:
    transcript = finished(0).parties[0].transcript()
    without = HandTranscript(
        transcript.config,
        tuple(p for p in transcript.payloads if not (p.KIND == "seed" and p.seat == 1)),
    )
    with pytest.raises(MissingSeed) as err:
        audit(without)
    assert err.value.party == 1


def tamper_key(transcript: HandTranscript, seat: int) -> HandTranscript:
    """Change the first key ``seat`` revealed during play (as a forged replay file would)."""
    payloads = list(transcript.payloads)
    index = next(
        i for i, p in enumerate(payloads) if isinstance(p, KeyReveal) and p.seat == seat and i > 5
    )
    msg = payloads[index]
    assert isinstance(msg, KeyReveal)
    first = msg.reveals[0]
    payloads[index] = replace(msg, reveals=(replace(first, key=Scalar(first.key * 3 % ORDER)),))
    return HandTranscript(transcript.config, tuple(payloads))


@pytest.mark.parametrize("soundness", [0, FAST])
def test_a_forged_key_in_a_transcript(soundness: int) -> None:
    transcript = tamper_key(finished(soundness).parties[1].transcript(), 0)
    with pytest.raises(WrongKey) as err:
        audit(transcript)
    assert err.value.party == 0 and "seed" in err.value.what


def test_the_first_wrong_thing_is_named() -> None:
    transcript = tamper_key(finished(FAST).parties[1].transcript(), 0)
    payloads = list(transcript.payloads)
    shuffle = payloads[1]
    assert isinstance(shuffle, ShuffleStep) and shuffle.seat == 0
    payloads[1] = replace(shuffle, proof=shuffle.proof[:-1] + bytes([shuffle.proof[-1] ^ 1]))
    with pytest.raises(InvalidShuffleProof) as err:
        audit(HandTranscript(transcript.config, tuple(payloads)))
    assert err.value.party == 0


def test_a_forged_claim_in_a_transcript() -> None:
    """A replay file with a play of a card never opened to the player fails the audit too."""
    table = finished(0)
    transcript = table.parties[0].transcript()
    payloads = list(transcript.payloads)
    index = next(
        i for i, p in enumerate(payloads) if isinstance(p, KeyReveal) and p.seat == 0 and i > 5
    )
    lead = payloads[index]
    assert isinstance(lead, KeyReveal)
    theirs = 3  # dealt to the dealer, seat 1
    key = table.parties[0].secrets.keys[theirs]
    payloads[index] = replace(lead, reveals=(Reveal("play", theirs, key, card=0),))
    with pytest.raises(NotYourCard) as err:
        audit(HandTranscript(transcript.config, tuple(payloads)))
    assert err.value.party == 0


def test_only_openings_under_public_keys_are_kept() -> None:
    """A player's own card opens under its secret key: that opening must not be cached."""
    a = finished(0).parties[0]
    pos = a.state.ledger.opened_to(0)[0]
    keys = [*a.state.ledger.positions[pos].keys.values(), a.secrets.keys[pos]]
    forget_public_openings()
    card = a.state.open_with(pos, list(dict.fromkeys(keys)))
    assert card == a.known_cards()[pos]
    assert _unlock_public.cache_info().currsize == 0
    assert audit(a.transcript()).deck == tuple(a.known_cards()[p] for p in range(24))
    kept = _unlock_public.cache_info().currsize
    assert kept > 0  # the audit's public openings, kept for a second look
    assert audit(a.transcript()).deck == tuple(a.known_cards()[p] for p in range(24))
    assert _unlock_public.cache_info().hits >= kept


def _ledger_facts(state: HandState) -> tuple[object, ...]:
    ledger = state.ledger
    positions = tuple(
        (dict(p.keys), p.to, p.holder, p.private, p.card, p.played) for p in ledger.positions
    )
    return positions, tuple(ledger.events), ledger.face_up, ledger.deal_complete()


@pytest.mark.parametrize("second", ["not held", "outside", "twice"])
def test_a_key_message_failing_half_way_leaves_the_ledger_as_it_was(second: str) -> None:
    """The first reveal (a legal play) is undone when a later one of the same message fails."""
    table = dealt(game_config(0, dealer=1), f"rollback-{second}")
    a, b = table.parties
    mine = a.state.ledger.held_by(0)
    play = a.play(mine[0])
    bad = {
        "not held": replace(play, pos=b.state.ledger.held_by(1)[0]),
        "outside": replace(play, pos=99),
        "twice": play,
    }[second]
    before = _ledger_facts(b.state)
    message = KeyReveal(b.config.hand, 0, b.state.next_seq(0), (play, bad))
    with pytest.raises(CheatingDetected):
        b.state.apply(message)
    assert _ledger_facts(b.state) == before
    b.state.apply(KeyReveal(b.config.hand, 0, b.state.next_seq(0), (play,)))  # still legal
    assert b.state.ledger.positions[mine[0]].played
