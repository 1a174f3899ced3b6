"""Options and presets of the table games, and their match layers (rotation, marks,
bidder out, the three-handed dealer's capped score)."""

from __future__ import annotations

import pytest

from p2p66.engine import PRESETS, RuleOptionError, preset
from p2p66.engine.deckbuild import build_deck
from p2p66.engine.table import (
    TABLE_PRESETS,
    BiddingOptions,
    TableEnd,
    TableMatch,
    TableResult,
    ThreeHandedHand,
    ThreeHandedMatch,
    ThreeHandedOptions,
    any_preset,
    table_label,
    table_options,
    table_options_from_wire,
    table_preset,
    three_handed_view,
)

# ------------------------------------------------------------------ options


def test_presets_follow_the_table_of_rules_md() -> None:
    th, na, sb, ct = (table_preset(n) for n in TABLE_PRESETS)
    assert isinstance(th, ThreeHandedOptions)
    assert (th.players, th.hand_rules, th.dealer_scores, th.match_target) == (
        3,
        preset("sixty-six"),
        "as-winner-capped",
        7,
    )
    assert na == BiddingOptions(4, "redeal", True, 0, 5, 10)
    assert sb == BiddingOptions(4, "redeal", True, 0, 5, 15)
    assert isinstance(ct, BiddingOptions)
    assert (ct.players, ct.all_pass, ct.overtrump, ct.last_trick_bonus, ct.match_target) == (
        3,
        "redeal",
        True,
        0,
        15,
    )
    assert "moon_marks" not in ct.to_dict()
    assert [table_label(o) for o in (th, na, sb, ct)] == list(TABLE_PRESETS)


def test_two_player_presets_are_unchanged() -> None:
    assert set(PRESETS) == {"sixty-six", "schnapsen", "vu"}
    with pytest.raises(RuleOptionError):
        preset("north-american")
    assert (
        any_preset("vu") is PRESETS["vu"]
        and any_preset("cut-throat") is TABLE_PRESETS["cut-throat"]
    )
    with pytest.raises(RuleOptionError, match="presets: sixty-six, schnapsen, vu, three-handed"):
        any_preset("bridge")


@pytest.mark.parametrize(
    ("base", "values", "message"),
    [
        ("north-american", {"colour": "red"}, "unknown rule option 'colour'"),
        ("north-american", {"hand_rules": "vu"}, "does not apply to partnership"),
        ("cut-throat", {"moon_marks": 3}, "does not apply to cut-throat"),
        ("three-handed", {"all_pass": "redeal"}, "does not apply to three-handed"),
        ("three-handed", {"last_trick_bonus": 0}, "set it inside hand_rules"),
        ("north-american", {"all_pass": "shuffle"}, "all_pass cannot be 'shuffle'"),
        ("north-american", {"overtrump": "maybe"}, "must be true or false"),
        ("north-american", {"match_target": "0"}, "at least 1"),
        ("north-american", {"moon_marks": "-1"}, "whole number >= 0"),
        ("north-american", {"players": "3"}, "players is 4 in partnership"),
        ("three-handed", {"hand_rules": "bridge"}, "names a two-player preset"),
        ("three-handed", {"dealer_scores": "all"}, "dealer_scores cannot be 'all'"),
        ("three-handed", {"hand_rules": {"deck_size": 21}}, "deck_size cannot be 21"),
    ],
)
def test_unknown_names_and_values_are_refused(
    base: str, values: dict[str, object], message: str
) -> None:
    with pytest.raises(RuleOptionError, match=message):
        table_options(base, values)


def test_option_values_from_a_command_line() -> None:
    opts = table_options("north-american", {"overtrump": "false", "all_pass": "dealer-bids-1"})
    assert opts == BiddingOptions(overtrump=False, all_pass="dealer-bids-1")
    th = table_options("three-handed", {"hand_rules": "schnapsen", "dealer_scores": "nothing"})
    assert isinstance(th, ThreeHandedOptions) and th.hand_rules == PRESETS["schnapsen"]


@pytest.mark.parametrize("name", list(TABLE_PRESETS))
def test_wire_round_trip(name: str) -> None:
    opts = table_preset(name)
    assert table_options_from_wire(opts.to_dict()) == opts
    values = opts.to_dict()
    del values["match_target"]
    with pytest.raises(RuleOptionError, match="lack match_target"):
        table_options_from_wire(values)


# -------------------------------------------------------------- bidding match


def result(marks: tuple[int, ...], bidder_side: int | None) -> TableResult:
    how = TableEnd.ALL_PASSED if bidder_side is None else TableEnd.CONTRACT_MADE
    zero = (0,) * len(marks)
    return TableResult(how, bidder_side, 1, False, zero, zero, zero, marks, bidder_side)


def test_rotation_scores_and_target() -> None:
    m = TableMatch(table_preset("north-american"), first_dealer=2)
    assert m.scores == (0, 0) and m.dealer == 2
    m = m.record(result((0, 0), None))  # a void hand still passes the deal left
    assert m.dealer == 3 and m.hand_number == 2
    m = m.record(result((3, -2), 1))
    assert m.scores == (3, -2) and m.dealer == 0 and not m.is_over
    m = m.record(result((7, 0), 0))
    assert m.winner == 0 and m.is_over
    with pytest.raises(ValueError, match="over"):
        m.record(result((1, 0), 0))


