"""Racing PIMC's candidates: a move is dropped only when the worlds show it worse than the
leader, never the leader, never too early; a racing strong bot drops the costly close and
still plays legal moves to the end."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p66.bots.api import BotError, as_action
from p2p66.bots.race import CHECK_EVERY, MIN_WORLDS, Race
from p2p66.bots.registry import bot_settings, make_bot, parse_bot_spec
from p2p66.bots.strong import StrongBot
from p2p66.engine import preset
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable

utility = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
worlds = st.lists(st.lists(utility, min_size=3, max_size=3), min_size=1, max_size=80)


@given(worlds, st.floats(min_value=0.0, max_value=4.0))
def test_the_leader_always_runs_and_nothing_is_dropped_too_early(
    rows: list[list[float]], z: float
) -> None:
    race = Race([10, 11, 12], z)
    for n, row in enumerate(rows, start=1):
        running = race.running
        race.record({code: row[code - 10] for code in running})
        assert race.best() in race.running
        if n < MIN_WORLDS:
            assert race.running == [10, 11, 12]
        assert sorted(race.running + race.dropped()) == [10, 11, 12]
    if z == 0:
        assert not race.dropped()


def reference_drops(rows: list[list[float]], z: float) -> list[list[int]]:
    """The race recomputed from every world's utilities kept in lists: the running
    candidates after each world."""
    scores: dict[int, list[float]] = {10: [], 11: [], 12: []}
    out = []
    for n, row in enumerate(rows, start=1):
        for code, kept in scores.items():
            kept.append(row[code - 10])
        if z > 0 and n >= MIN_WORLDS and n % CHECK_EVERY == 0 and len(scores) > 1:
            leader = max(scores, key=lambda c: sum(scores[c]))
            for code in [c for c in scores if c != leader]:
                diffs = [a - b for a, b in zip(scores[code], scores[leader], strict=True)]
                mean = sum(diffs) / n
                spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
                if mean + z * spread < 0:
                    del scores[code]
        out.append(sorted(scores))
    return out


@given(worlds, st.sampled_from([0.5, 1.0, 2.0, 3.0]))
def test_the_running_sums_decide_as_the_whole_lists_would(
    rows: list[list[float]], z: float
) -> None:
    race = Race([10, 11, 12], z)
    seen = []
    for row in rows:
        race.record({code: row[code - 10] for code in race.running})
        seen.append(sorted(race.running))
    assert seen == reference_drops(rows, z)


@given(worlds)
def test_only_a_costly_candidate_is_ever_dropped(rows: list[list[float]]) -> None:
    race = Race([10, 11, 12], 0.5, costly=[12])
    for row in rows:
        race.record({code: row[code - 10] for code in race.running})
        assert {10, 11} <= set(race.running)
    assert set(race.dropped()) <= {12}


@given(st.lists(utility, min_size=MIN_WORLDS, max_size=60))
def test_equal_candidates_are_never_dropped(scores: list[float]) -> None:
    race = Race([1, 2], 2.0)
    for score in scores:
        race.record({1: score, 2: score})
    assert race.running == [1, 2]


def test_a_move_worse_in_every_world_is_dropped_at_the_first_look() -> None:
    rng = random.Random(1)
    race = Race([1, 2], 2.0)
    dropped_at = None
    for n in range(1, 40):
        good = rng.choice([0.5, 0.75, 1.0])
        if race.record({code: (good if code == 1 else good - 0.5) for code in race.running}):
            dropped_at = n
    assert dropped_at == MIN_WORLDS
    assert race.running == [1] and race.dropped() == [2]
    assert race.mean(2) == pytest.approx(race.mean(1) - 0.5, abs=0.05)


def test_a_noisy_small_edge_is_not_enough() -> None:
    """A move worse by a tenth of its noise is kept after a few dozen worlds."""
    rng = random.Random(2)
    race = Race([1, 2], 2.0)
    for _ in range(48):
        base = rng.random()
        race.record({1: base, 2: min(1.0, max(0.0, base + rng.gauss(-0.03, 0.3)))})
    assert race.running == [1, 2]


def test_a_racing_strong_bot_drops_the_close_and_plays_legally() -> None:
    opts = preset("sixty-six")
    dropped: list[str] = []
    open_talon: set[str] = set()
    for seed in range(4):
        bot = StrongBot(seed, max_samples=60, race=2.0)
        rng = random.Random(seed)
        table = HandTable.deal(opts, deal_deck(seed, 0, 0, opts.deck_size), seed % 2)
        while not table.is_over:
            turn = table.turn()
            codes = [m.code for m in turn.view.legal]
            if turn.seat == 0:
                action = as_action(bot.choose(turn))
                moves = [m for m in str(action.info.get("dropped", "")).split(",") if m]
                dropped += moves
                if turn.view.talon_size and not turn.view.closed:
                    open_talon.update(moves)
                code = action.move.code
            else:
                code = rng.choice(codes)
            assert code in codes
            table.play(code)
    assert "close" in dropped  # the close's exact solve is the cost racing saves
    assert open_talon == {"close"}  # a card's playout is cheap: never worth dropping


def test_the_race_option_is_checked_and_recorded() -> None:
    bot = make_bot(parse_bot_spec("strong:samples=5,race=2"), 0, preset("sixty-six"))
    assert isinstance(bot, StrongBot) and bot.race == 2.0
    options = bot_settings(parse_bot_spec("strong:race=1.5"))["options"]
    assert isinstance(options, dict) and options["race"] == 1.5
    with pytest.raises(BotError, match="race"):
        make_bot(parse_bot_spec("strong:race=nan"), 0, preset("sixty-six"))
