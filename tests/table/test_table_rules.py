"""Scenario tests for the bidding games: one or more per rule, ruling and option of RULES.md
"Games for three and four players" (north-american, south-bend, cut-throat)."""

from __future__ import annotations

import pytest
from tablekit import deal, play

from p2p66.engine import IllegalMoveError
from p2p66.engine.cards import SUIT_MASKS, mask_of, parse_card_id
from p2p66.engine.table import (
    BiddingOptions,
    TableEnd,
    TablePhase,
    follow_allowed,
    table_preset,
    table_view,
)

NA = table_preset("north-american")
CT = table_preset("cut-throat")
C, D, H, S = range(4)

# Dealer 3: seat 0 calls and (as bidder) leads first. Side 0+2 holds nothing high.
WEAK = {
    0: "KS QS 9C JC 9D 9H",
    1: "AS JS AC TC AD TD",
    2: "QC KC JD QD JH QH",
    3: "TS 9S AH TH KH KD",
}
WEAK_PLAY = "marry:QS AS QC 9S  JS KC TS KS  AH 9H TD QH  TH 9C AD JH  KH JC AC JD  KD 9D TC QD"
# The same cards one seat on, dealer 0: seat 2 bids and its side takes everything.
STRONG = {(seat + 1) % 4: cards for seat, cards in WEAK.items()}
STRONG_PLAY = "AS QC 9S QS  JS KC TS KS  AH 9H TD QH  TH 9C AD JH  KH JC AC JD  KD 9D TC QD"
DUTY = {
    0: "QH 9H AC TC KC QC",
    1: "KH JH AD TD KD QD",
    2: "TH AS TS KS QS JC",
    3: "AH JD 9D JS 9S 9C",
}


def m(cards: str) -> int:
    return mask_of(parse_card_id(c) for c in cards.split())


def reason(hand: object, move: str) -> str:
    with pytest.raises(IllegalMoveError) as err:
        hand.apply(move)  # type: ignore[attr-defined]
    return err.value.reason


# ----------------------------------------------------------------- bidding


def test_bidding_starts_left_of_the_dealer_and_goes_once_round() -> None:
    h = deal(NA, 3, DUTY)
    assert h.phase == TablePhase.BID and h.to_act == 0
    h = play(h, "bid:1 pass bid:3")
    assert h.to_act == 3 and h.high_bid == 3 and h.bidder == 2
    h = play(h, "pass")
    assert (
        h.phase == TablePhase.LEAD
        and h.to_act == 2
        and h.calls
        == [
            (0, 1),
            (1, 0),
            (2, 3),
            (3, 0),
        ]
    )


def test_not_your_call() -> None:
    h = deal(NA, 3, DUTY)
    with pytest.raises(IllegalMoveError, match="not your call: it is seat 0's call"):
        h.apply("bid:1", seat=2)


def test_bid_too_low_and_bids_not_added() -> None:
    h = play(deal(NA, 3, DUTY), "bid:2")
    assert "bid too low: the highest bid is 2" in reason(h, "bid:2")
    assert "bid too low" in reason(h, "bid:1")
    h = play(h, "pass bid:3")  # the partner outbids: bids are not added
    assert h.high_bid == 3 and h.bidder == 2


def test_after_the_moon_only_pass() -> None:
    h = play(deal(NA, 3, DUTY), "bid:5")
    assert h.legal_codes() == [52]
    assert "5 is the highest possible bid; pass" in reason(h, "bid:5")


def test_cut_throat_has_no_moon() -> None:
    h = deal(CT, 2, {})
    assert "no moon" in reason(h, "bid:5")
    assert list(h.legal_codes()) == [52, 53, 54, 55, 56]


def test_playing_before_the_bidding_is_refused() -> None:
    h = deal(NA, 3, DUTY)
    assert reason(h, "play:QH") == "the bidding comes first: bid:N or pass"


def test_all_pass_redeal_is_void() -> None:
    h = play(deal(NA, 3, DUTY), "pass pass pass pass")
    assert h.is_over and h.result is not None
    assert h.result.how is TableEnd.ALL_PASSED and h.result.marks == (0, 0)
    assert "void" in h.result.describe(("A", "B"), ("0", "1", "2", "3"))


def test_all_pass_dealer_bids_1() -> None:
    opts = BiddingOptions(all_pass="dealer-bids-1")
    h = play(deal(opts, 3, DUTY), "pass pass pass")
    assert h.phase == TablePhase.BID  # ruling 5: the dealer may still call
    h = play(h, "pass")
    assert (h.bidder, h.high_bid, h.forced, h.to_act) == (3, 1, True, 3)
    h2 = play(deal(opts, 3, DUTY), "pass pass pass bid:2")
    assert (h2.bidder, h2.high_bid, h2.forced) == (3, 2, False)


