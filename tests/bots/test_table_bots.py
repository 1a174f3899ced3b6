"""Bots of the bidding games: always legal, the expert's bidding and partnership play,
and the inference behind strong's worlds (exact: it never bans a card a seat holds)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.bots.api import BotError
from p2p66.bots.table import TABLE_BOTS, make_table_bot
from p2p66.bots.table.expert import bid_plan
from p2p66.bots.table.worlds import forbidden, sample_world
from p2p66.engine.cards import parse_card_id
from p2p66.engine.table import (
    TABLE_PRESETS,
    BiddingOptions,
    bid_code,
    new_bidding_hand,
    table_preset,
    table_view,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
from tablekit import deal, play

BIDDING = [n for n, o in TABLE_PRESETS.items() if isinstance(o, BiddingOptions)]
NA = table_preset("north-american")
assert isinstance(NA, BiddingOptions)


@pytest.mark.parametrize("name", BIDDING)
@pytest.mark.parametrize("bot", TABLE_BOTS)
def test_every_bot_plays_only_legal_moves(name: str, bot: str) -> None:
    opts = TABLE_PRESETS[name]
    assert isinstance(opts, BiddingOptions)
    spec = "strong:ms=2" if bot == "strong" else bot
    bots = [make_table_bot(spec, seed) for seed in range(opts.players)]
    rng = random.Random(7)
    for hand_no in range(3 if bot == "strong" else 12):
        d = list(range(24))
        rng.shuffle(d)
        s = new_bidding_hand(opts, d, hand_no % opts.players)
        while not s.is_over:
            code = bots[s.to_act].choose(table_view(s, s.to_act))
            assert code in s.legal_codes()
            s = s.apply(code, seat=s.to_act)


def test_bot_names_and_options() -> None:
    assert make_table_bot("strong:ms=20", 0).name == "strong:ms=20"
    for spec, message in [
        ("nobody", "unknown bot 'nobody'"),
        ("expert:x=1", "has no options"),
        ("strong:ms=fast", "must be a number"),
        ("strong:ms=0", "must be positive"),
        ("strong:depth=3", "only the option ms"),
    ]:
        with pytest.raises(BotError, match=message):
            make_table_bot(spec, 0)


def test_expert_shoots_the_moon_with_six_sure_tricks() -> None:
    h = deal(NA, 3, {0: "AS TS KS QS JS 9S"})
    assert make_table_bot("expert", 0).choose(table_view(h, 0)) == bid_code(5)


def test_expert_bids_on_trumps_and_marriages_and_passes_junk() -> None:
    moon = deal(NA, 3, {0: "AH TH KH QH AC AD"})
    assert bid_plan(table_view(moon, 0)) == (5, 2)  # hearts draw all trumps, the aces run
    good = deal(NA, 3, {0: "AH TH KH QH 9C 9D"})
    bid, suit = bid_plan(table_view(good, 0))
    assert bid >= 2 and suit == 2  # hearts: top trumps and the 40 marriage
    junk = deal(NA, 3, {0: "9C JC 9D JD 9S JS"})
    assert make_table_bot("expert", 0).choose(table_view(junk, 0)) == 52


def test_expert_leads_its_trump_marriage_first() -> None:
    h = play(deal(NA, 3, {0: "AH TH KH QH 9C 9D"}), "bid:3 pass pass pass")
    code = make_table_bot("expert", 0).choose(table_view(h, 0))
    assert code in (24 + parse_card_id("KH"), 24 + parse_card_id("QH"))


def test_expert_gives_points_to_a_partner_who_wins_and_does_not_overtake() -> None:
    hands = {
        0: "AS TS KS QS JS 9S",  # seat 0 bids and leads spades: trumps
        1: "AC TC KC QC JC 9C",
        2: "AH TH KH QH JH 9H",
        3: "AD TD KD QD JD 9D",
    }
    h = play(deal(NA, 3, hands), "bid:1 pass pass pass AS")
    # seats 1-3 are void in trumps: any card. Seat 2 (the partner of 0) holds hearts only.
    h = play(h, "9C")
    view = table_view(h, 2)
    # AS is the highest trump: nobody after seat 2 can beat it
    code = make_table_bot("expert", 0).choose(view)
    assert code == parse_card_id("AH")  # the most points onto the partner's sure trick


def test_expert_takes_a_trick_cheaply_with_a_sure_winner() -> None:
    hands = {
        0: "9C JC 9D JD 9H JH",
        1: "AS TS KS QS JS 9S",
        2: "QC KC QD KD QH KH",
        3: "AC TC AD TD AH TH",
    }
    h = play(deal(NA, 3, hands), "bid:1 pass pass pass 9C KS")
    # seat 2 holds KC and QC, both beat 9C but seat 1 trumped: any club; then seat 3
    h = play(h, "QC")
    view = table_view(h, 3)
    code = make_table_bot("expert", 0).choose(view)
    assert code in (parse_card_id("AC"), parse_card_id("TC"))  # must follow clubs; cannot win


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(BIDDING), st.integers(0, 2**32 - 1))
def test_inference_is_exact_and_worlds_match_the_view(name: str, seed: int) -> None:
    opts = TABLE_PRESETS[name]
    assert isinstance(opts, BiddingOptions)
    rng = random.Random(seed)
    d = list(range(24))
    rng.shuffle(d)
    s = new_bidding_hand(opts, d, rng.randrange(opts.players))
    while not s.is_over:
        v = table_view(s, s.to_act)
        bans = forbidden(v)
        assert all(not bans[i] & s.hands[i] for i in range(opts.players))
        w = sample_world(v, rng, bans)
        assert table_view(w, s.to_act) == v
        s = s.apply(rng.choice(s.legal_codes()))
