"""A full match between two bots in two processes over loopback TCP.

Usage: python scripts/bench_net.py [--matches 2] [--soundness 0 80 256] [--bot random]

For each proof soundness it runs ``p2p66 host --bot`` and ``p2p66 join --bot``
as two processes on 127.0.0.1, then reads the replay to report: hands per
second (wall time of the whole match, process start-up excluded as far as
possible by timing from the join to its exit), seconds per hand, bytes of
records per hand, one-way flights and round trips of setup per hand (the
deal, up to the first move), and flights per hand in all.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from p2p66.replay.fileio import read_replay
from p2p66.session import messages as msg


def run_match(soundness: int, bot: str, target: int, folder: Path) -> tuple[float, Path]:
    env_h = {**os.environ, "P2P66_HOME": str(folder / "h")}
    env_j = {**os.environ, "P2P66_HOME": str(folder / "j")}
    cmd = [sys.executable, "-m", "p2p66.cli.app"]
    host = subprocess.Popen(
        [*cmd, "host", "--bind", "127.0.0.1", "--port", "0", "--bot", bot,
         "--soundness", str(soundness), "--target", str(target),
         "--replay-dir", str(folder / "hr"), "--wait", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env_h,
    )  # fmt: skip
    assert host.stdout is not None
    code = host.stdout.readline().strip()
    start = time.perf_counter()
    subprocess.run(
        [*cmd, "join", code, "--bot", bot, "--replay-dir", str(folder / "jr")],
        check=True, env=env_j, capture_output=True, timeout=3600,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    host.wait(timeout=60)
    (replay,) = (folder / "jr").glob("*.p66")
    return elapsed, replay


def analyse(replay: Path) -> dict[str, float]:
    records = read_replay(replay).records
    hands: dict[int, list[tuple[int, str, int]]] = {}
    for r in records:
        body = msg.decode(r.body)
        hand = getattr(body, "hand", None)
        if hand is not None:
            hands.setdefault(hand, []).append((r.author, body.TYPE, len(r.encode())))
    setup_flights, flights, size = [], [], []
    for items in hands.values():
        authors = [a for a, _, _ in items]
        changes = [i for i in range(len(authors)) if i == 0 or authors[i] != authors[i - 1]]
        first_move = next(i for i, (_, t, _) in enumerate(items) if t == "move")
        setup_flights.append(sum(1 for i in changes if i < first_move))
        flights.append(len(changes))
        size.append(sum(n for _, _, n in items))
    n = len(hands)
    return {
        "hands": n,
        "bytes_per_hand": sum(size) / n,
        "setup_flights": sum(setup_flights) / n,
        "flights_per_hand": sum(flights) / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--soundness", type=int, nargs="+", default=[0, 80, 256])
    parser.add_argument("--bot", default="random")
    parser.add_argument("--target", type=int, default=7)
    args = parser.parse_args()
    print(
        f"{'soundness':>9s} {'hands':>6s} {'hands/s':>8s} {'s/hand':>7s} {'bytes/hand':>10s} "
        f"{'setup flights':>13s} {'setup RTT':>9s} {'flights/hand':>12s}"
    )
    for soundness in args.soundness:
        total_time, stats = 0.0, []
        for _ in range(args.matches):
            with tempfile.TemporaryDirectory() as tmp:
                elapsed, replay = run_match(soundness, args.bot, args.target, Path(tmp))
                total_time += elapsed
                stats.append(analyse(replay))
        hands = sum(s["hands"] for s in stats)
        avg = {k: sum(s[k] * s["hands"] for s in stats) / hands for k in stats[0]}
        print(
            f"{soundness:9d} {hands:6.0f} {hands / total_time:8.2f} {total_time / hands:7.3f} "
            f"{avg['bytes_per_hand']:10.0f} {avg['setup_flights']:13.2f} "
            f"{avg['setup_flights'] / 2:9.2f} {avg['flights_per_hand']:12.1f}"
        )


if __name__ == "__main__":
    main()