def test_bidding_is_over_once_play_starts() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass")
    assert reason(h, "pass") == "the bidding is over: play a card"
    assert reason(h, "bid:2") == "the bidding is over: play a card"


def test_two_player_moves_do_not_exist_here() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass")
    for word in ("exchange", "close", "declare", "draw"):
        assert reason(h, word) == f"there is no {word} in this game: play a card"


# ------------------------------------------------------------ trump, duty


def test_the_first_card_led_is_trump_and_the_bidder_leads() -> None:
    h = play(deal(NA, 3, DUTY), "pass bid:2 pass pass")
    assert h.to_act == 1 and h.trump == -1
    assert reason(h, "play:AH") == "AH is not in your hand"
    h = play(h, "play:AD")
    assert h.trump == D


def test_follow_duty_on_the_first_trick_of_trumps() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass 9H")
    assert h.trump == H
    assert reason(h, "AD") == "you must follow suit: hearts was led"
    h = play(h, "JH")
    # seat 2 holds TH only: it beats JH, so it is forced; seat 3 must beat TH with AH
    assert h.legal_codes() == [parse_card_id("TH")]
    h = play(h, "TH")
    assert reason(h, "9D") == "you must follow suit: hearts was led"
    h = play(h, "AH")
    assert h.tricks_log[-1][2] == 3 and h.points[3] == 23


def test_must_beat_the_trick() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass QH")
    assert h.legal_codes() == [parse_card_id("KH")]
    assert reason(h, "JH") == "you must beat the trick: play a hearts higher than QH"


def test_must_trump_when_void() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass 9H JH TH AH 9C AC")
    assert h.to_act == 1  # void in clubs, holds KH
    assert reason(h, "AD") == "you cannot follow suit, so you must trump (hearts)"
    h = play(h, "KH")
    # seat 2 follows clubs: the trick is trumped, so any club (it has only JC)
    h = play(h, "JC")
    assert h.tricks_log[-1][2] == 1


def test_duty_table() -> None:
    # led clubs, trumps hearts; best club QC, no trump yet: beat it if able
    assert follow_allowed(m("AC 9C KD"), C, H, parse_card_id("QC"), -1, overtrump=True) == m("AC")
    assert follow_allowed(m("JC 9C KD"), C, H, parse_card_id("QC"), -1, overtrump=True) == m(
        "JC 9C"
    )
    # already trumped (ruling 1): any club, even one that could beat the best club
    trumped = parse_card_id("9H")
    assert follow_allowed(m("AC 9C"), C, H, parse_card_id("QC"), trumped, overtrump=True) == m(
        "AC 9C"
    )
    # void: must trump; with overtrump, beat the trump in the trick if able (ruling 2)
    assert follow_allowed(
        m("KH 9H AD"), C, H, parse_card_id("QC"), parse_card_id("QH"), overtrump=True
    ) == m("KH")
    assert follow_allowed(
        m("JH 9H AD"), C, H, parse_card_id("QC"), parse_card_id("QH"), overtrump=True
    ) == m("JH 9H")
    assert follow_allowed(
        m("KH 9H AD"), C, H, parse_card_id("QC"), parse_card_id("QH"), overtrump=False
    ) == m("KH 9H")
    # trumps led: every follower with trumps beats the best trump if able
    assert follow_allowed(
        m("AH 9H"), H, H, parse_card_id("KH"), parse_card_id("KH"), overtrump=False
    ) == m("AH")
    # void, no trumps: anything
    assert follow_allowed(m("AD 9S"), C, H, parse_card_id("QC"), -1, overtrump=True) == m("AD 9S")
    assert SUIT_MASKS[H] & m("AD 9S") == 0


def test_overtrump_required_of_a_void_player() -> None:
    hands = {
        0: "9S AD TD KD QD JD",
        1: "AS TC 9D 9C 9H JH",
        2: "TS KC QC JC AH TH",
        3: "KS AC KH QH JS QS",
    }
    # seat 0 leads 9S: spades trump. Then diamonds led; seat 1 has 9D.
    h = play(deal(NA, 3, hands), "bid:1 pass pass pass 9S AS TS KS")
    assert h.to_act == 1  # AS won
    h = play(h, "9C")  # clubs led by seat 1
    h = play(h, "KC")  # seat 2 beats 9C (must)
    # seat 3 holds AC: must beat KC
    assert h.legal_codes() == [parse_card_id("AC")]
    h = play(h, "AC")
    # seat 0 void in clubs, no spades left (9S gone): anything
    assert len(h.legal_codes()) == 5


