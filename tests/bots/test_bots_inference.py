"""Soft inference from the opponent's lead: never rules out the true world, and does shift
the sampled worlds towards the ones that explain the lead."""

from __future__ import annotations

import random
from collections.abc import Iterator
from statistics import fmean

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.bots.api import BotError, Turn
from p2p66.bots.inference import FLOOR, lead_likelihood
from p2p66.bots.knowledge import WorldSampler, knowledge_of
from p2p66.engine import preset, view_of
from p2p66.engine.moves import CLOSE, DECLARE
from p2p66.engine.state import HandState
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable


def follow_turns(name: str, seed: int) -> Iterator[tuple[Turn, HandState]]:
    """(turn, true state) at every decision of a hand played at random."""
    opts = preset(name)
    rng = random.Random(seed)
    table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
    while not table.is_over:
        turn = table.turn()
        yield turn, table.state
        codes = table.state.legal_codes()
        table.play(rng.choice([c for c in codes if c not in (DECLARE, CLOSE)] or codes))


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["sixty-six", "schnapsen", "vu"]), seed=st.integers(0, 2**32))
def test_the_true_world_is_never_ruled_out(name: str, seed: int) -> None:
    """Whatever the opponent leads (here: at random), the real hands keep a likelihood of at
    least FLOOR, and the worlds drawn under the likelihood fit the seat's view."""
    rng = random.Random(seed)
    for turn, state in follow_turns(name, seed):
        model = lead_likelihood(turn)
        view = turn.view
        if model is None:
            assert view.lead is None or view.lead_is_marriage or not state.talon_open
            continue
        assert FLOOR <= model(state) <= 1.0
        sampler = WorldSampler(turn, knowledge_of(turn), model)
        for _ in range(5):
            world = sampler.sample(rng)
            assert view_of(world, turn.seat) == view
            assert world.legal_codes() == state.legal_codes()


def test_worlds_drawn_under_the_likelihood_explain_the_lead_better() -> None:
    """Rejection sampling: on average the drawn worlds make the lead more likely than
    uniformly drawn ones, and the lead is judged unlikely in some worlds of some turns."""
    rng = random.Random(3)
    uniform, weighted = [], []
    for seed in range(40):
        for turn, _state in follow_turns("sixty-six", seed):
            model = lead_likelihood(turn)
            if model is None:
                continue
            know = knowledge_of(turn)
            plain, inferred = WorldSampler(turn, know), WorldSampler(turn, know, model)
            uniform += [model(plain.sample(rng)) for _ in range(20)]
            weighted += [model(inferred.sample(rng)) for _ in range(20)]
    assert min(uniform) < 0.5
    assert fmean(weighted) > fmean(uniform) + 0.02


def test_the_infer_option_is_checked_and_recorded_when_it_differs_from_the_default() -> None:
    from p2p66.bots.registry import bot_settings, make_bot, parse_bot_spec
    from p2p66.bots.strong import INFER, StrongBot

    other = int(not INFER)
    bot = make_bot(parse_bot_spec(f"strong:samples=5,infer={other}"), 0, preset("vu"))
    assert isinstance(bot, StrongBot) and bot.infer == bool(other)
    options = bot_settings(parse_bot_spec(f"strong:infer={other}"))["options"]
    assert isinstance(options, dict) and options["infer"] == other
    options = bot_settings(parse_bot_spec("strong"))["options"]
    assert isinstance(options, dict) and "infer" not in options
    with pytest.raises(BotError, match="infer is 0 or 1"):
        make_bot(parse_bot_spec("strong:infer=yes"), 0, preset("vu"))
