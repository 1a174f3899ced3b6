#!/usr/bin/env python3
"""How many vu deals can anyone win against the schnapsen package's bots? A cheater's ceiling.

    python scripts/bench_vu_ceiling.py                      # vs RdeepBot(16, 4), 100 deal pairs
    python scripts/bench_vu_ceiling.py --opponent vu:rand --pairs 50
    python scripts/bench_vu_ceiling.py --model 4            # and exploit the opponent's errors
    python scripts/bench_vu_ceiling.py --model 8 --losing-only  # only the deals minimax loses
    python scripts/bench_vu_ceiling.py --results run.ndjson # split a match's deals the same way
    python scripts/bench_vu_ceiling.py --results run.ndjson --winners w.json  # solve once per seed
    python scripts/bench_vu_ceiling.py --matches 100       # matches to 7 instead of single deals

The cheater sees every card, the talon order included, so it never has to
guess. It plays the exact minimax move (``Solver``) and, once the talon holds
at most four cards, the exact best move against a fallible opponent
(``ExploitSolver``), which keeps the most chances alive in a lost hand. No
fair bot can expect to beat this by much: it knows everything a fair bot has
to guess. With ``--model N`` it also exploits this opponent: in a hand it
cannot win against perfect play, it asks N differently seeded copies of the
opponent how they would answer each of its moves, and plays the move whose
answers most often hand it a won position. The deals are the match
runner's duplicate deals (``deal_deck``), each played twice with the seats
swapped, so the numbers compare with ``scripts/bench_bots.py --only vu``.
Needs the optional ``schnapsen`` package.

Every deal is also solved with all cards open: under ``vu`` exactly one seat
wins it against perfect play (there are no draws), so in each duplicate pair
a player holds the winning cards once and the losing cards once. The split
says how often each was won: the "losing cards" half is won only when the
opponent errs, so a rate of R% overall needs at least 2R - 100% of those.
``--results`` applies the split to a match runner's NDJSON file (bot A's
deals), e.g. ``p2p66 match strong vu:rdeep:16:4 --preset vu --hands 600
--seed 2024 --out run.ndjson``.

With ``--matches N`` the cheater plays N matches to 7 instead (N/2 pairs,
the seats swapped on the same deals, as the runner's duplicate matches). In
a match the game points count, so it plays the minimax move on exact game
points and, from four talon cards down, the move of best match equity
against a fallible opponent: the ceiling of a bot's share of matches.
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
from p2p66.bots.equity import utilities
from p2p66.bots.exploit import ExploitSolver
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.solver import Solver, searched_codes
from p2p66.bots.vu import vu_available
from p2p66.engine import preset
from p2p66.engine.match import Match
from p2p66.engine.state import HandState
from p2p66.runner.deals import bot_seed, deal_deck
from p2p66.runner.run import one_hand
from p2p66.runner.stats import wilson
from p2p66.runner.table import HandTable, first_trump

WIN_ONLY = {-3: 0.0, -2: 0.0, -1: 0.0, 0: 0.5, 1: 1.0, 2: 1.0, 3: 1.0}
EXPLOIT_FROM_TALON = 4  # the expectimax is exact but unpruned: seconds above this talon size
RULES = one_hand(preset("vu"))


def dealt(seed: int, pair: int) -> HandTable:
    """The runner's deal of ``pair`` as in its game 2 * pair: seat 0 deals, seat 1 leads."""
    deck = deal_deck(seed, pair, 0, RULES.deck_size)
    return HandTable(Match(RULES, first_dealer=0).new_hand(deck), first_trump(RULES, deck))


def perfect_winner(seed: int, pair: int, solver: Solver | None = None) -> int:
    """The seat that wins the deal when both players see every card and play perfectly
    (``solver``: one whose table the caller goes on using for this deal)."""
    solver = solver or Solver()
    value = solver.value(dealt(seed, pair).state, -1, 1)  # for seat 0, exact in its sign
    if value == 0:
        raise AssertionError(f"deal {pair} is a draw under perfect play: vu has no draws")
    return 0 if value > 0 else 1


def sees_a_win(solver: Solver, state: HandState, seat: int) -> bool:
    """True when ``seat`` wins ``state`` against perfect play (all cards open)."""
    if state.is_over:
        assert state.result is not None
        return state.result.winner == seat
    value = solver.value(state, -1, 1)
    return value > 0 if seat == 0 else value < 0


