#!/usr/bin/env python3
"""CPU time of one policy playout from the deal: what an ISMCTS iteration or PIMC world costs.

    python scripts/bench_playout.py                   # vu and sixty-six, 3000 deals each
    PYTHONPATH=/old/checkout python scripts/bench_playout.py --deals 1000   # the same, older code

Each preset's deals are dealt once (seeded), then played out by
``playout.policy_move`` ``--rounds`` times; the fastest round counts
(``time.process_time``, so other processes hardly change it).
"""

from __future__ import annotations

import argparse
import random
import time

from p2p66.bots.playout import policy_move
from p2p66.engine import preset
from p2p66.engine.cards import deck_ids
from p2p66.engine.state import HandState, Phase, new_hand
from p2p66.runner.run import one_hand


def playout_us(name: str, deals: int, rounds: int, seed: int) -> float:
    """Microseconds of CPU per playout from a fresh deal under preset ``name``."""
    rules = one_hand(preset(name))
    rng = random.Random(seed)
    starts: list[HandState] = []
    for i in range(deals):
        deck = deck_ids(rules.deck_size)
        rng.shuffle(deck)
        starts.append(new_hand(rules, deck, i % 2))
    best = float("inf")
    for _ in range(rounds):
        began = time.process_time()
        for start in starts:
            s = start.copy()
            while s.phase != Phase.OVER:
                s.apply_code_unchecked(policy_move(s))
        best = min(best, time.process_time() - began)
    return 1e6 * best / deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presets", nargs="+", default=["vu", "sixty-six"])
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in args.presets:
        cost = playout_us(name, args.deals, args.rounds, args.seed)
        print(f"== {name}: {cost:.1f} us of CPU per policy playout ({args.deals} deals)")


if __name__ == "__main__":
    main()
