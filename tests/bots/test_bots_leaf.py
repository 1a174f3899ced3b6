"""ISMCTS's leaf with ``endgame``: once the talon is gone, the playout is finished exactly."""

from __future__ import annotations

import random

import pytest

from p2p66.bots.equity import utilities
from p2p66.bots.ismcts import policy_value
from p2p66.bots.strong import _finisher
from p2p66.engine import preset
from p2p66.engine.cards import deck_ids
from p2p66.engine.state import HandState, new_hand
from p2p66.runner.run import one_hand
from tests.bots.test_bots_solver import endgames, minimax


def opened(name: str, seed: int) -> HandState:
    opts = preset(name)
    deck = deck_ids(opts.deck_size)
    random.Random(seed).shuffle(deck)
    return new_hand(opts, deck, dealer=seed % 2)


@pytest.mark.parametrize("name", ["vu", "sixty-six"])
def test_the_finished_endgame_is_worth_what_brute_force_minimax_says(name: str) -> None:
    """Match play needs exact game points, a one-hand game only who wins (a null window)."""
    rng = random.Random(7)
    match_worth = utilities(preset(name), (0, 0), 0)
    single_worth = utilities(one_hand(preset(name)), (0, 0), 0)
    exact, signed = _finisher(4, match_worth), _finisher(4, single_worth)
    assert exact is not None and signed is not None
    for s in endgames(name, rng, cards_left=4, close=name == "sixty-six", count=15):
        truth = minimax(s.copy())
        assert exact(s.copy()) == truth
        value = signed(s.copy())
        assert (value > 0) == (truth > 0) and (value < 0) == (truth < 0)


def test_the_leaf_plays_the_policy_until_the_endgame_starts() -> None:
    """With endgame 1 only the forced last trick is "solved": the policy's playout exactly.
    With endgame 5 (all of vu's second phase) the solver's better play shows."""
    worth = utilities(preset("vu"), (0, 0), 0)
    assert _finisher(0, worth) is None
    last, whole = _finisher(1, worth), _finisher(5, worth)
    assert last is not None and whole is not None
    improved = 0
    for seed in range(60):
        start = opened("vu", seed)
        policy = policy_value(start.copy())
        assert last(start.copy()) == policy
        improved += whole(start.copy()) != policy
    assert improved > 0
