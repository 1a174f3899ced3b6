#!/usr/bin/env python3
"""How many vu deals can anyone win against the schnapsen package's bots? A cheater's ceiling.

    python scripts/bench_vu_ceiling.py                      # vs RdeepBot(16, 4), 100 deal pairs
    python scripts/bench_vu_ceiling.py --opponent vu:rand --pairs 50
    python scripts/bench_vu_ceiling.py --results run.ndjson # split a match's deals the same way

The cheater sees every card, the talon order included, so it never has to
guess. It plays the exact minimax move (``Solver``) and, once the talon holds
at most four cards, the exact best move against a fallible opponent
(``ExploitSolver``), which keeps the most chances alive in a lost hand. No
fair bot can expect to beat this by much: it knows everything a fair bot has
to guess. The deals are the match runner's duplicate deals (``deal_deck``),
each played twice with the seats swapped, so the numbers compare with
``scripts/bench_bots.py --only vu``. Needs the optional ``schnapsen`` package.

Every deal is also solved with all cards open: under ``vu`` exactly one seat
wins it against perfect play (there are no draws), so in each duplicate pair
a player holds the winning cards once and the losing cards once. The split
says how often each was won: the "losing cards" half is won only when the
opponent errs, and it caps the whole rate at 50% plus half of it.
``--results`` applies the split to a match runner's NDJSON file (bot A's
deals), e.g. ``p2p66 match strong vu:rdeep:16:4 --preset vu --hands 600
--seed 2024 --out run.ndjson``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from p2p66.bots.api import as_action
from p2p66.bots.exploit import ExploitSolver
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.solver import Solver
from p2p66.bots.vu import vu_available
from p2p66.engine import preset
from p2p66.engine.match import Match
from p2p66.runner.deals import bot_seed, deal_deck
from p2p66.runner.run import one_hand
from p2p66.runner.stats import wilson
from p2p66.runner.table import HandTable, first_trump

WIN_ONLY = {-3: 0.0, -2: 0.0, -1: 0.0, 0: 0.5, 1: 1.0, 2: 1.0, 3: 1.0}
EXPLOIT_FROM_TALON = 4  # the expectimax is exact but unpruned: seconds above this talon size
RULES = one_hand(preset("vu"))


def dealt(seed: int, pair: int) -> HandTable:
    """The runner's deal of ``pair``, seat 0 leading (as in the runner's game 2 * pair)."""
    deck = deal_deck(seed, pair, 0, RULES.deck_size)
    return HandTable(Match(RULES, first_dealer=0).new_hand(deck), first_trump(RULES, deck))


def perfect_winner(seed: int, pair: int) -> int:
    """The seat that wins the deal when both players see every card and play perfectly."""
    value = Solver().value(dealt(seed, pair).state, -1, 1)  # for seat 0, exact in its sign
    if value == 0:
        raise AssertionError(f"deal {pair} is a draw under perfect play: vu has no draws")
    return 0 if value > 0 else 1


def play_deal(opponent: str, seed: int, pair: int, cheater_seat: int) -> tuple[bool, bool]:
    """One deal: (the cheater wins it, the cheater's cards win it against perfect play)."""
    game = 2 * pair + cheater_seat
    other = make_bot(parse_bot_spec(opponent), bot_seed(seed, game, "b"), RULES)
    table = dealt(seed, pair)
    state = table.state
    minimax = Solver()
    while not state.is_over:
        if state.to_act != cheater_seat:
            code = as_action(other.choose(table.turn())).move.code
        elif state.talon_left <= EXPLOIT_FROM_TALON:
            code, _ = ExploitSolver(cheater_seat, WIN_ONLY).best_move(state)
        else:
            code, _ = minimax.best_move(state)
        table.play(code)
    other.close()
    assert state.result is not None
    return state.result.winner == cheater_seat, perfect_winner(seed, pair) == cheater_seat


def _job(args: tuple[str, int, int, int]) -> tuple[bool, bool]:
    return play_deal(*args)


def _split_job(args: tuple[int, int, int, bool]) -> tuple[bool, bool]:
    seed, pair, seat, won = args
    return won, perfect_winner(seed, pair) == seat


def share(k: int, n: int) -> str:
    """``k/n = rate% [95%: low, high]`` with a Wilson interval."""
    _rate, low, high = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f}% [95%: {100 * low:.1f}, {100 * high:.1f}]"


def report(who: str, deals: Iterable[tuple[bool, bool]]) -> None:
    """Print the win rate, split by whether the cards win against perfect play."""
    won = {True: 0, False: 0}
    total = {True: 0, False: 0}
    for win, good_cards in deals:
        total[good_cards] += 1
        won[good_cards] += win
    print(f"   {who} wins {share(sum(won.values()), sum(total.values()))}")
    for good_cards, label in ((True, "winning"), (False, "losing")):
        if total[good_cards]:
            what = share(won[good_cards], total[good_cards])
            print(f"   with the {label} cards (against perfect play): {what}")


def split_results(path: Path, concurrency: int) -> None:
    """Bot A's deals in a match runner's NDJSON results, split like the cheater's."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    start = next(x for x in lines if x.get("type") == "start")
    if start.get("mode") != "hands" or start["options"].get("declare") != "automatic":
        sys.exit(f"{path}: not a vu match of single deals (--preset vu --hands N)")
    games = [x for x in lines if x.get("type") == "game" and x.get("forfeit") is None]
    jobs = [(start["seed"], g["pair"], g["a_seat"], g["winner"] == "a") for g in games]
    print(f"== {start['bot_a']} vs {start['bot_b']}, preset vu, from {path}")
    with ProcessPoolExecutor(concurrency) as pool:
        report(start["bot_a"], pool.map(_split_job, jobs, chunksize=8))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponent", default="vu:rdeep:16:4")
    parser.add_argument("--pairs", type=int, default=100, help="deal pairs (2 deals each)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--results", type=Path, help="split this NDJSON run instead of playing")
    args = parser.parse_args()
    if args.results is not None:
        split_results(args.results, args.concurrency)
        return
    if not vu_available():
        sys.exit("bench_vu_ceiling: needs the optional 'schnapsen' package")
    jobs = [(args.opponent, args.seed, p, s) for p in range(args.pairs) for s in (0, 1)]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.concurrency) as pool:
        deals = list(pool.map(_job, jobs, chunksize=4))
    print(
        f"== cheater (sees every card) vs {args.opponent}, preset vu, {len(deals)} deals "
        f"(seed {args.seed}), {time.perf_counter() - started:.0f} s"
    )
    report("cheater", deals)


if __name__ == "__main__":
    main()
