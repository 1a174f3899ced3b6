"""Judging moves with partial knowledge of the deck (what a network peer knows)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.engine import PRESETS, IllegalMoveError, new_hand
from p2p66.engine.cards import deck_ids
from p2p66.engine.moves import EXCHANGE, MARRY_BASE
from p2p66.engine.partial import KnowledgeConflict, PartialHand
from p2p66.engine.state import HandState


def shown_by(before: HandState, code: int) -> list[int]:
    """The cards a move opens publicly."""
    if code < MARRY_BASE:
        return [code]
    if code < EXCHANGE:
        return [code - MARRY_BASE, (code - MARRY_BASE) ^ 1]
    if code == EXCHANGE:
        return [before.exchange_card]
    return []


def observer(preset: str, deck: list[int], dealer: int, seat: int | None) -> PartialHand:
    """What ``seat`` knows at the deal (None: a third party who knows only the trump)."""
    p = PartialHand(PRESETS[preset], dealer)
    p.learn(p.layout.trump, deck[p.layout.trump])
    if seat is not None:
        for pos in p.layout.hand_positions(seat, dealer):
            p.learn(pos, deck[pos])
    return p


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32), st.sampled_from([0, 1, None]))
def test_every_legal_move_is_accepted_and_states_agree(
    preset: str, seed: int, seat: int | None
) -> None:
    rng = random.Random(seed)
    options = PRESETS[preset]
    deck = deck_ids(options.deck_size)
    rng.shuffle(deck)
    dealer = rng.randrange(2)
    truth = new_hand(options, deck, dealer)
    partial = observer(preset, deck, dealer, seat)
    while not truth.is_over:
        code = rng.choice(truth.legal_codes())
        for card in shown_by(truth, code):
            partial.learn(deck.index(card), card)
        accepted = partial.accept(code)
        truth = truth.apply(code)
        if seat is not None:  # a player also learns the cards it draws
            for pos in partial.positions_held(seat):
                partial.learn(pos, deck[pos])
        assert accepted.state.score == truth.score
        assert accepted.state.to_act == truth.to_act and accepted.state.phase == truth.phase
    assert accepted.state.result == truth.result
    assert partial.full_replay(deck).result == truth.result


def _exhausted_game() -> tuple[HandState, PartialHand, list[int]]:
    from p2p66.engine.deckbuild import build_deck

    options = PRESETS["sixty-six"]
    deck = build_deck(
        options, non_dealer="AS TS KS QS JS 9S", dealer="AC TC KC QC JC 9C", trump="AH"
    )
    truth = new_hand(options, deck, 0)
    partial = observer("sixty-six", deck, 0, seat=1)
    while truth.talon_left:
        code = "draw" if truth.phase.name == "DRAW" else truth.legal_moves()[0].notation
        move = truth.legal_moves()[[m.notation for m in truth.legal_moves()].index(code)]
        for card in shown_by(truth, move.code):
            partial.learn(deck.index(card), card)
        partial.accept(move.code)
        truth = truth.apply(move)
        for pos in partial.positions_held(1):
            partial.learn(pos, deck[pos])
    return truth, partial, deck


def test_strict_duty_violation_is_caught_when_provable() -> None:
    truth, partial, deck = _exhausted_game()
    # Talon exhausted: seat 1 knows every card of seat 0 (the unseen ones).
    while truth.to_act != 0 or truth.phase.name != "FOLLOW":
        code = truth.legal_codes()[0]
        for card in shown_by(truth, code):
            partial.learn(deck.index(card), card)
        partial.accept(code)
        truth = truth.apply(code)
        if truth.is_over:
            pytest.skip("hand ended before a suitable follow")
    illegal = [c for c in range(24) if truth.hands[0] >> c & 1 and c not in truth.legal_codes()]
    if not illegal:
        pytest.skip("no illegal card in this position")
    partial.learn(deck.index(illegal[0]), illegal[0])
    with pytest.raises(IllegalMoveError):
        partial.check(illegal[0])


def test_playing_an_unopened_card_and_conflicts() -> None:
    options = PRESETS["sixty-six"]
    deck = deck_ids(24)
    p = PartialHand(options, dealer=0)
    with pytest.raises(KnowledgeConflict, match="without being opened"):
        p.check(deck[0])
    p.learn(0, deck[0])
    with pytest.raises(KnowledgeConflict, match="holds"):
        p.learn(0, deck[1])
    with pytest.raises(KnowledgeConflict, match="already at position 0"):
        p.learn(1, deck[0])
    with pytest.raises(KnowledgeConflict, match="no deck position"):
        p.learn(99, deck[0])


def test_playing_a_card_from_the_other_hand_is_rejected() -> None:
    options = PRESETS["sixty-six"]
    deck = deck_ids(24)
    p = PartialHand(options, dealer=0)
    dealer_pos = p.layout.dealer[0]
    p.learn(dealer_pos, deck[dealer_pos])  # a card of seat 0, "played" by seat 1
    with pytest.raises(IllegalMoveError, match="not in your hand"):
        p.check(deck[dealer_pos])


def test_state_is_a_fresh_copy_and_answers_follow_new_knowledge() -> None:
    """The replay behind the answers is shared between calls, never with the caller."""
    deck = deck_ids(24)
    random.Random(5).shuffle(deck)
    p = observer("sixty-six", deck, 0, 1)
    first = p.state()
    held = p.positions_held(1)
    first.hands[1] = 0  # the caller's copy: must not leak into later answers
    assert p.positions_held(1) == held
    assert p.state().hands[1] == new_hand(PRESETS["sixty-six"], deck, 0).hands[1]
    code = sorted(p.state().legal_codes())[0]
    p.accept(code)
    assert code not in [deck[pos] for pos in p.positions_held(1)]
    hidden = next(pos for pos in range(24) if p.card_at(pos) is None)
    p.learn(hidden, deck[hidden])
    assert p.state().deck[hidden] == deck[hidden]  # the fill follows what was learned