class OpponentModel:
    """The cheater's model of the opponent: ``samples`` copies of it, differently seeded.

    In a position lost against perfect play, the cheater asks each copy what
    the opponent would answer to each of its moves and plays the move after
    which the most answers hand it a position it wins against perfect play:
    the move most likely to make this opponent err, one reply deep.
    """

    def __init__(self, opponent: str, seed: int, samples: int) -> None:
        spec = parse_bot_spec(opponent)
        self.copies = [make_bot(spec, seed * 7919 + i, RULES) for i in range(samples)]

    def close(self) -> None:
        for bot in self.copies:
            bot.close()

    def chance(self, table: HandTable, code: int, seat: int, solver: Solver) -> float:
        """The share of modelled replies to ``code`` after which ``seat`` wins with perfect play."""
        wins = 0
        for bot in self.copies:
            line = HandTable(table.state.copy(), table.first_trump)
            line.log = list(table.log)
            line.play(code)
            while not line.is_over and line.state.to_act != seat:
                line.play(as_action(bot.choose(line.turn())).move.code)
            wins += sees_a_win(solver, line.state, seat)
        return wins / len(self.copies)


def cheater_move(table: HandTable, seat: int, minimax: Solver, model: OpponentModel | None) -> int:
    """Minimax while the hand is won; when it is lost, the best chance that the opponent errs."""
    state = table.state
    exploit = state.talon_left <= EXPLOIT_FROM_TALON
    if model is None or sees_a_win(minimax, state, seat):
        if exploit:
            return ExploitSolver(seat, WIN_ONLY).best_move(state)[0]
        return minimax.best_move(state)[0]
    fallback = (ExploitSolver(seat, WIN_ONLY) if exploit else minimax).best_move(state)[0]
    chances = {code: model.chance(table, code, seat, minimax) for code in searched_codes(state)}
    best = max(chances.values())
    return fallback if chances[fallback] == best else max(chances, key=chances.__getitem__)


def play_deal(
    opponent: str, seed: int, pair: int, cheater_seat: int, model: int
) -> tuple[bool, bool]:
    """One deal: (the cheater wins it, the cheater's cards win it against perfect play)."""
    game = 2 * pair + cheater_seat
    other = make_bot(parse_bot_spec(opponent), bot_seed(seed, game, "b"), RULES)
    modelled = OpponentModel(opponent, bot_seed(seed, game, "m"), model) if model else None
    table = dealt(seed, pair)
    state = table.state
    minimax = Solver()
    while not state.is_over:
        if state.to_act != cheater_seat:
            code = as_action(other.choose(table.turn())).move.code
        else:
            code = cheater_move(table, cheater_seat, minimax, modelled)
        table.play(code)
    other.close()
    if modelled is not None:
        modelled.close()
    assert state.result is not None
    return state.result.winner == cheater_seat, perfect_winner(seed, pair) == cheater_seat


def _job(args: tuple[str, int, int, int, int]) -> tuple[bool, bool]:
    return play_deal(*args)


MATCH_RULES = preset("vu")


def play_match(opponent: str, seed: int, pair: int, cheater_seat: int) -> bool:
    """One match to 7 on the runner's deals of ``pair``: True if the cheater wins it."""
    other = make_bot(parse_bot_spec(opponent), bot_seed(seed, 2 * pair + cheater_seat, "b"), RULES)
    match = Match(MATCH_RULES, first_dealer=0)
    while not match.is_over:
        deck = deal_deck(seed, pair, len(match.results), MATCH_RULES.deck_size)
        table = HandTable(
            match.new_hand(deck),
            first_trump(MATCH_RULES, deck),
            hand_number=match.hand_number,
            match_points=match.game_points,
        )
        state = table.state
        minimax = Solver()
        worth = utilities(MATCH_RULES, match.game_points, cheater_seat)
        while not state.is_over:
            if state.to_act != cheater_seat:
                code = as_action(other.choose(table.turn())).move.code
            elif state.talon_left <= EXPLOIT_FROM_TALON:
                code = ExploitSolver(cheater_seat, worth).best_move(state)[0]
            else:
                code = minimax.best_move(state)[0]
            table.play(code)
        assert state.result is not None
        match = match.record(state.result)
    other.close()
    return match.winner == cheater_seat


def _match_job(args: tuple[str, int, int, int]) -> bool:
    return play_match(*args)


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


