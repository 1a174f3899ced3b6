"""Card tracking never rules out a card the opponent really holds; sampled worlds fit the view."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.bots.knowledge import WorldSampler, knowledge_of, public_tricks
from p2p66.engine import preset, view_of
from p2p66.engine.moves import CLOSE, DECLARE
from p2p66.engine.state import Phase
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["sixty-six", "schnapsen", "vu"]),
    seed=st.integers(0, 2**32),
    close_rate=st.sampled_from([0.0, 0.3]),
)
def test_knowledge_is_sound(name: str, seed: int, close_rate: float) -> None:
    opts = preset(name)
    rng = random.Random(seed)
    table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
    state = table.state
    strict_truth: list[bool] = []
    while not state.is_over:
        turn = table.turn()
        seat = turn.seat
        know = knowledge_of(turn)
        opp = state.hands[1 - seat]
        assert opp & know.forbidden == 0
        assert know.possible_opp() & opp == opp
        assert [t.strict for t in public_tricks(turn)] == strict_truth
        world = WorldSampler(turn, know).sample(rng)
        assert view_of(world, seat) == turn.view
        assert world.legal_codes() == state.legal_codes()
        codes = state.legal_codes()
        if CLOSE in codes and rng.random() < close_rate:
            code = CLOSE
        else:
            code = rng.choice([c for c in codes if c != DECLARE] or codes)
        if state.phase == Phase.FOLLOW:
            strict_truth.append(not state.talon_open)
        table.play(code)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["sixty-six", "schnapsen", "vu"]), seed=st.integers(0, 2**32))
def test_every_world_is_each_world_the_sampler_deals_once(name: str, seed: int) -> None:
    """Late in a hand the worlds can be listed: each fits the view, none twice, the true one
    among them, and every sampled world is one of them."""
    opts = preset(name)
    rng = random.Random(seed)
    table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
    state = table.state
    while not state.is_over:
        turn = table.turn()
        know = knowledge_of(turn)
        sampler = WorldSampler(turn, know)
        if 0 < know.talon_size <= 4 and sampler.count() <= 400:
            worlds = sampler.every_world()
            assert len(worlds) == sampler.count()
            keys = {(w.hands[1 - turn.seat], w.stock) for w in worlds}
            assert len(keys) == len(worlds)
            truth = (state.hands[1 - turn.seat], state.stock[state.stock_pos :])
            assert truth in keys
            assert all(view_of(w, turn.seat) == turn.view for w in worlds)
            sampled = sampler.sample(rng)
            assert (sampled.hands[1 - turn.seat], sampled.stock) in keys
        codes = state.legal_codes()
        table.play(rng.choice([c for c in codes if c not in (DECLARE, CLOSE)] or codes))
