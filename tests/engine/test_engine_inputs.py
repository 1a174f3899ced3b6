"""The engine's public entry points take card codes as decks and refuse bad input with
their own errors (EngineError subclasses) saying what was expected."""

from __future__ import annotations

from typing import Any

import pytest

from p2p66.engine import (
    DealError,
    EngineError,
    EngineInputError,
    IllegalMoveError,
    Match,
    new_hand,
    preset,
    view_of,
)
from p2p66.engine.cards import CARD_CODES, deck_ids

SIXTY_SIX = preset("sixty-six")
CODES = [CARD_CODES[c] for c in deck_ids(24)]


def test_a_deck_of_card_codes_is_the_same_hand_as_one_of_ids() -> None:
    by_code = new_hand(SIXTY_SIX, CODES, 0)
    by_id = new_hand(SIXTY_SIX, deck_ids(24), 0)
    assert by_code.deck == by_id.deck
    assert by_code.legal_codes() == by_id.legal_codes()
    mixed = [*CODES[:12], *deck_ids(24)[12:]]
    assert new_hand(SIXTY_SIX, mixed, 1).deck == by_id.deck


@pytest.mark.parametrize(
    ("deck", "expected"),
    [
        ([None, *CODES[1:]], "deck entry 0 is None: expected a card id"),
        ([*CODES[:5], 1.0, *CODES[6:]], "deck entry 5 is 1.0"),
        ([True, *CODES[1:]], "deck entry 0 is True"),
        (["XX", *CODES[1:]], "'XX' is not a card"),
        (None, "a deck must be a sequence"),
        ("AC KC", "a deck must be a sequence"),
        (CODES[:-1], "a deck of 24 cards is needed"),
        ([CODES[0], *CODES[:-1]], "duplicated cards"),
    ],
)
def test_a_bad_deck_is_a_deal_error(deck: Any, expected: str) -> None:
    with pytest.raises(DealError, match=expected):
        new_hand(SIXTY_SIX, deck, 0)


@pytest.mark.parametrize("dealer", [2, -1, "0", None, True, 0.0])
def test_a_dealer_that_is_no_seat_is_refused(dealer: Any) -> None:
    with pytest.raises(EngineInputError, match="dealer must be seat 0 or 1"):
        new_hand(SIXTY_SIX, CODES, dealer)


@pytest.mark.parametrize("move", [None, 1.0, -1, 10_000, b"play:AC", True])
def test_apply_of_something_that_is_no_move(move: Any) -> None:
    state = new_hand(SIXTY_SIX, CODES, 0)
    with pytest.raises(IllegalMoveError, match="not a move code: expected a Move"):
        state.apply(move)
    with pytest.raises(IllegalMoveError, match="not a move code: expected a Move"):
        state.check_legal(move)


@pytest.mark.parametrize("seat", [2, -1, "1", None])
def test_view_of_a_seat_that_does_not_exist(seat: Any) -> None:
    state = new_hand(SIXTY_SIX, CODES, 0)
    with pytest.raises(EngineInputError, match="seat must be seat 0 or 1"):
        view_of(state, seat)
    if seat is not None:  # apply's seat is optional
        with pytest.raises(EngineInputError, match="seat 0 or 1"):
            state.apply(state.legal_codes()[0], seat)


def test_view_of_something_that_is_no_state() -> None:
    with pytest.raises(EngineInputError, match="needs a HandState"):
        view_of(None, 0)  # type: ignore[arg-type]


def test_recording_after_the_match_is_over() -> None:
    match = Match(SIXTY_SIX.with_options(match_target=1), first_dealer=0)
    state = match.new_hand(CODES)
    while not state.is_over:
        state = state.apply(state.legal_codes()[0])
    assert state.result is not None
    over = match.record(state.result)
    assert over.is_over
    with pytest.raises(EngineInputError, match=r"the match is over .*no further hand"):
        over.record(state.result)
    with pytest.raises(EngineInputError, match="the match is over"):
        over.new_hand(CODES)
    with pytest.raises(EngineInputError, match="needs a HandResult"):
        match.record(None)  # type: ignore[arg-type]


def test_every_refusal_is_an_engine_error() -> None:
    assert issubclass(EngineInputError, EngineError)
    assert issubclass(DealError, EngineError)


@pytest.mark.parametrize(
    ("deck", "expected"),
    [
        ([0, *deck_ids(24)[:-1]], "duplicated cards"),
        ([*deck_ids(24)[:-1], 24], "cards not in this deck: \\['24'\\]"),
        ([-1, *deck_ids(24)[1:]], "cards not in this deck: \\['-1'\\]"),
        ([5, *deck_ids(24)[1:]], "duplicated cards: \\['.*'\\]"),
    ],
)
def test_a_deck_of_ids_that_is_no_permutation_is_a_deal_error(deck: Any, expected: str) -> None:
    """Plain id lists take the fast bitmask check; what fails it is still explained."""
    with pytest.raises(DealError, match=expected):
        new_hand(SIXTY_SIX, deck, 0)
    with pytest.raises(DealError, match=expected):
        new_hand(SIXTY_SIX, tuple(deck), 1)


def test_a_twenty_card_deal_refuses_the_nines_and_takes_any_order() -> None:
    vu = preset("vu")
    with pytest.raises(DealError, match="cards not in this deck"):
        new_hand(vu, [*deck_ids(20)[:-1], 5], 0)  # a nine in a deck without nines
    order = list(reversed(deck_ids(20)))
    assert new_hand(vu, order, 0).deck == tuple(order)
