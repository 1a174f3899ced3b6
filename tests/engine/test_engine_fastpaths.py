"""The tuned engine against its plain reference (``enginekit``) on random games.

Legal moves, single-move legality, both seats' views and the states reached
by the value API and by the fast path must all be exactly the reference's.
"""

from __future__ import annotations

import itertools

from enginekit import random_game, reference_legal, reference_view, state_fields
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.engine import view_of
from p2p66.engine.moves import NUM_MOVE_CODES

seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=200, deadline=None)
@given(seeds)
def test_legal_moves_and_single_move_checks_match_the_reference(seed: int) -> None:
    for s in random_game(seed):
        legal = reference_legal(s)
        assert s.legal_codes() == legal
        assert [m.code for m in s.legal_moves()] == legal
        assert [c for c in range(NUM_MOVE_CODES) if s.is_legal(c)] == sorted(legal)


@settings(max_examples=200, deadline=None)
@given(seeds)
def test_views_match_the_reference_for_both_seats(seed: int) -> None:
    for s in random_game(seed):
        for seat in (0, 1):
            view, expected = view_of(s, seat), reference_view(s, seat)
            assert view == expected
            assert view.unseen == expected.unseen


@settings(max_examples=200, deadline=None)
@given(seeds)
def test_fast_path_reaches_the_states_of_the_value_api(seed: int) -> None:
    states = list(random_game(seed))
    fast = states[0].copy()
    for before, after in itertools.pairwise(states):
        assert state_fields(fast) == state_fields(before)
        fast.apply_code_unchecked(after.history[-1])
    assert state_fields(fast) == state_fields(states[-1])