def test_void_player_must_beat_the_trump_in_the_trick() -> None:
    hands = {
        0: "9S JS AD TD KD QD",
        1: "AS 9C 9D 9H JH TH",
        2: "TS KS AC TC KC QC",
        3: "QS AH KH QH JC JD",
    }
    # trumps spades (9S led); AS wins trick 1 for seat 1
    h = play(deal(NA, 3, hands), "bid:1 pass pass pass 9S AS TS QS")
    h = play(h, "9H")  # seat 1 leads hearts; seat 2 void in hearts, holds KS
    h = play(h, "KS")  # seat 2 trumps
    h = play(h, "AH")  # seat 3 follows hearts (trumped: any heart)
    # seat 0: void in hearts, holds JS (lower than KS): must still play a trump
    assert h.legal_codes() == [parse_card_id("JS")]
    assert reason(h, "AD") == "you cannot follow suit, so you must trump (spades)"


def test_must_overtrump_message() -> None:
    hands = {
        0: "9S JS AD TD KD QD",
        1: "AS 9C 9D 9H JH TH",
        2: "QS TS AC TC KC QC",
        3: "KS AH KH QH JC JD",
    }
    h = play(deal(NA, 3, hands), "bid:1 pass pass pass 9S AS TS KS")
    h = play(h, "9H QS")  # seat 2 void in hearts trumps with QS
    h = play(h, "AH")
    # seat 0 void in hearts holds JS (below QS): must still trump
    assert h.legal_codes() == [parse_card_id("JS")]


# --------------------------------------------------------------- marriages


def test_marriage_on_the_first_lead_makes_trumps_and_is_40() -> None:
    h = play(deal(NA, 3, WEAK), "bid:1 pass pass pass marry:QS")
    assert h.trump == S and h.marriages == [(0, S, 40)]
    v = table_view(h, 1)
    assert [c.code for c in v.shown[0]] == ["KS"]  # the other half is shown
    assert v.hand_sizes == (5, 6, 6, 6)


def test_marriage_not_held_and_not_when_following() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass")
    assert "marriage not held" in reason(h, "marry:QH")
    assert reason(h, "marry:AC") == "a marriage is announced with its king or queen"
    h = play(deal(NA, 3, WEAK), "bid:1 pass pass pass 9H")
    # seat 1 holds no marriage; seat 3 follows ... try marrying while following
    h = play(h, "TD QH")
    assert reason(h, "marry:KH") == "a marriage is announced when leading, not when following"


def test_a_later_marriage_off_trumps_is_20() -> None:
    hands = {
        0: "KD QD AS 9C 9H JC",
        1: "KH QH TS 9S JS QS",
        2: "AD TD KS AC TC KC",
        3: "AH TH JH JD 9D QC",
    }
    h = play(deal(NA, 3, hands), "bid:1 pass pass pass AS")
    h = play(h, "TS KS")
    assert h.to_act == 3
    h = play(h, "QC")  # seat 3 void in spades, no trumps
    assert h.tricks_log[-1][2] == 0
    h = play(h, "marry:KD")
    assert h.marriages[-1] == (0, D, 20)


def test_a_marriage_counts_only_for_a_side_that_takes_a_trick() -> None:
    h = play(deal(NA, 3, WEAK), "bid:1 pass pass pass " + WEAK_PLAY)
    r = h.result
    assert r is not None and r.how is TableEnd.CONTRACT_SET
    assert r.side_tricks == (0, 6) and r.counted_marriages == (0, 0)
    assert r.side_points == (0, 120)
    assert r.marks == (-1, 3)  # set: exactly -bid; the opponents always score their 33s


# ----------------------------------------------------------------- scoring


def test_contract_made_scores_every_33() -> None:
    h = play(deal(NA, 0, STRONG), "pass bid:3 pass pass " + STRONG_PLAY)
    r = h.result
    assert r is not None and r.how is TableEnd.CONTRACT_MADE and r.bidder == 2
    assert r.side_points == (120, 0) and r.marks == (3, 0)
    assert "made it with 120 points" in r.describe(("NS", "EW"), ("N", "E", "S", "W"))


def test_a_bid_of_4_cannot_be_made_without_marriages() -> None:
    h = play(deal(NA, 0, STRONG), "pass bid:4 pass pass " + STRONG_PLAY)
    assert h.result is not None and h.result.how is TableEnd.CONTRACT_SET
    assert h.result.marks == (-4, 0)


def test_last_trick_bonus_goes_to_the_last_trick_and_counts_toward_the_bid() -> None:
    opts = BiddingOptions(last_trick_bonus=12)
    h = play(deal(opts, 0, STRONG), "pass bid:4 pass pass " + STRONG_PLAY)
    assert h.result is not None and h.result.side_points == (132, 0)
    assert h.result.how is TableEnd.CONTRACT_MADE and h.result.marks == (4, 0)