def winners_of(seed: int, pairs: list[int], concurrency: int, cache: Path | None) -> dict[int, int]:
    """The perfect-play winner of each deal pair, solved once per pair; with ``cache`` (a JSON
    file) solved once per seed and pair across runs, since the deals of a seed never change."""
    known: dict[str, dict[str, int]] = {}
    if cache is not None and cache.exists():
        known = json.loads(cache.read_text())
    mine = {int(p): w for p, w in known.get(str(seed), {}).items()}
    todo = [p for p in pairs if p not in mine]
    with ProcessPoolExecutor(concurrency) as pool:
        for start in range(0, len(todo), 16):  # saved as it goes: a stopped run keeps its work
            chunk = todo[start : start + 16]
            solved = pool.map(perfect_winner, [seed] * len(chunk), chunk)
            mine.update(zip(chunk, solved, strict=True))
            if cache is not None:
                known[str(seed)] = {str(p): w for p, w in sorted(mine.items())}
                cache.write_text(json.dumps(known, sort_keys=True))
    return mine


def split_results(path: Path, concurrency: int, cache: Path | None = None) -> None:
    """Bot A's deals in a match runner's NDJSON results, split like the cheater's."""
    try:
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        sys.exit(f"{path}: cannot read the match results: {exc}")
    start = next((x for x in lines if isinstance(x, dict) and x.get("type") == "start"), None)
    if start is None:
        sys.exit(f"{path}: no 'start' line: not a p2p66 match results file")
    if start.get("mode") != "hands" or start["options"].get("declare") != "automatic":
        sys.exit(f"{path}: not a vu match of single deals (--preset vu --hands N)")
    games = [x for x in lines if x.get("type") == "game" and x.get("forfeit") is None]
    winners = winners_of(start["seed"], sorted({g["pair"] for g in games}), concurrency, cache)
    print(f"== {start['bot_a']} vs {start['bot_b']}, preset vu, from {path}")
    report(start["bot_a"], ((g["winner"] == "a", winners[g["pair"]] == g["a_seat"]) for g in games))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponent", default="vu:rdeep:16:4")
    parser.add_argument("--pairs", type=int, default=100, help="deal pairs (2 deals each)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument(
        "--model",
        type=int,
        default=0,
        help="in lost hands, ask N copies of the opponent how it would answer (0: minimax only)",
    )
    parser.add_argument(
        "--losing-only",
        action="store_true",
        help="play only the deals whose cards lose against perfect play (the cheater's L)",
    )
    parser.add_argument("--matches", type=int, help="play N matches to 7 instead of single deals")
    parser.add_argument("--results", type=Path, help="split this NDJSON run instead of playing")
    parser.add_argument(
        "--winners", type=Path, help="with --results: keep each deal's perfect-play winner here"
    )
    args = parser.parse_args()
    if args.results is not None:
        split_results(args.results, args.concurrency, args.winners)
        return
    if not vu_available():
        sys.exit("bench_vu_ceiling: needs the optional 'schnapsen' package")
    if args.matches:
        started = time.perf_counter()
        pairs = [(args.opponent, args.seed, p, s) for p in range(args.matches // 2) for s in (0, 1)]
        won = 0
        with ProcessPoolExecutor(args.concurrency) as pool:
            for done, result in enumerate(pool.map(_match_job, pairs), 1):
                won += result
                print(f"\r{done}/{len(pairs)} matches", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        print(
            f"== cheater (sees every card) vs {args.opponent}, preset vu, matches to 7 "
            f"(seed {args.seed}), {time.perf_counter() - started:.0f} s"
        )
        print(f"   cheater wins {share(won, len(pairs))} of the matches")
        return
    seats = [(p, s) for p in range(args.pairs) for s in (0, 1)]
    if args.losing_only:  # the winning seat is won by minimax for sure: play only the other
        with ProcessPoolExecutor(args.concurrency) as pool:
            winners = list(pool.map(perfect_winner, [args.seed] * args.pairs, range(args.pairs)))
        seats = [(p, 1 - winners[p]) for p in range(args.pairs)]
    jobs = [(args.opponent, args.seed, p, s, args.model) for p, s in seats]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.concurrency) as pool:
        deals = list(pool.map(_job, jobs, chunksize=4))
    modelled = f", asks {args.model} copies of the opponent" if args.model else ""
    print(
        f"== cheater (sees every card{modelled}) vs {args.opponent}, preset vu, {len(deals)} deals "
        f"(seed {args.seed}), {time.perf_counter() - started:.0f} s"
    )
    report("cheater", deals)


if __name__ == "__main__":
    main()
