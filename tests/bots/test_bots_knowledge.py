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
