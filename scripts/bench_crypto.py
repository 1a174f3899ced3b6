"""Benchmark the mental-poker library over full hands of Sixty-Six (two players, in memory).

Per hand: coin-flip-free setup, shuffle and deal (12 cards dealt privately,
the trump opened), then every card played (24 plays) with the 11 face-down
draws and the face-up trump taken, seeds revealed, and the audit. Prints,
per soundness: crypto time per player (CPU time, ``time.process_time``, so
that other load on the machine does not count; the busier player, mean over
hands), audit time, bytes on the wire (msgpack of every payload), flights.
Then a four-party deal (24 cards, five to each seat): CPU time per player.

Soundness 80 is the legacy cut-and-choose (before), 256 the shuffle argument
(after, the default), 0 proofs off; all in the same run. Goals (issue 17, on
a quiet machine): at most 30 ms per player per hand with proofs, 3 deal
flights, a four-party deal under 100 ms per player.

    python scripts/bench_crypto.py [--hands 5] [--soundness 0 80 256]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

import msgpack

from p2p66.crypto import DealParty, HandConfig, HandPayload, KeyReveal, Reveal, SeedReveal, audit
from p2p66.crypto.config import FACE_DOWN, PUBLIC, proof_kind
from p2p66.crypto.memory import MemoryTable, play_two_player_hand
from p2p66.engine.deal import deal_layout
from p2p66.engine.options import preset

T = TypeVar("T")


class TimedParty(DealParty):
    """A DealParty that adds up the time spent in its own calls."""

    busy = 0.0
    wall = 0.0

    def _timed(self, fn: Callable[[], T]) -> T:
        start, start_wall = time.process_time(), time.perf_counter()
        try:
            return fn()
        finally:
            self.busy += time.process_time() - start
            self.wall += time.perf_counter() - start_wall

    def start(self) -> list[HandPayload]:
        return self._timed(super().start)

    def receive(self, *payloads: HandPayload) -> list[HandPayload]:
        return self._timed(lambda: super(TimedParty, self).receive(*payloads))

    def send(self, *reveals: Reveal) -> KeyReveal:
        return self._timed(lambda: super(TimedParty, self).send(*reveals))

    def reveal_seed(self) -> SeedReveal:
        return self._timed(super().reveal_seed)


def wire_size(payloads: tuple[HandPayload, ...]) -> int:
    return len(msgpack.packb([p.to_wire() for p in payloads], use_bin_type=True))


def one_hand(index: int, soundness: int) -> dict[str, Any]:
    options = preset("sixty-six")
    session = hashlib.sha256(b"bench session %d" % index).digest()
    dealer = index % 2
    config = HandConfig.for_game(options, session, index, dealer, soundness)
    parties = [
        TimedParty(config, seat, hashlib.sha256(b"bench seed %d %d" % (index, seat)).digest())
        for seat in (0, 1)
    ]
    table = MemoryTable(parties)
    deal_flights = table.deal()
    deal_time = [p.busy for p in parties]
    run = play_two_player_hand(table, deal_layout(options), dealer, lambda seat, hand: min(hand))
    table.reveal_seeds()
    start = time.process_time()
    report = audit(parties[0].transcript())
    audit_time = time.process_time() - start
    assert report.deal_complete and len(report.deck) == 24
    return {
        "player": max(p.busy for p in parties),
        "wall": max(p.wall for p in parties),
        "deal": max(deal_time),
        "audit": audit_time,
        "bytes": sum(wire_size(f.payloads) for f in table.flights),
        "deal_bytes": sum(wire_size(f.payloads) for f in table.flights if f.phase == "deal"),
        "deal_flights": deal_flights,
        "draw_flights": run.draw_flights,
        "plays": sum(1 for e in report.events if e.kind == "play"),
    }


def four_party_deal(index: int, soundness: int) -> float:
    """CPU seconds of the busiest of four parties over one deal (7 flights)."""
    session = hashlib.sha256(b"bench four %d" % index).digest()
    deal = tuple([s for s in range(4) for _ in range(5)] + [PUBLIC] + [FACE_DOWN] * 3)
    config = HandConfig(
        session_id=session,
        hand=index,
        parties=4,
        order=(0, 1, 2, 3),
        deck=tuple(range(24)),
        deal=deal,
        soundness=soundness,
        face_up=20,
    )
    parties = [
        TimedParty(config, seat, hashlib.sha256(b"four seed %d %d" % (index, seat)).digest())
        for seat in range(4)
    ]
    table = MemoryTable(parties)
    assert table.deal() == 7 and all(p.deal_complete for p in parties)
    return max(p.busy for p in parties)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--soundness", type=int, nargs="+", default=[0, 80, 256])
    args = parser.parse_args()
    print(f"{args.hands} hands of Sixty-Six per row, two players in memory, CPU time, means")
    header = (
        f"{'soundness':>9} {'ms/player':>9} {'(wall)':>7} {'deal ms':>8} {'audit ms':>8} "
        f"{'KiB/hand':>8} {'deal KiB':>8} {'deal flights':>12} {'draw flights':>12} {'plays':>5}"
    )
    print(header)
    for soundness in args.soundness:
        one_hand(99, soundness)  # warm the caches (card encodings)
        rows = [one_hand(i, soundness) for i in range(args.hands)]

        def mean(key: str, rows: list[dict[str, Any]] = rows) -> float:
            return statistics.fmean(r[key] for r in rows)

        print(
            f"{soundness:>4} {proof_kind(soundness)[:4]:>4} "
            f"{mean('player') * 1e3:>9.1f} {mean('wall') * 1e3:>7.1f} "
            f"{mean('deal') * 1e3:>8.1f} "
            f"{mean('audit') * 1e3:>8.1f} {mean('bytes') / 1024:>8.1f} "
            f"{mean('deal_bytes') / 1024:>8.1f} "
            f"{mean('deal_flights'):>12.0f} {mean('draw_flights'):>12.1f} {mean('plays'):>5.0f}"
        )
    print("four-party deal (24 cards, 7 flights), CPU ms of the busiest player, mean:")
    for soundness in args.soundness:
        four_party_deal(99, soundness)
        times = [four_party_deal(i, soundness) for i in range(max(1, args.hands // 2))]
        print(
            f"{soundness:>4} {proof_kind(soundness)[:4]:>4} {statistics.fmean(times) * 1e3:>9.1f}"
        )
    print(
        "ms/player: CPU time of the busier player (wall clock in brackets, includes other load);\n"
        "deal flights: one-way flights for shuffle + deal; draw flights: extra flights when the\n"
        "follower wins a trick with the talon open (plays and other draws ride on moves)"
    )


if __name__ == "__main__":
    main()
