"""Hypothesis properties over random games of every table preset."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.engine import IllegalMoveError
from p2p66.engine.cards import CARD_POINTS, ids_of, mask_of
from p2p66.engine.table import (
    TABLE_PRESETS,
    BiddingHand,
    BiddingOptions,
    TableEnd,
    TableMatch,
    ThreeHandedHand,
    ThreeHandedMatch,
    ThreeHandedOptions,
    new_bidding_hand,
    table_view,
    three_handed_view,
)
from p2p66.engine.table.moves import NUM_TABLE_CODES

BIDDING = [n for n, o in TABLE_PRESETS.items() if isinstance(o, BiddingOptions)]
ALL_PASS = ["redeal", "dealer-bids-1"]


def random_hand(name: str, seed: int, all_pass: str = "redeal") -> list[BiddingHand]:
    opts = TABLE_PRESETS[name]
    assert isinstance(opts, BiddingOptions)
    opts = BiddingOptions(**{**opts.to_dict(), "all_pass": all_pass})  # type: ignore[arg-type]
    rng = random.Random(seed)
    deck = list(range(24))
    rng.shuffle(deck)
    states = [new_bidding_hand(opts, deck, rng.randrange(opts.players))]
    while not states[-1].is_over:
        s = states[-1]
        codes = s.legal_codes()
        # bid now and then, so that contracts of every size (and moons) come up
        states.append(s.apply(rng.choice(codes)))
    return states


def card_places(s: BiddingHand) -> list[int]:
    won = 0
    for _, plays, _ in s.tricks_log:
        won |= mask_of(c for _, c in plays)
    trick = mask_of(c for _, c in s.trick)
    widow = s.widow if s.widow_taker < 0 else 0
    taken = s.widow if s.widow_taker >= 0 else 0
    places = [*s.hands, won, trick, widow, taken]
    return [sum(1 for p in places if p >> c & 1) for c in range(24)]


games = st.tuples(st.sampled_from(BIDDING), st.integers(0, 2**32 - 1), st.sampled_from(ALL_PASS))


@settings(max_examples=150, deadline=None)
@given(games)
def test_every_card_is_in_exactly_one_place(game: tuple[str, int, str]) -> None:
    for s in random_hand(*game):
        assert card_places(s) == [1] * 24


@settings(max_examples=150, deadline=None)
@given(games)
def test_somebody_can_always_act_until_the_hand_ends(game: tuple[str, int, str]) -> None:
    states = random_hand(*game)
    for s in states[:-1]:
        assert 0 <= s.to_act < s.players and s.to_act != s.out_seat and s.legal_codes()
    end = states[-1]
    assert end.is_over and end.to_act == -1 and end.legal_codes() == []
    assert end.result is not None


@settings(max_examples=150, deadline=None)
@given(games)
def test_points_add_up(game: tuple[str, int, str]) -> None:
    end = random_hand(*game)[-1]
    r = end.result
    assert r is not None
    if r.how is TableEnd.ALL_PASSED:
        assert game[2] == "redeal" and r.marks == (0,) * end.options.sides
        return
    laid_down = sum(CARD_POINTS[c] for c in ids_of(end.hands[end.out_seat])) if end.moon else 0
    assert sum(r.side_points) == 120 - laid_down + sum(r.counted_marriages)
    assert sum(r.side_tricks) == end.options.hand_size
    for side, marks in enumerate(r.marks):
        if side != r.bidder_side:
            assert marks == r.side_points[side] // 33


@settings(max_examples=100, deadline=None)
@given(games)
def test_replaying_the_moves_reproduces_the_result(game: tuple[str, int, str]) -> None:
    states = random_hand(*game)
    first, end = states[0], states[-1]
    again = new_bidding_hand(first.options, first.deck, first.dealer)
    fast = again.copy()
    for move in end.moves_played():
        again = again.apply(move)
    for code in end.history:
        fast.apply_code_unchecked(code)
    assert again.result == end.result == fast.result
    assert again.history == end.history


@settings(max_examples=60, deadline=None)
@given(games)
def test_every_illegal_move_is_refused_with_a_reason(game: tuple[str, int, str]) -> None:
    for s in random_hand(*game)[:-1]:
        legal = set(s.legal_codes())
        for code in range(NUM_TABLE_CODES):
            if code in legal:
                continue
            try:
                s.apply(code)
            except IllegalMoveError as err:
                assert err.reason and err.move
            else:
                raise AssertionError(f"{code} was accepted")


@settings(max_examples=60, deadline=None)
@given(games)
def test_a_view_never_holds_a_hidden_card(game: tuple[str, int, str]) -> None:
    for s in random_hand(*game):
        for seat in range(s.players):
            v = table_view(s, seat)
            assert mask_of(v.hand) == s.hands[seat]
            hidden = sum(h for i, h in enumerate(s.hands) if i != seat)
            hidden |= s.widow if s.widow_taker < 0 else 0
            shown = mask_of(c for cards in v.shown for c in cards)
            assert mask_of(v.unseen) == hidden & ~shown


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(BIDDING), st.integers(0, 2**32 - 1))
def test_a_match_ends_with_a_winner_that_reached_the_target(name: str, seed: int) -> None:
    opts = TABLE_PRESETS[name]
    assert isinstance(opts, BiddingOptions)
    rng = random.Random(seed)
    m = TableMatch(opts, rng.randrange(opts.players))
    while not m.is_over and m.hand_number < 400:
        deck = list(range(24))
        rng.shuffle(deck)
        s = m.new_hand(deck)
        assert s.dealer == (m.first_dealer + len(m.results)) % opts.players
        while not s.is_over:
            s.apply_code_unchecked(rng.choice(s.legal_codes()))
        assert s.result is not None
        m = m.record(s.result)
    if m.winner is not None:
        assert m.scores[m.winner] >= opts.match_target


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["sixty-six", "schnapsen", "vu"]))
def test_three_handed_match(seed: int, rules: str) -> None:
    from p2p66.engine import PRESETS
    from p2p66.engine.cards import deck_ids

    opts = ThreeHandedOptions(hand_rules=PRESETS[rules])
    rng = random.Random(seed)
    m = ThreeHandedMatch(opts, rng.randrange(3))
    while not m.is_over:
        deck = deck_ids(opts.hand_rules.deck_size)
        rng.shuffle(deck)
        deal: ThreeHandedHand = m.new_hand(deck)
        while not deal.is_over:
            assert deal.to_act != deal.dealer
            out = three_handed_view(deal, deal.dealer)
            assert out.hand is None and out.public.to_act == deal.to_act
            deal = deal.apply(rng.choice(deal.legal_codes()), seat=deal.to_act)
        m = m.record(deal)
        assert m.winner != m.results[-1].dealer  # sitting out never reaches the target
    assert m.winner is not None and m.scores[m.winner] >= opts.match_target
    assert sum(1 for s in m.scores if s >= opts.match_target) == 1


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 40))
def test_a_view_is_the_same_whatever_the_hidden_cards(game: tuple[str, int, str], at: int) -> None:
    """Shuffle the cards another seat still holds (or the face-down widow) among those
    places, replay the same moves: the seat's view does not change."""
    states = random_hand(*game)
    s = states[min(at, len(states) - 1)]
    first = states[0]
    rng = random.Random(at)
    for seat in range(s.players):
        hidden_places = [i for i in range(s.players) if i != seat]
        pool = [c for i in hidden_places for c in ids_of(s.hands[i] & ~s.shown[i])]
        widow = ids_of(s.widow) if s.widow_taker < 0 else []
        pool += widow
        shuffled = pool[:]
        rng.shuffle(shuffled)
        swap = dict(zip(pool, shuffled, strict=True))
        deck = [swap.get(c, c) for c in first.deck]
        other = new_bidding_hand(first.options, deck, first.dealer)
        for code in s.history:
            other.apply_code_unchecked(code)
        assert table_view(other, seat) == table_view(s, seat)
