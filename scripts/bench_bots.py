#!/usr/bin/env python3
"""Benchmarks of the built-in bots: strength with 95% intervals, and runner throughput.

    python scripts/bench_bots.py                  # everything, default sizes
    python scripts/bench_bots.py --only strong --games 300 --concurrency 2
    python scripts/bench_bots.py --only vu        # needs the optional schnapsen package

Sections (the issue's targets in brackets):
  expert      expert vs random, matches to 7                    [>= 95% of matches]
  strong      strong (100 ms/move) vs expert, matches to 7      [>= 70% of matches]
  vu          strong vs the schnapsen package's RdeepBot(16, 4),
              single deals under the vu preset                  [>= 90% of deals]
  throughput  random vs random in this process, matches/second  [reported]
For what is reachable in the vu section at all, see scripts/bench_vu_ceiling.py
(a cheater that sees every card, against the same opponent).
Every run uses duplicate deals (each deal played twice, seats swapped), so
the win rates are not luck of the cards. Intervals are 95% Wilson intervals
on the win rate; Elo intervals come from the runner's pentanomial model.
"""

from __future__ import annotations

import argparse
import sys
import time

from p2p66.bots.registry import parse_bot_spec
from p2p66.bots.vu import vu_available
from p2p66.engine import preset
from p2p66.runner.run import RunConfig, run
from p2p66.runner.stats import elo_of


def section(
    title: str, a: str, b: str, *, rules: str, games: int, mode: str, concurrency: int, seed: int
) -> None:
    cfg = RunConfig(
        parse_bot_spec(a),
        parse_bot_spec(b),
        preset(rules),
        games=games,
        seed=seed,
        mode=mode,  # type: ignore[arg-type]
        concurrency=concurrency,
    )
    started = time.perf_counter()
    outcome = run(cfg)
    seconds = time.perf_counter() - started
    s = outcome.summary(cfg)
    rate, low, high = s.win_rate
    est = s.estimate
    moves_a = sum(r.moves for r in outcome.results) / 2
    think_a = sum(r.think[0] for r in outcome.results)
    longest = max(r.max_move[0] for r in outcome.results)
    unit = "deals" if mode == "hands" else "matches"
    print(f"== {title}: {a} vs {b}, preset {rules}, {s.games} {unit} (seed {seed})")
    print(
        f"   {a} wins {s.wins}/{s.games} = {100 * rate:.1f}% "
        f"[95%: {100 * low:.1f}, {100 * high:.1f}]; game points {s.points[0]}-{s.points[1]}"
    )
    print(
        f"   Elo {elo_of(est.score):+.0f} [{elo_of(est.score_low):+.0f}, "
        f"{elo_of(est.score_high):+.0f}]; forfeits {s.forfeits[0]}-{s.forfeits[1]}"
    )
    print(
        f"   {a}: about {1000 * think_a / max(1.0, moves_a):.2f} ms per move on average, "
        f"longest move {1000 * longest:.0f} ms (wall clock); {seconds:.0f} s in all"
    )
    sys.stdout.flush()


def throughput(games: int, seed: int) -> None:
    cfg = RunConfig(
        parse_bot_spec("random"),
        parse_bot_spec("random"),
        preset("sixty-six"),
        games=games,
        seed=seed,
    )
    started = time.perf_counter()
    outcome = run(cfg)
    seconds = time.perf_counter() - started
    hands = sum(r.hands for r in outcome.results)
    print(
        f"== throughput: random vs random in-process, one core: {games} matches "
        f"({hands} hands) in {seconds:.2f} s = {games / seconds:.0f} matches/s, "
        f"{hands / seconds:.0f} hands/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["expert", "strong", "vu", "throughput"])
    parser.add_argument("--games", type=int, help="games per section (default per section)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    want = {args.only} if args.only else {"expert", "strong", "vu", "throughput"}
    if "throughput" in want:
        throughput(args.games or 2000, args.seed)
    for name, a, b, rules, games, mode in SECTIONS:
        if name not in want:
            continue
        if name == "vu" and not vu_available():
            print("== vu: skipped, the optional 'schnapsen' package is not installed")
            continue
        section(
            name,
            a,
            b,
            rules=rules,
            games=args.games or games,
            mode=mode,
            concurrency=args.concurrency,
            seed=args.seed,
        )


# name, bot A, bot B, preset, default games, "matches" or "hands"
SECTIONS = (
    ("expert", "expert", "random", "sixty-six", 1000, "matches"),
    ("strong", "strong", "expert", "sixty-six", 300, "matches"),
    ("vu", "strong", "vu:rdeep:16:4", "vu", 400, "hands"),
)


if __name__ == "__main__":
    main()
