#!/usr/bin/env python3
"""What ``strong:model=E`` knows: how sharp the opponent model is, what it costs, and how
well it describes a given opponent.

    python scripts/bench_opponent_model.py                   # against expert, then strong
    python scripts/bench_opponent_model.py --hands 100 --opponent-samples 40

For hands played by ``expert`` (seat 1) against a random seat 0, at every decision of
seat 0 that the model judges with the talon open it reports the share of uniformly
drawn worlds the model discounts (the information it adds), the true world's mean
likelihood (1.0 would be a perfect model of this opponent), and the milliseconds per
likelihood evaluation (each distinct opponent hand is judged once per turn). Then, for
``strong`` playing itself, how often its choices are the ones the model (the expert's
policy) would have made: the model's evidence is only as good as that agreement.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from statistics import fmean

from p2p66.bots.api import Turn, as_action
from p2p66.bots.expert import decide
from p2p66.bots.knowledge import WorldSampler, knowledge_of
from p2p66.bots.opponent_model import EPSILON, policy_likelihood
from p2p66.bots.strong import StrongBot
from p2p66.engine import preset
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable


def sharpness(rules: str, hands: int, worlds: int, seed: int) -> None:
    opts = preset(rules)
    rng = random.Random(seed)
    discounted, truth, cost = [], [], []
    for n in range(hands):
        table = HandTable.deal(opts, deal_deck(seed, n, 0, opts.deck_size), n % 2)
        previous: Turn | None = None
        while not table.is_over:
            turn = table.turn()
            if turn.seat == 1:
                table.play(decide(turn)[0])
                continue
            model = policy_likelihood(turn, previous, decide, EPSILON)
            previous = turn
            if model is not None and turn.view.talon_open:
                sampler = WorldSampler(turn, knowledge_of(turn))
                drawn = [sampler.sample(rng) for _ in range(worlds)]
                began = time.perf_counter()
                weights = [model(world) for world in drawn]
                cost.append((time.perf_counter() - began) / worlds)
                discounted.append(sum(w < 1.0 for w in weights) / worlds)
                truth.append(model(table.state))
            table.play(rng.choice([m.code for m in turn.view.legal]))
    print(f"== {rules}: expert as the opponent, {hands} hands, {len(truth)} judged turns")
    print(f"   uniform worlds the model discounts: {fmean(discounted):.1%}")
    print(f"   the true world's mean likelihood:   {fmean(truth):.3f} (epsilon {EPSILON})")
    print(f"   ms per likelihood evaluation:       {1000 * fmean(cost):.3f}")


def agreement(rules: str, hands: int, samples: int, seed: int) -> None:
    opts = preset(rules)
    bots = [StrongBot(seed, max_samples=samples), StrongBot(seed + 1, max_samples=samples)]
    agree: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for n in range(hands):
        table = HandTable.deal(opts, deal_deck(seed, n, 0, opts.deck_size), n % 2)
        while not table.is_over:
            turn = table.turn()
            code = as_action(bots[turn.seat].choose(turn)).move.code
            if len(turn.view.legal) > 1:
                phase = turn.view.phase.name.lower()
                total[phase] += 1
                agree[phase] += decide(turn)[0] == code
            table.play(code)
    print(f"== {rules}: strong:samples={samples} against itself, {hands} hands")
    for phase, count in total.most_common():
        share = agree[phase] / count
        print(f"   {phase:<17} the expert's choice {agree[phase]}/{count} = {share:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="sixty-six")
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--worlds", type=int, default=100, help="uniform worlds per turn")
    parser.add_argument("--opponent-samples", type=int, default=40, help="strong's samples=N")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sharpness(args.rules, args.hands, args.worlds, args.seed)
    agreement(args.rules, args.hands // 2, args.opponent_samples, args.seed)


if __name__ == "__main__":
    main()
