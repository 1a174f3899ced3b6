#!/usr/bin/env python3
"""How many vu deals can anyone win against the schnapsen package's bots? A cheater's ceiling.

    python scripts/bench_vu_ceiling.py                      # vs RdeepBot(16, 4), 100 deal pairs
    python scripts/bench_vu_ceiling.py --opponent vu:rand --pairs 50

The cheater sees every card, the talon order included, so it never has to
guess. It plays the exact minimax move (``Solver``) and, once the talon holds
at most four cards, the exact best move against a fallible opponent
(``ExploitSolver``), which keeps the most chances alive in a lost hand. No
fair bot can expect to beat this by much: it knows everything a fair bot has
to guess. The deals are the match runner's duplicate deals (``deal_deck``),
each played twice with the seats swapped, so the numbers compare with
``scripts/bench_bots.py --only vu``. Needs the optional ``schnapsen`` package.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

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


def play_deal(opponent: str, seed: int, pair: int, cheater_seat: int) -> bool:
    """One deal; True when the cheater wins it."""
    rules = one_hand(preset("vu"))
    game = 2 * pair + cheater_seat
    other = make_bot(parse_bot_spec(opponent), bot_seed(seed, game, "b"), rules)
    deck = deal_deck(seed, pair, 0, rules.deck_size)
    table = HandTable(Match(rules, first_dealer=0).new_hand(deck), first_trump(rules, deck))
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
    return state.result.winner == cheater_seat


def _job(args: tuple[str, int, int, int]) -> bool:
    return play_deal(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponent", default="vu:rdeep:16:4")
    parser.add_argument("--pairs", type=int, default=100, help="deal pairs (2 deals each)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    if not vu_available():
        sys.exit("bench_vu_ceiling: needs the optional 'schnapsen' package")
    jobs = [(args.opponent, args.seed, p, s) for p in range(args.pairs) for s in (0, 1)]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.concurrency) as pool:
        wins = sum(pool.map(_job, jobs, chunksize=4))
    n = len(jobs)
    _rate, low, high = wilson(wins, n)
    print(
        f"== cheater (sees every card) vs {args.opponent}, preset vu, {n} deals (seed {args.seed})"
    )
    print(
        f"   wins {wins}/{n} = {100 * wins / n:.1f}% [95%: {100 * low:.1f}, {100 * high:.1f}]; "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