def test_bidder_out_when_both_reach_the_target() -> None:
    m = TableMatch(table_preset("north-american"), 0, scores=(9, 8))
    assert m.record(result((1, 3), 1)).winner == 1
    assert m.record(result((3, 1), 1)).winner == 0  # the bidder fell short: the other side


def test_cut_throat_tie_between_non_bidders_plays_on() -> None:
    m = TableMatch(table_preset("cut-throat"), 0, scores=(13, 13, 2))
    assert m.record(result((2, 2, -1), 2)).winner is None
    assert m.record(result((2, 3, -1), 2)).winner == 1
    assert m.record(result((2, 2, 1), 0)).winner == 0


def test_south_bend_plays_to_15() -> None:
    m = TableMatch(table_preset("south-bend"), 0, scores=(9, 0))
    assert m.record(result((3, 0), 0)).winner is None
    assert m.record(result((6, 0), 0)).winner == 0


# ------------------------------------------------------------ three-handed

TH = table_preset("three-handed")
assert isinstance(TH, ThreeHandedOptions)


def finished_deal(options: ThreeHandedOptions, dealer: int, deck: list[int]) -> ThreeHandedHand:
    deal = ThreeHandedHand.new(options, deck, dealer)
    while not deal.is_over:
        deal = deal.apply(deal.legal_codes()[0], seat=deal.to_act)
    return deal


def test_the_two_players_left_and_right_of_the_dealer() -> None:
    deck = build_deck(
        TH.hand_rules, non_dealer="AH TH KH QH JH 9H", dealer="AS TS KS QS JS 9S", trump="AC"
    )
    deal = ThreeHandedHand.new(TH, deck, dealer=1)
    assert deal.players == (2, 0) and deal.to_act == 2  # left of the dealer leads
    view = three_handed_view(deal, 2)
    assert view.hand is not None and next(c.code for c in view.hand.hand) == "AH"
    out = three_handed_view(deal, 1)
    assert out.sitting_out and out.hand is None and out.public.hand_sizes == {2: 6, 0: 6}
    with pytest.raises(Exception, match="the dealer sits out"):
        deal.apply("play:AH", seat=1)
    with pytest.raises(Exception, match="not your turn: it is seat 2's turn"):
        deal.apply("play:AS", seat=0)


def test_dealer_scores_as_winner_capped() -> None:
    deck = list(range(24))
    deal = finished_deal(TH, 0, deck)
    winner = deal.winner
    assert winner in (1, 2) and deal.result is not None
    gp = deal.result.game_points
    m = ThreeHandedMatch(TH, 0).record(deal)
    assert m.scores[winner] == gp and m.scores[0] == gp
    capped = ThreeHandedMatch(TH, 0, scores=(5, 0, 0)).record(deal)
    assert capped.scores[0] == 6  # the dealer stops at match_target - 1
    stuck = ThreeHandedMatch(TH, 0, scores=(6, 0, 0)).record(deal)
    assert stuck.scores[0] == 6 and stuck.results[-1].gained[0] == 0
    assert m.dealer == 1


def test_dealer_scores_nothing() -> None:
    opts = ThreeHandedOptions(dealer_scores="nothing")
    deal = finished_deal(opts, 0, list(range(24)))
    m = ThreeHandedMatch(opts, 0).record(deal)
    assert m.scores[0] == 0


def test_only_a_player_reaches_the_target_and_standings() -> None:
    deal = finished_deal(TH, 0, list(range(24)))
    assert deal.winner is not None and deal.result is not None
    m = ThreeHandedMatch(TH, 0, scores=(6, 6, 6)).record(deal)
    assert m.winner == deal.winner and m.scores[0] == 6
    places = m.standings()
    assert places[deal.winner] == 1 and sorted(places) in ([1, 2, 2], [1, 2, 3])


def test_a_tie_carries_and_the_dealer_gets_the_carry_too() -> None:
    opts = ThreeHandedOptions(hand_rules=PRESETS["sixty-six"].with_options(unclaimed_end="points"))
    m = ThreeHandedMatch(opts, 0)
    for seed in range(400):  # find a tied deal and a decided one with seeded decks
        import random

        deck = list(range(24))
        random.Random(seed).shuffle(deck)
        deal = finished_deal(opts, 0, deck)
        if deal.winner is None:
            break
    else:
        pytest.skip("no tie found")
    tied = m.record(deal)
    assert tied.scores == (0, 0, 0) and tied.carry == 1 and tied.dealer == 1
    nxt = finished_deal(opts, 1, list(range(24)))
    if nxt.winner is None or nxt.result is None:
        pytest.skip("second deal tied too")
    after = tied.record(nxt)
    assert after.scores[nxt.winner] == nxt.result.game_points + 1
    assert after.scores[1] == min(nxt.result.game_points + 1, 6)


def test_hand_rules_schnapsen_deals_20_cards() -> None:
    opts = ThreeHandedOptions(hand_rules=PRESETS["schnapsen"])
    deck = [c for c in range(24) if c % 6 != 5]
    deal = finished_deal(opts, 2, deck)
    assert deal.players == (0, 1) and deal.result is not None
    with pytest.raises(ValueError, match="seat 0 deals"):
        ThreeHandedMatch(opts, 0).record(deal)
