"""ISMCTS tree reuse: the next decision starts from the node the play reached, only in the
same hand and seat, and a reused search still plays legal moves to the end."""

from __future__ import annotations

import random

import pytest

from p2p66.bots.api import BotError, Turn, as_action
from p2p66.bots.equity import utilities
from p2p66.bots.ismcts import Tree, ismcts
from p2p66.bots.knowledge import WorldSampler, knowledge_of
from p2p66.bots.registry import bot_settings, make_bot, parse_bot_spec
from p2p66.bots.strong import StrongBot
from p2p66.engine import preset
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable


def searched(tree: Tree, turn: Turn, rng: random.Random) -> int:
    """Search ``turn`` from the tree's node for it, keep the tree; the root's visits before."""
    root = tree.root_for(turn)
    before = root.visits
    worth = utilities(turn.view.options, turn.match_points, turn.seat)
    sampler = WorldSampler(turn, knowledge_of(turn))
    ismcts(sampler.sample, turn.seat, worth, rng, iterations=300, root=root)
    tree.keep(root, turn)
    return before


def test_the_next_decision_starts_where_the_play_went() -> None:
    opts = preset("vu")
    rng = random.Random(4)
    table = HandTable.deal(opts, deal_deck(4, 0, 0, opts.deck_size), 0)
    tree = Tree()
    reused = []
    while not table.is_over:
        turn = table.turn()
        codes = [m.code for m in turn.view.legal]
        if turn.seat == 0 and len(codes) > 1 and turn.view.talon_size:
            reused.append(searched(tree, turn, rng))
        table.play(rng.choice(codes))
    assert reused[0] == 0  # nothing kept before the first search
    assert any(visits > 0 for visits in reused[1:])  # later searches start from grown nodes


def test_a_tree_of_another_hand_or_seat_is_not_reused() -> None:
    opts = preset("vu")
    rng = random.Random(5)
    tree = Tree()
    first = HandTable.deal(opts, deal_deck(5, 0, 0, opts.deck_size), 0).turn()
    searched(tree, first, rng)
    other = HandTable.deal(opts, deal_deck(6, 0, 0, opts.deck_size), 0).turn()
    assert tree.root_for(other).visits == 0
    assert tree.root_for(first).visits == 0  # taken once: a root is never searched twice


def test_a_strong_bot_reusing_its_tree_plays_whole_hands_legally() -> None:
    opts = preset("vu")
    for seed in range(6):
        bot = StrongBot(seed, max_samples=150, reuse=True)
        rng = random.Random(seed)
        table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
        while not table.is_over:
            turn = table.turn()
            codes = [m.code for m in turn.view.legal]
            code = as_action(bot.choose(turn)).move.code if turn.seat == 0 else rng.choice(codes)
            assert code in codes
            table.play(code)


def test_the_reuse_option_is_checked_and_recorded() -> None:
    bot = make_bot(parse_bot_spec("strong:samples=5,reuse=1"), 0, preset("vu"))
    assert isinstance(bot, StrongBot) and bot.reuse
    options = bot_settings(parse_bot_spec("strong:reuse=1"))["options"]
    assert isinstance(options, dict) and options["reuse"] == 1
    with pytest.raises(BotError, match="reuse is 0 or 1"):
        make_bot(parse_bot_spec("strong:reuse=2"), 0, preset("vu"))
