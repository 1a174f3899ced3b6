"""Card and move notation, rule options and presets, the match layer."""

from __future__ import annotations

import pytest

from p2p66.engine import (
    MOVES,
    Match,
    NotationError,
    RuleOptionError,
    RuleOptions,
    parse_move_code,
    preset,
)
from p2p66.engine.cards import Card, parse_card_id
from p2p66.engine.moves import describe
from p2p66.engine.scoring import HandResult, HowEnded


@pytest.mark.parametrize(
    ("text", "code"),
    [("TH", "TH"), ("th", "TH"), ("10h", "TH"), ("h10", "TH"), ("A♥", "AH"), ("9s", "9S")],
)
def test_card_parsing_is_lenient(text: str, code: str) -> None:
    assert Card.parse(text).code == code


@pytest.mark.parametrize("text", ["", "X", "1H", "AX", "AHH", "queen"])
def test_card_nonsense_is_rejected_with_what_was_expected(text: str) -> None:
    with pytest.raises(NotationError, match="expected a rank"):
        parse_card_id(text)


@pytest.mark.parametrize(
    ("text", "notation"),
    [
        ("play:AH", "play:AH"),
        ("ah", "play:AH"),
        ("10h", "play:TH"),
        ("p 9c", "play:9C"),
        ("marry:QH", "marry:QH"),
        ("m qh", "marry:QH"),
        ("mkh", "marry:KH"),
        ("Marriage: K♥", "marry:KH"),
        ("exchange", "exchange"),
        ("x", "exchange"),
        ("close", "close"),
        ("declare", "declare"),
        ("66", "declare"),
        ("draw", "draw"),
        ("pass", "pass"),
    ],
)
def test_move_parsing(text: str, notation: str) -> None:
    assert MOVES[parse_move_code(text)].notation == notation


@pytest.mark.parametrize("text", ["", "jump", "m xx", "play:", "marry"])
def test_move_nonsense_says_what_was_expected(text: str) -> None:
    with pytest.raises(NotationError, match=r"expected|marriage names"):
        parse_move_code(text)


def test_canonical_notation_round_trips() -> None:
    for move in MOVES:
        assert MOVES[parse_move_code(move.notation)] is move
        assert describe(move.code)


def test_presets_are_bundles_of_every_option() -> None:
    assert preset("sixty-six") == RuleOptions()
    s, v = preset("schnapsen"), preset("vu")
    assert (s.deck_size, s.exchange_rank, s.exchange_min_talon, s.close_before_draw) == (
        20,
        "J",
        4,
        False,
    )
    assert (v.declare, v.allow_close, v.marriage_credit, v.deal_layout, v.schwarz) == (
        "automatic",
        False,
        "next-trick",
        "alternate",
        "no-points",
    )
    for opts in (s, v, preset("sixty-six")):
        assert RuleOptions.from_mapping(opts.to_dict()) == opts


def test_unknown_preset_option_and_value_are_clear_errors() -> None:
    with pytest.raises(RuleOptionError, match="unknown preset 'skat'"):
        preset("skat")
    with pytest.raises(RuleOptionError, match="unknown rule option 'jokers'"):
        RuleOptions.from_mapping({"jokers": True})
    with pytest.raises(RuleOptionError, match="declare cannot be 'sometimes'"):
        RuleOptions.from_mapping({"declare": "sometimes"})
    with pytest.raises(RuleOptionError, match="true or false"):
        RuleOptions.from_mapping({"allow_close": "maybe"})
    with pytest.raises(RuleOptionError, match="no nines"):
        RuleOptions(deck_size=20)
    with pytest.raises(RuleOptionError, match="match_target must be at least 1"):
        RuleOptions(match_target=0)


def test_options_from_command_line_strings() -> None:
    opts = RuleOptions.from_mapping(
        {"allow_close": "false", "match_target": "1", "deck_size": "20", "exchange_rank": "j"}
    )
    assert (opts.allow_close, opts.match_target, opts.deck_size, opts.exchange_rank) == (
        False,
        1,
        20,
        "J",
    )


def _result(winner: int | None, gp: int) -> HandResult:
    how = HowEnded.TIE if winner is None else HowEnded.DECLARED_66
    return HandResult(winner, gp, how, (0, 0), (0, 0), None, None)


def test_match_to_seven_with_dealer_alternating() -> None:
    m = Match(preset("sixty-six"), first_dealer=1)
    assert m.dealer == 1
    m = m.record(_result(0, 3))
    assert m.dealer == 0 and m.game_points == (3, 0)
    m = m.record(_result(1, 2)).record(_result(0, 3))
    assert not m.is_over and m.dealer == 0
    m = m.record(_result(0, 1))
    assert m.is_over and m.winner == 0 and m.game_points == (7, 2)
    with pytest.raises(ValueError, match="over"):
        m.record(_result(1, 1))


def test_ties_carry_one_point_each_to_the_next_winner() -> None:
    m = Match(preset("sixty-six"), first_dealer=0)
    m = m.record(_result(None, 0)).record(_result(None, 0))
    assert m.carry == 2 and m.game_points == (0, 0)
    m = m.record(_result(1, 1))
    assert m.game_points == (0, 3) and m.carry == 0


def test_one_hand_match() -> None:
    m = Match(preset("sixty-six").with_options(match_target=1), first_dealer=0)
    assert m.record(_result(1, 1)).winner == 1


def test_options_from_the_wire_are_complete_and_typed() -> None:
    full = preset("vu").to_dict()
    assert RuleOptions.from_wire(full) == preset("vu")
    with pytest.raises(RuleOptionError, match="lack match_target"):
        RuleOptions.from_wire({k: v for k, v in full.items() if k != "match_target"})
    with pytest.raises(RuleOptionError, match="true or false"):
        RuleOptions.from_wire({**full, "allow_close": "no"})
