"""Hypothesis properties over random games, for every preset."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.engine import PRESETS, HandState, Match, Phase, new_hand, view_of
from p2p66.engine.cards import CARD_POINTS, deck_ids, mask_of

PRESET_NAMES = sorted(PRESETS)


def random_game(preset: str, seed: int) -> tuple[list[int], int, list[HandState]]:
    options = PRESETS[preset]
    rng = random.Random(seed)
    deck = deck_ids(options.deck_size)
    rng.shuffle(deck)
    dealer = rng.randrange(2)
    states = [new_hand(options, deck, dealer)]
    while not states[-1].is_over:
        s = states[-1]
        states.append(s.apply(rng.choice(s.legal_codes())))
    return deck, dealer, states


def card_locations(s: HandState) -> list[int]:
    """For each card in the deck, a bitmask of the places it is in (must be one)."""
    talon = mask_of(s.stock[s.stock_pos :]) | (1 << s.trump_card if s.talon_left else 0)
    table = 1 << s.lead_card if s.lead_card >= 0 else 0
    places = [s.hands[0], s.hands[1], s.won[0], s.won[1], talon, table]
    return [sum(1 for p in places if p >> c & 1) for c in s.deck]


games = st.tuples(st.sampled_from(PRESET_NAMES), st.integers(0, 2**32 - 1))


@settings(max_examples=150, deadline=None)
@given(games)
def test_every_card_is_in_exactly_one_place(game: tuple[str, int]) -> None:
    _, _, states = random_game(*game)
    for s in states:
        assert card_locations(s) == [1] * len(s.deck)


@settings(max_examples=150, deadline=None)
@given(games)
def test_player_to_act_always_has_a_legal_move_until_the_end(game: tuple[str, int]) -> None:
    _, _, states = random_game(*game)
    for s in states[:-1]:
        assert s.to_act in (0, 1) and s.legal_codes()
    last = states[-1]
    assert last.phase == Phase.OVER and last.legal_codes() == [] and last.result is not None


@settings(max_examples=150, deadline=None)
@given(games)
def test_points_never_exceed_the_deck_total(game: tuple[str, int]) -> None:
    _, _, states = random_game(*game)
    for s in states:
        bonus = s.options.last_trick_bonus
        captured = [
            sum(CARD_POINTS[c] for c in range(24) if s.won[seat] >> c & 1) for seat in (0, 1)
        ]
        marriages = sum(m.points for m in s.marriages)
        assert sum(captured) <= 120
        assert sum(s.score) <= 120 + bonus + marriages
        for seat in (0, 1):
            assert s.score[seat] >= captured[seat]


@settings(max_examples=100, deadline=None)
@given(games)
def test_replaying_the_moves_reproduces_states_and_result(game: tuple[str, int]) -> None:
    deck, dealer, states = random_game(*game)
    final = states[-1]
    replay = new_hand(final.options, deck, dealer)
    for i, notation in enumerate(final.moves_played()):
        replay = replay.apply(notation)
        assert replay.hands == states[i + 1].hands
        assert replay.score == states[i + 1].score
    assert replay.result == final.result


@settings(max_examples=60, deadline=None)
@given(games)
def test_views_never_show_hidden_cards(game: tuple[str, int]) -> None:
    _, _, states = random_game(*game)
    for s in states:
        for seat in (0, 1):
            v = view_of(s, seat)
            known = mask_of(v.hand) | mask_of(v.played) | mask_of(v.opponent_shown)
            hidden = s.hands[1 - seat] | mask_of(s.stock[s.stock_pos :])
            leaked = hidden & known & ~(mask_of(v.opponent_shown))
            assert leaked == 0
            assert mask_of(v.opponent_shown) & ~s.hands[1 - seat] == 0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PRESET_NAMES), st.integers(0, 2**32 - 1))
def test_matches_end_at_target_with_alternating_dealer(preset: str, seed: int) -> None:
    options = PRESETS[preset]
    rng = random.Random(seed)
    match = Match(options, first_dealer=rng.randrange(2))
    dealers = []
    while not match.is_over:
        deck = deck_ids(options.deck_size)
        rng.shuffle(deck)
        s = match.new_hand(deck)
        dealers.append(s.dealer)
        while not s.is_over:
            s.apply_code_unchecked(rng.choice(s.legal_codes()))
        assert s.result is not None
        match = match.record(s.result)
    assert all(a != b for a, b in itertools.pairwise(dealers))
    assert max(match.game_points) >= options.match_target
    assert min(match.game_points) < options.match_target
