"""Regenerate protocol/playthroughs/*.txt: one golden playthrough per rule feature.

For each feature, seeded games are played by a simple "sensible random"
policy until the first game that shows the feature; that game is written as
a playthrough. The search is deterministic, so rerunning this script gives
the same files. Usage: python scripts/regen_playthroughs.py [--check]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from p2p66.engine import HowEnded, Phase, RuleOptions, new_hand, preset
from p2p66.engine.cards import deck_ids
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, EXCHANGE, MARRY_BASE, PASS
from p2p66.engine.playthrough import Playthrough, render
from p2p66.engine.state import HandState

OUT = Path(__file__).resolve().parent.parent / "protocol" / "playthroughs"

Step = tuple[HandState, int, HandState]


@dataclass(frozen=True)
class Feature:
    name: str
    options: RuleOptions
    shows: Callable[[list[Step]], bool]
    false_declare: float = 0.0
    close: float = 0.08


def policy(s: HandState, rng: random.Random, feature: Feature) -> int:
    codes = s.legal_codes()
    seat = s.to_act
    if DECLARE in codes:
        if s.score[seat] >= 66 or rng.random() < feature.false_declare:
            return DECLARE
        codes = [c for c in codes if c != DECLARE]
        if PASS in codes:
            return PASS
    if EXCHANGE in codes and rng.random() < 0.8:
        return EXCHANGE
    marriages = [c for c in codes if MARRY_BASE <= c < EXCHANGE]
    if marriages and rng.random() < 0.7:
        return rng.choice(marriages)
    if CLOSE in codes and rng.random() < feature.close:
        return CLOSE
    if DRAW in codes:
        return DRAW
    plays = [c for c in codes if c < MARRY_BASE]
    return rng.choice(plays or codes)


def play_game(feature: Feature, seed: int) -> tuple[Playthrough, list[Step]]:
    rng = random.Random(seed)
    deck = deck_ids(feature.options.deck_size)
    rng.shuffle(deck)
    dealer = rng.randrange(2)
    s = new_hand(feature.options, deck, dealer)
    steps: list[Step] = []
    while not s.is_over:
        code = policy(s, rng, feature)
        nxt = s.apply(code)
        steps.append((s, code, nxt))
        s = nxt
    return Playthrough(feature.name, feature.options, dealer, tuple(deck), tuple(s.history)), steps


def result_is(how: HowEnded, gp: int | None = None) -> Callable[[list[Step]], bool]:
    def check(steps: list[Step]) -> bool:
        r = steps[-1][2].result
        return r is not None and r.how == how and (gp is None or r.game_points == gp)

    return check


def both(*checks: Callable[[list[Step]], bool]) -> Callable[[list[Step]], bool]:
    return lambda steps: all(c(steps) for c in checks)


def any_step(pred: Callable[[HandState, int, HandState], bool]) -> Callable[[list[Step]], bool]:
    return lambda steps: any(pred(a, c, b) for a, c, b in steps)


def marriage(points: int, held: bool = False) -> Callable[[list[Step]], bool]:
    def pred(a: HandState, c: int, b: HandState) -> bool:
        if not MARRY_BASE <= c < EXCHANGE:
            return False
        m = b.marriages[-1]
        was_held = b.held[m.seat] > a.held[m.seat]
        return m.points == points and was_held == held

    return any_step(pred)


S66, SCH, VU = preset("sixty-six"), preset("schnapsen"), preset("vu")

FEATURES = [
    Feature("sixty-six-last-trick-bonus", S66, result_is(HowEnded.LAST_TRICK), close=0.0),
    Feature("sixty-six-marriage-20", S66, both(marriage(20), result_is(HowEnded.DECLARED_66))),
    Feature("sixty-six-marriage-40", S66, both(marriage(40), result_is(HowEnded.DECLARED_66))),
    Feature(
        "sixty-six-marriage-held-before-first-trick",
        S66,
        both(marriage(20, held=True), any_step(lambda a, c, b: a.held != b.held and c < 24)),
    ),
    Feature("sixty-six-exchange-nine", S66, any_step(lambda a, c, b: c == EXCHANGE)),
    Feature("sixty-six-declare-1", S66, result_is(HowEnded.DECLARED_66, 1)),
    Feature("sixty-six-declare-2", S66, result_is(HowEnded.DECLARED_66, 2)),
    Feature("sixty-six-declare-3", S66, result_is(HowEnded.DECLARED_66, 3), close=0.0),
    Feature("sixty-six-false-declaration", S66, result_is(HowEnded.FALSE_DECLARATION), 0.05),
    Feature(
        "sixty-six-close-before-first-trick",
        S66,
        any_step(lambda a, c, b: c == CLOSE and a.tricks_played == 0),
        close=0.5,
    ),
    Feature(
        "sixty-six-close-before-draw-and-succeed",
        S66,
        both(
            any_step(lambda a, c, b: c == CLOSE and a.phase == Phase.DRAW),
            result_is(HowEnded.CLOSER_SUCCEEDED),
        ),
        close=0.3,
    ),
    Feature("sixty-six-closer-fails", S66, result_is(HowEnded.CLOSER_FAILED), close=0.3),
    Feature(
        "sixty-six-final-declare",
        S66,
        any_step(lambda a, c, b: a.phase == Phase.FINAL_DECLARE and c == DECLARE),
        close=0.3,
    ),
    Feature(
        "sixty-six-unclaimed-end-points",
        S66.with_options(unclaimed_end="points"),
        result_is(HowEnded.MORE_POINTS),
        close=0.0,
    ),
    Feature("schnapsen-exchange-jack", SCH, any_step(lambda a, c, b: c == EXCHANGE)),
    Feature("schnapsen-last-trick-wins", SCH, result_is(HowEnded.LAST_TRICK), close=0.0),
    Feature(
        "schnapsen-marriage-after-close",
        SCH,
        any_step(lambda a, c, b: a.closed and MARRY_BASE <= c < EXCHANGE),
        close=0.4,
    ),
    Feature("vu-automatic-end", VU, result_is(HowEnded.DECLARED_66)),
    Feature(
        "vu-next-trick-marriage-credit",
        VU,
        any_step(lambda a, c, b: MARRY_BASE <= c < EXCHANGE and a.tricks[a.to_act] > 0),
    ),
    Feature("vu-last-trick-1", VU, result_is(HowEnded.LAST_TRICK, 1)),
]


def find(feature: Feature, limit: int = 200_000) -> Playthrough:
    for seed in range(limit):
        play, steps = play_game(feature, seed)
        if feature.shows(steps):
            return play
    raise SystemExit(f"no game shows {feature.name} within {limit} seeds")


def write_or_check(files: Iterable[tuple[Path, str]], *, check: bool, root: Path) -> int:
    """Write each (path, text), or with ``check`` list the stale ones; 1 if any is stale."""
    stale = []
    for path, text in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(root)}")
    if stale:
        print("stale playthroughs:", ", ".join(stale))
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    files = ((OUT / f"{f.name}.txt", render(find(f))) for f in FEATURES)
    return write_or_check(files, check=args.check, root=OUT.parent.parent)


if __name__ == "__main__":
    sys.exit(main())
