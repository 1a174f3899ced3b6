"""Benchmark the N-party deal of the games for three and four players (in memory).

Per table preset and hand: the whole session deal between N ``Peer``s around
the in-memory relay (``p2p66.session.tableplay``) with default proofs (the
shuffle argument): every lock-and-shuffle with its proof, every re-key with
its proof, every deal key, each checked by every other peer and by each
peer's own public judge. Prints per player: CPU time (``time.process_time``
inside that peer's own calls, so other load does not count; mean and the
busiest player), the deal's wall time (all peers in one process, one after
another: the sum of what they do, no network), the deal flights (records
before the first move) and bytes (record encodings, what a relay carries),
and the wall time of the whole hand (the deal, every move by random legal
choices, the seeds and the audit by every peer).

Goal (issue 16, for four players): under 1 s wall per hand including the
deal, with default proofs.

    PYTHONPATH=$PWD python scripts/bench_multi_deal.py [--hands 3] [--soundness 256]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p66.crypto.config import ARGUMENT
from p2p66.engine.table import TABLE_PRESETS, TableView
from p2p66.session import events as ev
from p2p66.session.peer import Peer, Signer
from p2p66.session.tableplay import MemoryRelay


class TimedPeer(Peer):
    """A Peer that adds up the CPU time of its own calls."""

    cpu = 0.0

    def _timed(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            self.cpu += time.process_time() - start

    def receive_data(self, data: bytes, via: int | None = None) -> list[ev.Event]:
        result: list[ev.Event] = self._timed(super().receive_data, data, via)
        return result

    def start(self) -> list[ev.Event]:
        result: list[ev.Event] = self._timed(super().start)
        return result


def signer(seat: int) -> Signer:
    key = Ed25519PrivateKey.from_private_bytes(bytes([seat + 1]) * 32)
    return Signer(f"p{seat}", key.public_key().public_bytes_raw(), key.sign)


def one_deal(preset: str, soundness: int, seed: int) -> tuple[list[float], float, int, int, float]:
    """CPU per player, wall time, flights and bytes of the first hand's deal, and the wall
    time of that whole hand (deal, play by random legal moves, seeds and audit)."""
    options = TABLE_PRESETS[preset]
    n = options.players
    peers = [
        TimedPeer(
            s,
            signer(s),
            options=options if s == 0 else None,
            soundness=soundness,
            rng=random.Random(seed * 10 + s).randbytes,
            seats=n,
        )
        for s in range(n)
    ]
    relay = MemoryRelay(peers)
    start = time.perf_counter()
    relay.start()  # setup, coin flip and the whole deal: it stops at the first move
    wall = time.perf_counter() - start
    hand = peers[0].machine.hand
    assert hand is not None and not hand.dealing and relay.refused is None
    deal = relay.records[len(relay.records) - _deal_records(relay) :]
    flights = _flights(deal)
    cpu = [p.cpu for p in peers]
    pick = random.Random(seed)
    while not any(isinstance(e, ev.TableHandEnded) for e in relay.events[0]):
        mover = next(p for p in peers if p.needs_move)
        view = mover.table_view()
        assert view is not None
        legal = view.legal if isinstance(view, TableView) else view.hand.legal  # type: ignore[union-attr]
        choice = pick.choice(list(legal))
        relay.heard(mover.seat, mover.play(choice if isinstance(choice, int) else choice.code))
        relay.pump()
    hand_wall = time.perf_counter() - start
    return cpu, wall, flights, sum(len(r.encode()) for r in deal), hand_wall


def _deal_records(relay: MemoryRelay) -> int:
    from p2p66.session import messages as msg

    count = 0
    for record in reversed(relay.records):
        if not isinstance(msg.decode(record.body), msg.Deal):
            break
        count += 1
    return count


def _flights(records: list[Any]) -> int:
    """Consecutive records by one author are one flight."""
    return sum(1 for i, r in enumerate(records) if i == 0 or records[i - 1].author != r.author)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hands", type=int, default=3, help="hands measured (each the first of a fresh match)"
    )
    parser.add_argument("--soundness", type=int, default=ARGUMENT)
    args = parser.parse_args(argv)
    print(f"N-party deal in memory, soundness {args.soundness}, {args.hands} hands per preset")
    print(
        f"{'preset':16} {'N':>2} {'cpu/player ms':>14} {'busiest ms':>11} {'cpu all ms':>11} "
        f"{'wall ms':>8} "
        f"{'flights':>8} {'bytes':>8} {'hand wall ms':>13}"
    )
    for preset in ("three-handed", "north-american", "south-bend", "cut-throat"):
        cpus, walls, flights, sizes, hands = [], [], [], [], []
        for seed in range(args.hands):
            cpu, wall, f, size, hand_wall = one_deal(preset, args.soundness, seed + 1)
            hands.append(hand_wall)
            cpus.append(cpu)
            walls.append(wall)
            flights.append(f)
            sizes.append(size)
        per_player = statistics.mean(statistics.mean(c) for c in cpus) * 1000
        busiest = statistics.mean(max(c) for c in cpus) * 1000
        n = TABLE_PRESETS[preset].players
        total = statistics.mean(sum(c) for c in cpus) * 1000
        print(
            f"{preset:16} {n:>2} {per_player:>14.1f} {busiest:>11.1f} {total:>11.1f} "
            f"{statistics.mean(walls) * 1000:>8.1f} {statistics.mean(flights):>8.0f} "
            f"{statistics.mean(sizes):>8.0f} {statistics.mean(hands) * 1000:>13.0f}"
        )
    print("cpu and wall include the setup records (hello, propose, coin) of the match;")
    print("wall runs every peer in one process one after another: on an idle machine it is")
    print("about 'cpu all' (the sum over players); more means other load on the machine")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
