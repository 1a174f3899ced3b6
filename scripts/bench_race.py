#!/usr/bin/env python3
"""How many more worlds racing buys PIMC (``strong:race=Z``), against no racing in the same run.

    python scripts/bench_race.py                 # 60 searched sixty-six moves, race 0 and 2
    python scripts/bench_race.py --moves 120 --race 1 2 3

Both bots are asked the same decisions: the first ``--moves`` searched
decisions of games against ``random`` on the runner's deals (as
``bench_bots.py --only playouts``), at strong's real budget of 100 ms of
wall time. Printed per setting: the median and mean worlds a move, the
10th percentile (the positions that may be closed, where each world costs a
full solve without racing), how many candidates the races dropped, and the longest move. The rounds
alternate between the settings, so a busy machine slows them alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bots import engine_build, searched

from p2p66.bots.api import Action, Turn, as_action
from p2p66.bots.strong import StrongBot
from p2p66.engine.moves import Move


class CountingBot(StrongBot):
    """``strong`` that counts the candidates its races dropped and times its longest move."""

    dropped = 0
    longest = 0.0

    def choose(self, turn: Turn) -> Move | Action:
        started = time.perf_counter()
        action = as_action(super().choose(turn))
        self.longest = max(self.longest, time.perf_counter() - started)
        self.dropped += len([m for m in str(action.info.get("dropped", "")).split(",") if m])
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--race", type=float, nargs="+", default=[0.0, 2.0])
    args = parser.parse_args()
    counts: dict[float, list[int]] = {z: [] for z in args.race}
    dropped: dict[float, int] = dict.fromkeys(args.race, 0)
    longest: dict[float, float] = dict.fromkeys(args.race, 0.0)
    for _round in range(args.rounds):
        for z in args.race:
            bot = CountingBot(args.seed, 0.1, race=z)
            counts[z] += [
                n for n, _cpu in searched("sixty-six", "worlds", args.moves, args.seed, bot)
            ]
            dropped[z] += bot.dropped
            longest[z] = max(longest[z], bot.longest)
    print(f"== PIMC worlds per sixty-six move at 100 ms (engine: {engine_build()})")
    anchor = statistics.median(counts[args.race[0]])
    for z in args.race:
        got = sorted(counts[z])
        median = statistics.median(got)
        print(
            f"   race={z:g}: median {median:.0f} worlds "
            f"({median / anchor:.1f}x race={args.race[0]:g}), "
            f"mean {statistics.fmean(got):.0f}, 10th percentile {got[len(got) // 10]}, "
            f"{dropped[z]} candidates dropped in {len(got)} decisions, "
            f"longest move {1000 * longest[z]:.0f} ms"
        )


if __name__ == "__main__":
    main()
