"""Memory a flooding peer can make us hold: records sent while nobody reads them.

Usage: python scripts/bench_flood.py [--records 1500] [--size 60000] [--bound N]

Over loopback TCP (127.0.0.1), one peer sends ``--records`` messages of
``--size`` bytes while the other reads nothing (a player thinking). Reports
how many went out before the receiver ended the channel and the peak of the
Python memory allocated meanwhile (tracemalloc, both ends; the sender's
own buffers are small because it waits for the link). ``--bound`` sets
``ChannelConfig.max_in_flight`` (default: the shipped bound; a huge value
shows what an unbounded inbox would hold).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tracemalloc

from p2p66.net import ChannelConfig, Identity, TransportError
from p2p66.net.channel import DEFAULT_CONFIG
from p2p66.net.tcp import Listener, join


async def flood(records: int, size: int, bound: int) -> tuple[int, int, str]:
    config = ChannelConfig(heartbeat_interval=None, idle_timeout=None, max_in_flight=bound)
    alice, bob = Identity.generate("alice"), Identity.generate("bob")
    async with await Listener.open(
        alice, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0, config=config
    ) as listener:
        joining = asyncio.ensure_future(join(listener.join_code(), bob, config=config))
        ours = await listener.accept(timeout=10)
        theirs = await joining
        tracemalloc.start()
        sent, ended = 0, "nothing: every record was queued"
        with contextlib.suppress(TransportError):
            for _ in range(records):
                await theirs.send(bytes(size))
                sent += 1
        await asyncio.sleep(0.2)  # let the receiver take in what is on the wire
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        if ours.closed:
            ended = str(await ours.ended())
        ours.close()
        theirs.close()
    return sent, peak, ended


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1500)
    parser.add_argument("--size", type=int, default=60_000)
    parser.add_argument("--bound", type=int, default=DEFAULT_CONFIG.max_in_flight)
    args = parser.parse_args()
    sent, peak, ended = asyncio.run(flood(args.records, args.size, args.bound))
    print(f"bound {args.bound}: {sent} of {args.records} records of {args.size} B sent")
    print(f"peak Python memory during the flood: {peak / 1e6:.1f} MB")
    print(f"the receiver ended the channel with: {ended}")


if __name__ == "__main__":
    main()
