#!/usr/bin/env python3
"""CPU time per move of a bot: which sample budget fits ``--movetime 0.1`` on one quiet core.

    python scripts/bench_strong_cpu.py strong:samples=1200 --preset vu
    python scripts/bench_strong_cpu.py strong:samples=88 --preset sixty-six --hands 20

Time-budgeted bots (``strong:ms=100``) search as much as a loaded machine
lets them, so their strength depends on the load; ``strong:samples=N`` does
the same work whatever the load and is what strength runs should compare.
This plays ``--hands`` deals against ``--opponent`` and measures each of the
bot's decisions with ``time.process_time`` (this process's CPU time, which
other processes on the machine hardly change), so it says how many samples a
move of 100 ms on one core affords: the median, the 90th percentile and the
longest move, and the same for the decisions that searched (more than one
legal move). The deals are the runner's duplicate deals of ``--seed``, each
played as the first hand of a match (``--single``: as a one-hand game).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_engine import engine_build

from p2p66.bots.api import as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.engine import preset
from p2p66.runner.deals import bot_seed, deal_deck
from p2p66.runner.run import one_hand
from p2p66.runner.table import HandTable


def measure(
    spec: str, opponent: str, rules_name: str, hands: int, seed: int, *, single: bool
) -> list[float]:
    """CPU seconds of each searched decision (more than one legal move) of ``spec``: in the
    first hand of a match (0-0), or in one-hand games (``single``: only winning counts, which
    the search proves faster)."""
    rules = one_hand(preset(rules_name)) if single else preset(rules_name)
    out: list[float] = []
    for hand in range(hands):
        seat = hand % 2
        bots = {
            seat: make_bot(parse_bot_spec(spec), bot_seed(seed, hand, "a"), rules),
            1 - seat: make_bot(parse_bot_spec(opponent), bot_seed(seed, hand, "b"), rules),
        }
        for s, bot in bots.items():
            bot.start_game(s, rules)
        deck = deal_deck(seed, hand // 2, 0, rules.deck_size)
        table = HandTable.deal(rules, deck, (hand // 2) % 2)
        while not table.is_over:
            turn = table.turn()
            started = time.process_time()
            move = as_action(bots[turn.seat].choose(turn)).move
            spent = time.process_time() - started
            if turn.seat == seat and len(turn.legal) > 1:
                out.append(spent)
            table.play(move.code)
        for bot in bots.values():
            bot.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bot", help="the bot spec to time, e.g. strong:samples=1200")
    parser.add_argument("--preset", default="sixty-six")
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--single", action="store_true", help="one-hand games (--hands runs)")
    args = parser.parse_args()
    spent = measure(args.bot, args.opponent, args.preset, args.hands, args.seed, single=args.single)
    spent.sort()
    if not spent:
        raise SystemExit("no searched decision was timed")
    p90 = spent[int(0.9 * (len(spent) - 1))]
    print(
        f"== {args.bot} vs {args.opponent}, preset {args.preset}{' one-hand' * args.single}, "
        f"{args.hands} deals "
        f"(seed {args.seed}): {len(spent)} searched moves, CPU per move: "
        f"median {1000 * statistics.median(spent):.0f} ms, mean "
        f"{1000 * statistics.fmean(spent):.0f} ms, 90% {1000 * p90:.0f} ms, "
        f"longest {1000 * spent[-1]:.0f} ms (build: {engine_build()})"
    )


if __name__ == "__main__":
    main()
