"""The exact solver agrees with plain minimax (no pruning, no table, every move searched)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from p2p66.bots.solver import Solver, terminal_value
from p2p66.engine import preset
from p2p66.engine.cards import deck_ids
from p2p66.engine.moves import CLOSE, DECLARE
from p2p66.engine.state import HandState, new_hand


def minimax(s: HandState) -> int:
    """Game points for seat 0 under best play by both, by brute force."""
    if s.is_over:
        return terminal_value(s)
    values = []
    for code in s.legal_codes():
        child = s.copy()
        child.apply_code_unchecked(code)
        values.append(minimax(child))
    return max(values) if s.to_act == 0 else min(values)


def endgame(name: str, rng: random.Random, cards_left: int, close: bool) -> HandState | None:
    """A random position with the talon closed or exhausted and few cards in hand."""
    opts = preset(name)
    deck = deck_ids(opts.deck_size)
    rng.shuffle(deck)
    s = new_hand(opts, deck, dealer=rng.randrange(2))
    while not s.is_over:
        codes = s.legal_codes()
        if close and CLOSE in codes:
            s.apply_code_unchecked(CLOSE)
            continue
        if not s.talon_open and s.hands[s.to_act].bit_count() <= cards_left and s.lead_card < 0:
            return s
        quiet = [c for c in codes if c not in (DECLARE, CLOSE)] or codes
        s.apply_code_unchecked(rng.choice(quiet))
    return None


def endgames(
    name: str, rng: random.Random, cards_left: int, close: bool, count: int | None = None
) -> Iterator[HandState]:
    """``count`` endgame positions (or endless ones), skipping deals that reach none."""
    found = 0
    while count is None or found < count:
        s = endgame(name, rng, cards_left, close)
        if s is not None:
            found += 1
            yield s


@pytest.mark.parametrize("name", ["sixty-six", "schnapsen", "vu"])
@pytest.mark.parametrize("close", [False, True])
def test_solver_matches_minimax(name: str, close: bool) -> None:
    rng = random.Random(f"{name}-{close}")
    for s in endgames(name, rng, cards_left=4, close=close, count=25):
        solver = Solver()
        assert solver.value(s) == minimax(s), s
        code, value = solver.best_move(s)
        child = s.copy()
        child.apply_code_unchecked(code)
        assert minimax(child) == value == minimax(s)


def test_solver_value_is_windowed_consistently() -> None:
    """Searching with narrow windows never contradicts the exact value."""
    rng = random.Random(4)
    for _ in range(20):
        s = endgame("sixty-six", rng, cards_left=5, close=False)
        if s is None:
            continue
        exact = Solver().value(s)
        low = Solver().value(s, exact - 1, exact + 1)
        assert low == exact


def test_solver_is_fast_on_full_endgames() -> None:
    """Six cards each after the talon is exhausted: a few thousand nodes, not millions."""
    rng = random.Random(8)
    for _ in range(5):
        s = endgame("sixty-six", rng, cards_left=6, close=False)
        if s is None:
            continue
        solver = Solver()
        solver.best_move(s)
        assert solver.nodes < 50_000


def test_solver_stops_at_its_deadline() -> None:
    """A search past its deadline raises instead of running over a bot's budget."""
    import time

    from p2p66.bots.solver import OutOfTime

    opts = preset("sixty-six")
    deck = deck_ids(opts.deck_size)
    random.Random(3).shuffle(deck)
    s = new_hand(opts, deck, dealer=0)  # the whole hand, talon open: millions of nodes
    with pytest.raises(OutOfTime):
        Solver(deadline=time.perf_counter() + 0.01).value(s)


@pytest.mark.parametrize("name", ["sixty-six", "vu"])
def test_strong_with_almost_no_time_still_moves_legally(name: str) -> None:
    from p2p66.bots.api import as_action
    from p2p66.bots.strong import StrongBot
    from p2p66.runner.table import HandTable

    opts = preset(name)
    deck = deck_ids(opts.deck_size)
    random.Random(5).shuffle(deck)
    table = HandTable.deal(opts, deck, dealer=1)
    bots = [StrongBot(1, budget=0.001), StrongBot(2, budget=0.001)]
    while not table.is_over:
        turn = table.turn()
        move = as_action(bots[turn.seat].choose(turn)).move
        assert move in turn.legal
        table.play(move.code)


def test_a_win_or_lose_window_keeps_every_moves_sign() -> None:
    """strong's null-window evaluation proves the same wins and losses as the exact one."""
    from p2p66.bots.playout import policy_move
    from p2p66.bots.strong import WIN_WINDOW, evaluate

    opts = preset("vu")
    checked = 0
    for seed in range(12):
        deck = deck_ids(opts.deck_size)
        random.Random(seed).shuffle(deck)
        s = new_hand(opts, deck, dealer=seed % 2)
        while s.talon_left > 4 and not s.is_over:
            s.apply_code_unchecked(policy_move(s))
        if s.is_over:
            continue
        codes = s.legal_codes()
        exact = evaluate(s, codes, solve_talon=4)
        windowed = evaluate(s, codes, solve_talon=4, window=WIN_WINDOW)
        for code in codes:
            assert (exact[code] > 0) == (windowed[code] > 0)
            assert (exact[code] < 0) == (windowed[code] < 0)
        checked += 1
    assert checked >= 8
