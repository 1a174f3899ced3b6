"""Inference from the opponent's decisions: the true history always fits, the model's own
play is recognised as such, and the sampled worlds move towards the ones it explains."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from statistics import fmean

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.bots.api import BotError, Turn
from p2p66.bots.expert import decide
from p2p66.bots.knowledge import WorldSampler, knowledge_of
from p2p66.bots.opponent_model import EPSILON, PolicyLikelihood, policy_likelihood
from p2p66.engine import preset, view_of
from p2p66.engine.state import HandState
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable

Chooser = Callable[[Turn, random.Random], int]


def expert_move(turn: Turn, rng: random.Random) -> int:
    return decide(turn)[0]


def random_move(turn: Turn, rng: random.Random) -> int:
    return rng.choice([m.code for m in turn.view.legal])


def seat0_models(
    name: str, seed: int, me: Chooser, opponent: Chooser
) -> Iterator[tuple[Turn, PolicyLikelihood | None, HandState]]:
    """(turn, model, true state) at every decision of seat 0, its previous one the anchor."""
    opts = preset(name)
    rng = random.Random(seed)
    table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
    previous: Turn | None = None
    while not table.is_over:
        turn = table.turn()
        if turn.seat == 0:
            yield turn, policy_likelihood(turn, previous, decide), table.state
            previous = turn
            table.play(me(turn, rng))
        else:
            table.play(opponent(turn, rng))


def weights(model: PolicyLikelihood, state: HandState) -> list[float]:
    return [w for w in model._histories(state) if w is not None]


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["sixty-six", "schnapsen", "vu"]), seed=st.integers(0, 2**32))
def test_an_expert_opponent_is_recognised_in_the_true_world(name: str, seed: int) -> None:
    """Against the model's own policy one history of the true hands explains every decision
    (weight 1): the replay rebuilds the opponent's views exactly, draws and exchanges too."""
    for _turn, model, state in seat0_models(name, seed, random_move, expert_move):
        if model is None:
            continue
        assert max(weights(model, state)) == 1.0
        assert 0 < model(state) <= 1.0


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(["sixty-six", "schnapsen", "vu"]), seed=st.integers(0, 2**32))
def test_the_true_world_is_never_ruled_out_whatever_the_opponent_plays(
    name: str, seed: int
) -> None:
    """A random opponent: the true history still fits (the weight is only lower), and the
    worlds drawn under the model fit the seat's view."""
    rng = random.Random(seed)
    for turn, model, state in seat0_models(name, seed, expert_move, random_move):
        if model is None:
            continue
        assert weights(model, state)
        assert EPSILON**4 <= model(state) <= 1.0
        sampler = WorldSampler(turn, knowledge_of(turn), model)
        for _ in range(3):
            world = sampler.sample(rng)
            assert view_of(world, turn.seat) == turn.view


def test_without_an_anchor_only_the_opening_lead_is_judged() -> None:
    """No previous decision of this seat: the opponent's first lead of the hand is judged,
    any later turn is not (there is nothing to replay from)."""
    judged_first = 0
    for seed in range(30):
        for turn, _model, state in seat0_models("sixty-six", seed, random_move, expert_move):
            model = policy_likelihood(turn, None, decide)
            if turn.view.tricks or turn.view.lead is None or turn.view.lead_is_marriage:
                assert model is None
                continue
            assert model is not None and model(state) == 1.0
            judged_first += 1
    assert judged_first


def test_an_anchor_from_another_hand_or_seat_is_ignored() -> None:
    turns = [t for t, _m, _s in seat0_models("sixty-six", 5, random_move, expert_move)]
    other = [t for t, _m, _s in seat0_models("sixty-six", 6, random_move, expert_move)]
    late = turns[-1]
    model = policy_likelihood(late, other[0], decide)
    assert model is None or not model.anchor.moves or model.anchor.view.tricks == ()


def test_worlds_drawn_under_the_model_explain_the_play_better() -> None:
    """Rejection sampling moves the worlds towards those in which an expert opponent's
    choices made sense, and some uniformly drawn worlds do not explain them."""
    rng = random.Random(3)
    uniform, weighted = [], []
    for seed in range(25):
        for turn, model, _state in seat0_models("sixty-six", seed, random_move, expert_move):
            if model is None or not turn.view.talon_open:
                continue
            know = knowledge_of(turn)
            plain, inferred = WorldSampler(turn, know), WorldSampler(turn, know, model)
            uniform += [model(plain.sample(rng)) for _ in range(10)]
            weighted += [model(inferred.sample(rng)) for _ in range(10)]
    assert min(uniform) <= EPSILON
    assert fmean(weighted) > fmean(uniform) + 0.1


def test_the_model_option_is_checked_and_recorded_when_it_differs_from_the_default() -> None:
    from p2p66.bots.registry import bot_settings, make_bot, parse_bot_spec
    from p2p66.bots.strong import MODEL, StrongBot

    bot = make_bot(parse_bot_spec("strong:samples=5,model=0.3"), 0, preset("sixty-six"))
    assert isinstance(bot, StrongBot) and bot.model == 0.3
    options = bot_settings(parse_bot_spec("strong:model=0.3"))["options"]
    assert isinstance(options, dict) and options["model"] == 0.3
    options = bot_settings(parse_bot_spec(f"strong:model={MODEL}"))["options"]
    assert isinstance(options, dict) and "model" not in options
    for bad, why in (("2", "weight from 0 to 1"), ("-1", "positive"), ("x", "a number")):
        with pytest.raises(BotError, match=why):
            make_bot(parse_bot_spec(f"strong:model={bad}"), 0, preset("sixty-six"))
