"""Regenerate protocol/playthroughs/table/*.txt: one golden playthrough per rule feature
of the bidding games (north-american, south-bend, cut-throat).

Seeded games are played by a "sensible random" policy until the first game
that shows the feature; the search is deterministic, so rerunning this
script gives the same files. Usage: python scripts/regen_table_playthroughs.py [--check]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from p2p66.engine.cards import SUIT_MASKS
from p2p66.engine.moves import MARRY_BASE, PASS
from p2p66.engine.table import (
    BiddingHand,
    BiddingOptions,
    TableEnd,
    TablePhase,
    new_bidding_hand,
    table_preset,
)
from p2p66.engine.table.playthrough import TablePlaythrough, render

OUT = Path(__file__).resolve().parent.parent / "protocol" / "playthroughs" / "table"

Check = Callable[[list[BiddingHand]], bool]


@dataclass(frozen=True)
class Feature:
    name: str
    options: BiddingOptions
    shows: Check
    bid_rate: float = 0.35


def policy(s: BiddingHand, rng: random.Random, feature: Feature) -> int:
    codes = s.legal_codes()
    if s.phase == TablePhase.BID:
        bids = [c for c in codes if c != PASS]
        return rng.choice(bids) if bids and rng.random() < feature.bid_rate else PASS
    marriages = [c for c in codes if c >= MARRY_BASE]
    if marriages and rng.random() < 0.8:
        return rng.choice(marriages)
    return rng.choice(codes)


def play_game(feature: Feature, seed: int) -> tuple[TablePlaythrough, list[BiddingHand]]:
    rng = random.Random(seed)
    deck = list(range(24))
    rng.shuffle(deck)
    dealer = rng.randrange(feature.options.players)
    s = new_bidding_hand(feature.options, deck, dealer)
    states = [s]
    while not s.is_over:
        s = s.apply(policy(s, rng, feature))
        states.append(s)
    return TablePlaythrough(feature.name, feature.options, dealer, tuple(deck), tuple(s.history)), (
        states
    )


def ended(how: TableEnd, *, bid: int | None = None) -> Check:
    def check(states: list[BiddingHand]) -> bool:
        r = states[-1].result
        return r is not None and r.how is how and (bid is None or r.bid == bid)

    return check


def both(*checks: Check) -> Check:
    return lambda states: all(c(states) for c in checks)


def first_lead_marriage(states: list[BiddingHand]) -> bool:
    s = states[-1]
    return bool(s.marriages) and s.history[s.options.players] >= MARRY_BASE


def marriage_not_counted(states: list[BiddingHand]) -> bool:
    r = states[-1].result
    return (
        r is not None
        and bool(states[-1].marriages)
        and r.counted_marriages == (0,) * len(r.marks)
        and r.how is not TableEnd.ALL_PASSED
    )


def overtrumps_any(states: list[BiddingHand]) -> bool:
    """A void player under ``overtrump = false`` played a trump below one in the trick
    while holding a higher trump (which ``overtrump = true`` would have required)."""
    for a, b in itertools.pairwise(states):
        if a.phase != TablePhase.FOLLOW or a.best_trump < 0 or a.trump == a.led_suit:
            continue
        hand, card = a.hands[a.to_act], b.history[-1]
        void = not hand & SUIT_MASKS[a.led_suit]
        higher = hand & SUIT_MASKS[a.trump] & ((1 << a.best_trump) - 1)
        if void and higher and card // 6 == a.trump and card > a.best_trump:
            return True
    return False


NA = table_preset("north-american")
CT = table_preset("cut-throat")
assert isinstance(NA, BiddingOptions) and isinstance(CT, BiddingOptions)

FEATURES = [
    Feature("north-american-contract-made", NA, ended(TableEnd.CONTRACT_MADE, bid=2)),
    Feature("north-american-contract-set", NA, ended(TableEnd.CONTRACT_SET)),
    Feature("north-american-moon-made", NA, ended(TableEnd.MOON_MADE), bid_rate=0.9),
    Feature("north-american-moon-failed", NA, ended(TableEnd.MOON_FAILED), bid_rate=0.9),
    Feature("north-american-all-pass-redeal", NA, ended(TableEnd.ALL_PASSED), bid_rate=0.1),
    Feature(
        "north-american-dealer-bids-1",
        replace(NA, all_pass="dealer-bids-1"),
        lambda st: st[-1].forced,
        bid_rate=0.05,
    ),
    Feature("north-american-first-lead-marriage-40", NA, first_lead_marriage),
    Feature("north-american-marriage-not-counted", NA, marriage_not_counted),
    Feature("north-american-no-overtrump", replace(NA, overtrump=False), overtrumps_any),
    Feature(
        "south-bend-contract-made", replace(NA, match_target=15), ended(TableEnd.CONTRACT_MADE)
    ),
    Feature("cut-throat-widow", CT, ended(TableEnd.CONTRACT_MADE)),
    Feature("cut-throat-contract-set", CT, ended(TableEnd.CONTRACT_SET)),
]


def find(feature: Feature, limit: int = 100_000) -> TablePlaythrough:
    for seed in range(limit):
        play, states = play_game(feature, seed)
        if feature.shows(states):
            return play
    raise SystemExit(f"no game shows {feature.name} within {limit} seeds")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for feature in FEATURES:
        text = render(find(feature))
        path = OUT / f"{feature.name}.txt"
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(OUT.parent.parent.parent)}")
    if stale:
        print("stale playthroughs:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
