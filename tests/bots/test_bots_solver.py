"""The exact solver agrees with plain minimax (no pruning, no table, every move searched)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from p2p66.bots.solver import Solver, solver_key, terminal_value
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


def random_position(
    name: str, rng: random.Random, wanted: Callable[[HandState], bool], close: bool = False
) -> HandState | None:
    """The first position of a random deal's random play that is ``wanted`` (None if the hand
    ends first); with ``close`` the talon is closed as soon as it may be."""
    opts = preset(name)
    deck = deck_ids(opts.deck_size)
    rng.shuffle(deck)
    s = new_hand(opts, deck, dealer=rng.randrange(2))
    while not s.is_over:
        codes = s.legal_codes()
        if close and CLOSE in codes:
            s.apply_code_unchecked(CLOSE)
            continue
        if wanted(s):
            return s
        quiet = [c for c in codes if c not in (DECLARE, CLOSE)] or codes
        s.apply_code_unchecked(rng.choice(quiet))
    return None


def endgame(name: str, rng: random.Random, cards_left: int, close: bool) -> HandState | None:
    """A random position with the talon closed or exhausted and few cards in hand."""
    return random_position(
        name,
        rng,
        lambda s: (
            not s.talon_open and s.hands[s.to_act].bit_count() <= cards_left and s.lead_card < 0
        ),
        close,
    )


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


def open_talon(name: str, rng: random.Random, talon: int) -> HandState | None:
    """A random position, either player to act, with ``talon`` cards or fewer still to draw."""
    return random_position(
        name, rng, lambda s: s.talon_open and s.talon_left <= talon and len(s.legal_codes()) > 1
    )


@pytest.mark.parametrize("name", ["sixty-six", "vu"])
def test_best_move_is_the_first_best_of_all_move_values(name: str) -> None:
    """The null-window root search picks exactly what solving every move would pick,
    in endgames and with the talon still open (as the vu ceiling's cheater plays)."""
    rng = random.Random(f"first-best-{name}")
    positions = list(endgames(name, rng, cards_left=5, close=False, count=20))
    while len(positions) < 32:
        s = open_talon(name, rng, talon=4)
        if s is not None:
            positions.append(s)
    for s in positions:
        values = Solver().move_values(s)
        sign = 1 if s.to_act == 0 else -1
        expected = max(values, key=lambda c: sign * values[c])  # the first of the best
        assert Solver().best_move(s) == (expected, values[expected])


_LOGS = {"history", "tricks_log", "_options", "_rules"}  # what was played, not what is


def full_state_minimax(s: HandState, memo: dict[tuple[object, ...], int]) -> int:
    """Minimax remembering positions by every field of the state but its logs: slow, and
    sure, unlike the solver's compact key."""
    if s.is_over:
        return terminal_value(s)
    key = tuple(
        tuple(v) if isinstance(v, list) else v
        for v in (getattr(s, f) for f in HandState.__slots__ if f not in _LOGS)
    )
    if key not in memo:
        values = []
        for code in s.legal_codes():
            child = s.copy()
            child.apply_code_unchecked(code)
            values.append(full_state_minimax(child, memo))
        memo[key] = max(values) if s.to_act == 0 else min(values)
    return memo[key]


def test_the_solver_tells_who_closed_apart() -> None:
    """With the talon open either player may close later in the search: the table once
    mixed up positions closed by different seats (or at different scores) and gave a
    wrong exact value in 4 of 30 such sixty-six positions (these two among them)."""
    rng = random.Random(5)
    positions: list[HandState] = []
    while len(positions) < 22:
        s = open_talon("sixty-six", rng, talon=2)
        if s is not None:
            positions.append(s)
    for s in (positions[11], positions[21]):
        assert Solver().value(s) == full_state_minimax(s, {})


def test_the_solver_key_holds_the_closer_and_what_it_froze() -> None:
    rng = random.Random(6)
    s = open_talon("sixty-six", rng, talon=4)
    assert s is not None
    other = s.copy()
    other.closer = 1 - s.closer if s.closer >= 0 else 0
    assert solver_key(other) != solver_key(s)
    frozen = s.copy()
    frozen.close_snapshot = (1, 40, False)
    assert solver_key(frozen) != solver_key(s)