def test_moon_partner_lays_down_and_moon_made() -> None:
    hands = {2: "AS TS KS QS JS 9S"}
    h = play(deal(NA, 0, hands), "pass bid:5 pass pass")
    assert h.moon and h.out_seat == 0 and h.to_act == 2
    out_hand = h.hands[0]
    h = play(h, "AS")
    assert h.to_act == 3
    # three cards per trick: seat 2, 3, 1 (seat 0 is skipped)
    order = []
    while not h.is_over:
        order.append(h.to_act)
        h = h.apply(h.legal_codes()[0], seat=h.to_act)
    assert 0 not in order and h.hands[0] == out_hand
    r = h.result
    assert r is not None and r.how is TableEnd.MOON_MADE and r.marks == (5, 0)
    assert len(h.tricks_log[0][1]) == 3


def test_the_laid_down_partner_cannot_play() -> None:
    h = play(deal(NA, 0, {2: "AS TS KS QS JS 9S"}), "pass bid:5 pass pass AS")
    card = next(iter(h.hand_of(0))).code
    with pytest.raises(IllegalMoveError, match="partner shot the moon"):
        h.apply(card, seat=0)


def test_moon_failed() -> None:
    h = play(deal(NA, 0, STRONG), "pass bid:5 pass pass")
    assert h.out_seat == 0
    h = play(h, "AS QC QS JS KC KS")  # seat 1's KS beats JS: a trick lost
    while not h.is_over:
        h = h.apply(h.legal_codes()[0])
    r = h.result
    assert r is not None and r.how is TableEnd.MOON_FAILED
    assert r.marks[0] == -5 and r.marks[1] == r.side_points[1] // 33


# ------------------------------------------------------------- cut-throat


def test_cut_throat_deal_widow_and_scoring() -> None:
    hands = {0: "AS TS KS QS JS 9S AH", 1: "AC TC KC QC JC 9C TH", 2: "AD TD KD QD JD 9D KH"}
    h = deal(CT, 2, hands, widow="QH JH 9H")
    assert [len(h.hand_of(s)) for s in range(3)] == [7, 7, 7]
    h = play(h, "bid:2 pass pass")
    assert table_view(h, 1).widow == ()  # face down until the first trick is won
    h = play(h, "AS AC AD")
    assert h.widow_taker == 0 and h.points[0] == 33 + 3 + 2 + 0
    v = table_view(h, 2)
    assert [c.code for c in v.widow] == ["QH", "JH", "9H"] and v.widow_taker == 0
    while not h.is_over:
        h = h.apply(h.legal_codes()[0])
    r = h.result
    assert r is not None and len(r.marks) == 3 and sum(r.side_points) == 120
    assert len(h.tricks_log) == 7 and all(len(t[1]) == 3 for t in h.tricks_log)


def test_cut_throat_each_opponent_scores_its_own_marks() -> None:
    hands = {0: "9S JS 9C JC 9D JD 9H", 1: "AS TS KS QS AC TC KC", 2: "AD TD KD QD AH TH KH"}
    h = play(deal(CT, 2, hands, widow="QH JH QC"), "bid:1 pass pass")
    while not h.is_over:
        h = h.apply(h.legal_codes()[0])
    r = h.result
    assert r is not None and r.bidder == 0
    assert r.marks[1] == r.side_points[1] // 33 and r.marks[2] == r.side_points[2] // 33


# -------------------------------------------------------------------- views


def test_a_view_holds_only_the_own_hand() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass")
    v = table_view(h, 0)
    assert [c.code for c in v.hand] == ["AC", "TC", "KC", "QC", "QH", "9H"]
    assert v.partner == 2 and v.legal == () and v.calls == ((0, 1), (1, 0))
    assert len(v.unseen) == 18  # the partner's cards are as hidden as the opponents'
    assert table_view(h, 2).legal == tuple(h.legal_codes())


def test_a_view_shows_every_card_and_who_played_it() -> None:
    h = play(deal(NA, 3, DUTY), "bid:1 pass pass pass 9H JH")
    v = table_view(h, 3)
    assert [(s, c.code) for s, c in v.trick] == [(0, "9H"), (1, "JH")] and v.trump == H
    h = play(h, "TH AH")
    v = table_view(h, 1)
    assert v.trick == () and v.tricks[0].winner == 3
    assert [(s, c.code) for s, c in v.tricks[0].plays] == [
        (0, "9H"),
        (1, "JH"),
        (2, "TH"),
        (3, "AH"),
    ]


def test_bad_dealer_and_deck() -> None:
    from p2p66.engine import DealError
    from p2p66.engine.table import new_bidding_hand

    with pytest.raises(ValueError, match="dealer"):
        new_bidding_hand(NA, list(range(24)), 4)
    with pytest.raises(DealError):
        new_bidding_hand(NA, list(range(23)), 0)
    with pytest.raises(IllegalMoveError, match="not a move code"):
        new_bidding_hand(NA, list(range(24)), 0).apply(99)
