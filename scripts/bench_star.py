"""What the star relay costs per record: bytes on the host's links and CPU of the checks.

Usage: python scripts/bench_star.py [--records N] [--body BYTES]

Runs a sans-IO star (``p2p66.live.star``) of 3 and 4 seats in this process:
every seat writes records in turn, each ``--body`` bytes long (a deal flight
is a few KiB, a move a few hundred bytes), and every message is delivered.
Prints the bytes the host sends and receives per record (records, receipts
and acknowledgements; a bare relay would send the record to n-1 seats and
nothing else), and the CPU time per record for all seats' checks together
(signatures dominate: Ed25519 sign and verify).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

from p2p66.live.star import Seats, StarHub, StarSpoke
from p2p66.net.identity import Identity
from p2p66.session.records import make_record


def run(players: int, records: int, body: int) -> tuple[int, float, float, float, float]:
    """(record size, host bytes out, a bare relay's bytes out and host bytes in, per record,
    and CPU seconds per record)."""
    ids = [Identity.from_seed(f"p{i}", bytes([i + 1]) * 32) for i in range(players)]
    seats = Seats(hashlib.sha256(b"bench").digest(), tuple(i.public_key for i in ids))
    hub = StarHub(seats, ids[0].sign)
    spokes = {s: StarSpoke(seats, s, ids[s].sign) for s in seats.joiners}
    sent = received = bare = 0
    started = time.process_time()
    for n in range(records):
        author = n % players
        record = make_record(
            hub.chain.next_seq, hub.chain.head, author, bytes(body), ids[author].sign
        )
        inbox: list[tuple[int, bytes]] = []
        bare += len(record.encode()) * (players - 1 if author == 0 else players - 2)
        if author == 0:
            outgoing = hub.own(record)
        else:
            data = spokes[author].own(record)
            received += len(data)
            _, outgoing = hub.receive(author, data)
        while outgoing:
            later: list[tuple[int, bytes]] = []
            for seat, data in outgoing:
                sent += len(data)
                reply = spokes[seat].receive(data).reply
                if reply is not None:
                    inbox.append((seat, reply))
            for seat, data in inbox:
                received += len(data)
                later.extend(hub.receive(seat, data)[1])
            inbox.clear()
            outgoing = later
    elapsed = time.process_time() - started
    size = len(record.encode())
    return size, sent / records, bare / records, received / records, elapsed / records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--body", type=int, default=400)
    args = parser.parse_args()
    for players in (3, 4):
        size, out, bare, inbound, cpu = run(players, args.records, args.body)
        print(
            f"{players} seats, {size}-byte records: per record the host sends {out:.0f} B "
            f"(a bare relay: {bare:.0f} B) and receives {inbound:.0f} B; the checks and "
            f"signatures of all seats take {cpu * 1000:.2f} ms CPU"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
