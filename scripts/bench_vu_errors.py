#!/usr/bin/env python3
"""Where does a fair bot throw away the vu deals it holds the winning cards for?

    python scripts/bench_vu_errors.py strong --pairs 200
    python scripts/bench_vu_errors.py strong:samples=1200 --pairs 100 --seed 2025
    python scripts/bench_vu_errors.py strong strong:samples=20000 --first-leads --pairs 400

Under ``vu`` exactly one seat wins each deal against perfect play with all
cards open (``bench_vu_ceiling.py``). This plays the bot, holding those
winning cards, against ``--opponent`` on the runner's duplicate deals of
``--seed`` as one-hand games, and solves the true position (every card
open) before and after each of the bot's moves. A move after which the
position is lost against perfect play is the bot's *drop*; the opponent may
hand the win back later (a *gift*). The table says at which talon size and
in which kind of decision (lead, follow, after the talon is gone) the drops
happen, and how many drops cost the deal: where a stronger search should
look. It needs the optional ``schnapsen`` package for RdeepBot.

``--first-leads`` looks only at the first decision, where most deals are
dropped: the lead of a deal's winning seat at a full talon, when it knows
nothing but its hand and the trump card. Every lead of every such deal is
solved once (about a second a deal); then each bot named leads once per deal
and the share of its leads that drop the deal compares bots on exactly the
same decisions, with no opponent and no luck after the lead.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench_vu_ceiling import RULES, dealt, perfect_winner, sees_a_win, share

from p2p66.bots.api import as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.solver import Solver
from p2p66.bots.vu import vu_available
from p2p66.engine.state import Phase
from p2p66.runner.deals import bot_seed

Drop = tuple[int, str]  # (talon size at the decision, kind of decision)


def kind_of(phase: Phase, talon_left: int) -> str:
    if talon_left == 0:
        return "talon gone"
    return "lead" if phase == Phase.LEAD else "follow"


def play_winning_deal(args: tuple[str, str, int, int]) -> tuple[bool, list[Drop], int]:
    """One deal from the winning seat: (won, the bot's drops, the opponent's gifts)."""
    spec, opponent, seed, pair = args
    solver = Solver()  # one table for the whole deal: each position solved follows the last
    seat = perfect_winner(seed, pair, solver)
    game = 2 * pair + seat
    bot = make_bot(parse_bot_spec(spec), bot_seed(seed, game, "a"), RULES)
    other = make_bot(parse_bot_spec(opponent), bot_seed(seed, game, "b"), RULES)
    bot.start_game(seat, RULES)
    other.start_game(1 - seat, RULES)
    table = dealt(seed, pair)
    state = table.state
    winning = True
    drops: list[Drop] = []
    gifts = 0
    while not state.is_over:
        turn = table.turn()
        mover = state.to_act
        decision = kind_of(state.phase, state.talon_left)
        code = as_action((bot if mover == seat else other).choose(turn)).move.code
        table.play(code)
        now = sees_a_win(solver, state, seat)
        if mover == seat and winning and not now:
            drops.append((turn.view.talon_size, decision))
        if mover != seat and not winning and now:
            gifts += 1
        winning = now
    bot.close()
    other.close()
    assert state.result is not None
    return state.result.winner == seat, drops, gifts


def lead_drops(args: tuple[int, int]) -> dict[int, bool] | None:
    """For a deal the seat on lead wins against perfect play: whether each lead drops it."""
    seed, pair = args
    state = dealt(seed, pair).state
    leader = state.to_act
    solver = Solver()
    if perfect_winner(seed, pair, solver) != leader:
        return None
    out = {}
    for code in state.legal_codes():
        child = state.copy()
        child.apply_code_unchecked(code)
        out[code] = not sees_a_win(solver, child, leader)
    return out


def first_lead(spec: str, seed: int, pair: int) -> int:
    table = dealt(seed, pair)
    leader = table.state.to_act
    bot = make_bot(parse_bot_spec(spec), bot_seed(seed, 2 * pair + leader, "a"), RULES)
    bot.start_game(leader, RULES)
    code = as_action(bot.choose(table.turn())).move.code
    bot.close()
    return code


def _first_lead_job(args: tuple[str, int, int]) -> int:
    return first_lead(*args)


def solved_leads(
    seed: int, pairs: int, pool: ProcessPoolExecutor, cache: Path | None
) -> dict[int, dict[int, bool] | None]:
    """``lead_drops`` of every deal, kept in (and read back from) ``cache``."""
    key = f"{seed}:{pairs}"
    kept = json.loads(cache.read_text()) if cache is not None and cache.exists() else {}
    if key in kept:
        return {
            int(pair): None if d is None else {int(c): drop for c, drop in d.items()}
            for pair, d in kept[key].items()
        }
    solved = pool.map(lead_drops, [(seed, pair) for pair in range(pairs)])
    by_pair = dict(zip(range(pairs), solved, strict=True))
    if cache is not None:
        cache.write_text(json.dumps({**kept, key: by_pair}))
    return by_pair


def compare_first_leads(
    bots: list[str], seed: int, pairs: int, pool: ProcessPoolExecutor, cache: Path | None
) -> None:
    """Each bot's share of first leads that drop a won deal, on the same deals."""
    by_pair = solved_leads(seed, pairs, pool, cache)
    deals = {pair: drops for pair, drops in by_pair.items() if drops is not None}
    mean_drop = sum(sum(d.values()) / len(d) for d in deals.values())
    if not deals:
        sys.exit(f"bench_vu_errors: the seat on lead wins none of the {pairs} deals")
    print(
        f"== first leads of the winning seat, seed {seed}: {len(deals)} deals of {pairs} "
        f"(a random lead drops {mean_drop:.1f} of them on average)"
    )
    for spec in bots:
        jobs = [(spec, seed, pair) for pair in deals]
        leads = list(pool.map(_first_lead_job, jobs))
        dropped = sum(deals[pair][code] for pair, code in zip(deals, leads, strict=True))
        print(f"   {spec}: drops {share(dropped, len(deals))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bots", nargs="+", help="fair bots, e.g. strong or strong:samples=1200")
    parser.add_argument("--first-leads", action="store_true", help="compare first leads only")
    parser.add_argument("--solved", type=Path, help="with --first-leads: keep solved leads here")
    parser.add_argument("--opponent", default="vu:rdeep:16:4")
    parser.add_argument("--pairs", type=int, default=200, help="deals (one per duplicate pair)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    if args.pairs < 1 or args.concurrency < 1:
        parser.error("--pairs and --concurrency must be at least 1")
    if args.opponent.startswith("vu:") and not vu_available():
        sys.exit("bench_vu_errors: needs the optional 'schnapsen' package")
    with ProcessPoolExecutor(args.concurrency) as pool:
        if args.first_leads:
            compare_first_leads(args.bots, args.seed, args.pairs, pool, args.solved)
            return
        for spec in args.bots:
            jobs = [(spec, args.opponent, args.seed, pair) for pair in range(args.pairs)]
            report_drops(spec, args, list(pool.map(play_winning_deal, jobs)))


def report_drops(
    spec: str, args: argparse.Namespace, results: list[tuple[bool, list[Drop], int]]
) -> None:
    won = sum(w for w, _, _ in results)
    print(
        f"== {spec} vs {args.opponent}, seed {args.seed}: holding the winning cards it "
        f"wins {share(won, len(results))}"
    )
    drops = collections.Counter(drop for _, ds, _ in results for drop in ds)
    lost_first = collections.Counter(ds[0] for w, ds, _ in results if not w and ds)
    dropped = sum(1 for _, ds, _ in results if ds)
    gifts = sum(g for _, _, g in results)
    print(
        f"   deals with a drop: {dropped} ({dropped - (len(results) - won)} won back "
        f"by {gifts} gifts of the opponent)"
    )
    print("   talon  decision    drops  first drop of a lost deal")
    for key in sorted(drops, key=lambda k: (-k[0], k[1])):
        print(f"   {key[0]:>5}  {key[1]:<10} {drops[key]:>6}  {lost_first[key]:>6}")


if __name__ == "__main__":
    main()
