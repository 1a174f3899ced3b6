"""Every built-in bot answers only legal moves, from its view alone; seeds reproduce games."""

from __future__ import annotations

import random

import pytest

from p2p66.bots import BUILTINS, Action, BotError, Turn, as_action, parse_bot_spec
from p2p66.bots.api import Bot
from p2p66.bots.expert import decide
from p2p66.bots.registry import make_bot
from p2p66.bots.solver import Solver
from p2p66.engine import preset, view_of
from p2p66.engine.cards import CARDS, deck_ids
from p2p66.engine.state import new_hand
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable

PRESETS = ("sixty-six", "schnapsen", "vu")
FAST = {"random": "random", "greedy": "greedy", "expert": "expert", "strong": "strong:samples=3"}


def play_hand(bots: tuple[Bot, Bot], name: str, seed: int) -> list[str]:
    """One hand; asserts every answer is legal; returns the moves in notation."""
    opts = preset(name)
    table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
    while not table.is_over:
        turn = table.turn()
        move = as_action(bots[turn.seat].choose(turn)).move
        assert move.code in table.state.legal_codes(), (name, seed, move)
        table.play(move.code)
    return [m.move.notation for m in table.log]


def test_every_builtin_is_tested() -> None:
    assert set(FAST) == set(BUILTINS)


@pytest.mark.parametrize("bot", sorted(FAST))
@pytest.mark.parametrize("name", PRESETS)
def test_builtin_bots_play_legal_moves(bot: str, name: str) -> None:
    opts = preset(name)
    hands = 3 if bot == "strong" else 12
    for seed in range(hands):
        pair = (
            make_bot(parse_bot_spec(FAST[bot]), seed, opts),
            make_bot(parse_bot_spec("random"), seed + 100, opts),
        )
        play_hand(pair if seed % 2 else (pair[1], pair[0]), name, seed)


def test_random_is_reproducible_with_its_seed() -> None:
    opts = preset("sixty-six")

    def game(seed: int) -> list[str]:
        bots = (make_bot(parse_bot_spec("random"), seed, opts),) * 2
        return play_hand((bots[0], bots[1]), "sixty-six", 5)

    assert game(1) == game(1)
    assert any(game(1) != game(s) for s in range(2, 6))


def test_strong_with_fixed_samples_is_reproducible() -> None:
    opts = preset("schnapsen")

    def game() -> list[str]:
        bots = (
            make_bot(parse_bot_spec("strong:samples=4"), 7, opts),
            make_bot(parse_bot_spec("expert"), 0, opts),
        )
        return play_hand(bots, "schnapsen", 3)

    assert game() == game()


def test_expert_says_why() -> None:
    opts = preset("sixty-six")
    deck = deck_ids(24)
    state = new_hand(opts, deck, dealer=0)
    turn = Turn(view_of(state, 1), (), CARDS[deck[12]])
    code, why = decide(turn)
    assert code in state.legal_codes() and why
    action = make_bot(parse_bot_spec("expert"), 0, opts).choose(turn)
    assert isinstance(action, Action) and action.info["why"] == why


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty bot spec"),
        ("expert:depth=3", "no option 'depth'"),
        ("strong:ms=fast", "must be a number"),
        ("strong:ms=300:solve=4", "separate options with commas"),
        ("strong:ms=-5", "must be positive"),
        ("strong:ms=inf", "must be a finite number"),
        ("strong:model=nan", "must be a finite number"),
        ("strong:ms", "not key=value"),
        ("vu:", "vu bots are named"),
    ],
)
def test_bad_specs_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(BotError, match=message):
        make_bot(parse_bot_spec(text), 0, preset("sixty-six"))


def test_spec_kinds() -> None:
    assert parse_bot_spec("strong:ms=50").kind == "builtin"
    assert parse_bot_spec("strong:ms=50").options == (("ms", "50"),)
    assert parse_bot_spec("vu:rdeep:16:4").name == "rdeep:16:4"
    external = parse_bot_spec("python3 my_bot.py --fast")
    assert external.kind == "external"
    assert external.command == ("python3", "my_bot.py", "--fast")
    assert parse_bot_spec("./bot").kind == "external"


@pytest.mark.parametrize("name", PRESETS)
def test_strong_with_ismcts_plays_legal_moves_and_is_reproducible(name: str) -> None:
    opts = preset(name)

    def game(seed: int) -> list[str]:
        bots = (
            make_bot(parse_bot_spec("strong:search=ismcts,samples=40"), seed, opts),
            make_bot(parse_bot_spec("random"), 9, opts),
        )
        return play_hand(bots, name, seed)

    assert game(1) == game(1)
    game(2)


def test_ismcts_finds_the_move_that_wins_in_every_world() -> None:
    """Holding the trump ace and ten at the end, with a lead that decides the hand."""
    from p2p66.bots.ismcts import ismcts
    from p2p66.bots.playout import policy_move

    opts = preset("vu")
    rng = random.Random(4)
    for seed in range(40):
        deck = deck_ids(opts.deck_size)
        random.Random(seed).shuffle(deck)
        state = new_hand(opts, deck, dealer=0)
        while state.talon_open and not state.is_over:
            state.apply_code_unchecked(policy_move(state))
        if state.is_over or state.lead_card >= 0:
            continue
        # Talon gone: nothing is hidden, so every world is this one; compare with the solver.
        me = state.to_act
        values = Solver().move_values(state)
        sign = 1 if me == 0 else -1
        if sorted(sign * v > 0 for v in values.values()) != [False] * (len(values) - 1) + [True]:
            continue  # want exactly one winning move
        worth = {g: 1.0 if g > 0 else 0.0 for g in range(-3, 4)}
        code, _ = ismcts(lambda _rng, s=state: s.copy(), me, worth, rng, iterations=400)
        assert sign * values[code] > 0
        return
    pytest.skip("no position with a single winning move among these deals")


@pytest.mark.parametrize("name", ["vu", "sixty-six"])
def test_strong_solves_every_world_once_the_talon_is_nearly_gone(name: str) -> None:
    """With solve=2, at two talon cards strong lists every world left and plays the move that
    wins in the most of them (one-hand games: winning is all), whatever its search before."""
    from p2p66.bots.knowledge import WorldSampler, knowledge_of
    from p2p66.engine.moves import DECLARE
    from p2p66.runner.run import one_hand

    opts = one_hand(preset(name))
    checked = 0
    for seed in range(12):
        bot = make_bot(parse_bot_spec("strong:samples=30,solve=2"), seed, opts)
        other = make_bot(parse_bot_spec("random"), seed, opts)
        table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
        while not table.is_over:
            turn = table.turn()
            action = as_action((bot if turn.seat == 0 else other).choose(turn))
            if turn.seat == 0 and action.info.get("exact") and turn.view.talon_size == 2:
                sampler = WorldSampler(turn, knowledge_of(turn))
                assert action.info["worlds"] == sampler.count()
                wins: dict[int, int] = {}
                for world in sampler.every_world():
                    for code in [m.code for m in turn.legal if m.code != DECLARE]:
                        child = world.copy()
                        child.apply_code_unchecked(code)
                        if child.is_over:
                            assert child.result is not None
                            won = child.result.winner == 0
                        else:
                            won = Solver().value(child, -1, 1) > 0
                        wins[code] = wins.get(code, 0) + won
                assert wins[action.move.code] == max(wins.values())
                checked += 1
            table.play(action.move.code)
    assert checked >= 3
