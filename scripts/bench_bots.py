#!/usr/bin/env python3
"""Benchmarks of the built-in bots: strength with 95% intervals, and runner throughput.

    python scripts/bench_bots.py                  # everything, default sizes
    python scripts/bench_bots.py --only strong --games 300 --concurrency 2
    python scripts/bench_bots.py --only vu        # needs the optional schnapsen package
    python scripts/bench_bots.py --only strong --strong strong:model=1   # a variant of strong

Sections (the issue's targets in brackets):
  expert      expert vs random, matches to 7                    [>= 95% of matches]
  strong      strong (100 ms/move) vs expert, matches to 7      [>= 70% of matches]
  vu          strong vs the schnapsen package's RdeepBot(16, 4),
              single deals under the vu preset                  [>= 90% of deals]
  throughput  random vs random through the runner in this process: matches/s
              (sixty-six) and --hands deals/s (vu), beside the schnapsen
              package's engine when installed                    [reported]
  playouts    strong's worlds (PIMC, sixty-six) and iterations (ISMCTS, vu)
              per move at 100 ms                                 [reported]
For what is reachable in the vu section at all, see scripts/bench_vu_ceiling.py
(a cheater that sees every card, against the same opponent).
Every run uses duplicate deals (each deal played twice, seats swapped), so
the win rates are not luck of the cards. Intervals are 95% Wilson intervals
on the win rate; Elo intervals come from the runner's pentanomial model.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from p2p66.bots.api import as_action
from p2p66.bots.random_bot import RandomBot
from p2p66.bots.registry import parse_bot_spec
from p2p66.bots.strong import StrongBot
from p2p66.bots.vu import vu_available
from p2p66.engine import new_hand, preset
from p2p66.runner.deals import deal_deck
from p2p66.runner.run import RunConfig, run
from p2p66.runner.stats import elo_of
from p2p66.runner.table import HandTable, first_trump

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import anchor_path, decks_for, engine_build, rate


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


def throughput(games: int, seed: int, rounds: int) -> None:
    """Random vs random through the match runner, in this process, rounds interleaved.

    Matches to 7 under sixty-six, and single deals (``--hands``) under vu with
    the schnapsen package's own engine dealing random deals beside it.
    """
    anchor = anchor_path()
    decks = decks_for("vu", 200, seed)
    if anchor is not None:
        anchor(decks)  # converts the decks to the package's cards before any timing
    rates: dict[str, list[float]] = {"matches": [], "hands": [], "anchor": []}
    for _ in range(rounds):
        rates["matches"].append(runner_rate("sixty-six", "matches", games, seed))
        rates["hands"].append(runner_rate("vu", "hands", games, seed))
        if anchor is not None:
            rates["anchor"].append(rate(anchor, decks, 0.5))
    matches = statistics.median(rates["matches"])
    hands = statistics.median(rates["hands"])
    print(
        f"== throughput: random vs random through the runner, in-process, per CPU-second, "
        f"median of {rounds} rounds of {games} games (engine: {engine_build()})"
    )
    print(f"   sixty-six matches to 7: {matches:.0f} matches/s")
    if anchor is None:
        print(f"   vu single deals (--hands): {hands:.0f} deals/s")
        return
    base = statistics.median(rates["anchor"])
    print(
        f"   vu single deals (--hands): {hands:.0f} deals/s; the schnapsen package's "
        f"engine alone: {base:.0f} deals/s ({hands / base:.1f}x)"
    )


def runner_rate(rules: str, mode: str, games: int, seed: int) -> float:
    cfg = RunConfig(
        parse_bot_spec("random"),
        parse_bot_spec("random"),
        preset(rules),
        games=games,
        seed=seed,
        mode=mode,  # type: ignore[arg-type]
    )
    started = time.process_time()  # CPU time: the machine may be shared
    run(cfg)
    return games / (time.process_time() - started)


def playouts(moves: int, seed: int, budget: float) -> None:
    """How much search ``strong`` fits in a move: worlds (PIMC) or iterations (ISMCTS).

    Sixty-six uses PIMC (``worlds`` per move), vu uses ISMCTS (``iterations``
    per move); each is asked for the first ``moves`` searched decisions of
    games against ``random`` on fixed deals. Two figures: what its real
    budget of ``budget`` seconds of wall time gets (a busy machine gets
    less), and the same per ``budget`` of this process's CPU time, from
    moves searched to a fixed count (PIMC_FIXED worlds, ISMCTS_FIXED
    iterations) and timed.
    """
    print(f"== playouts: strong at {1000 * budget:.0f} ms per move (engine: {engine_build()})")
    for rules, key, fixed in (
        ("sixty-six", "worlds", PIMC_FIXED),
        ("vu", "iterations", ISMCTS_FIXED),
    ):
        counts = [n for n, _ in searched(rules, key, moves, seed, StrongBot(seed, budget))]
        timed = searched(rules, key, moves, seed, StrongBot(seed, 60.0, max_samples=fixed))
        per_cpu = [n * budget / cpu for n, cpu in timed if cpu > 0]
        print(
            f"   {rules}: {statistics.median(counts):.0f} {key} per move in {budget:.1f} s wall "
            f"(median of {len(counts)} moves; mean {statistics.fmean(counts):.0f}); "
            f"{statistics.median(per_cpu):.0f} per {budget:.1f} s of CPU"
        )


PIMC_FIXED = 30  # worlds per timed PIMC move (sixty-six)
ISMCTS_FIXED = 300  # iterations per timed ISMCTS move (vu)


def searched(
    rules: str, key: str, moves: int, seed: int, bot: StrongBot
) -> list[tuple[int, float]]:
    """(search count, CPU seconds) of ``bot``'s first ``moves`` searched decisions."""
    options = preset(rules)
    opponent = RandomBot(seed)
    out: list[tuple[int, float]] = []
    hand = 0
    while len(out) < moves:
        deck = deal_deck(seed, 0, hand, options.deck_size)
        table = HandTable(new_hand(options, deck, hand & 1), first_trump(options, deck))
        while not table.is_over and len(out) < moves:
            turn = table.turn()
            if table.state.to_act == 0:
                started = time.process_time()
                action = as_action(bot.choose(turn))
                cpu = time.process_time() - started
                if key in action.info:
                    out.append((int(action.info[key]), cpu))
                table.play(action.move.code)
            else:
                table.play(opponent.choose(turn).code)
        hand += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["expert", "strong", "vu", "throughput", "playouts"])
    parser.add_argument("--games", type=int, help="games per section (default per section)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--rounds", type=int, default=3, help="throughput rounds (interleaved)")
    parser.add_argument("--moves", type=int, default=30, help="searched moves per playouts preset")
    parser.add_argument(
        "--strong", default="strong", help="the spec of bot A in strong and vu (strong:model=1)"
    )
    args = parser.parse_args()
    want = {args.only} if args.only else {"expert", "strong", "vu", "throughput", "playouts"}
    if "throughput" in want:
        throughput(args.games or 300, args.seed, args.rounds)
    if "playouts" in want:
        playouts(args.moves, args.seed, 0.1)
    for name, a, b, rules, games, mode in SECTIONS:
        if name not in want:
            continue
        if name == "vu" and not vu_available():
            print("== vu: skipped, the optional 'schnapsen' package is not installed")
            continue
        section(
            name,
            args.strong if a == "strong" else a,
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
