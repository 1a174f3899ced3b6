"""Transport costs: handshakes per second, message round trips, one-way throughput.

Usage: python scripts/bench_transport.py [--rounds 20] [--messages 5000] [--size 1024]

Reports, on loopback TCP (127.0.0.1) and over the in-memory pipe:
- join-code handshake time (SPAKE2 + identities) and known-peer handshake time;
- round-trip time of one small message there and back through two channels;
- one-way throughput of ``--messages`` messages of ``--size`` bytes.
Everything runs in one process, so both peers share one core.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from p2p66.net import ChannelConfig, Identity, KnownPeers, SecureChannel, memory_channel_pair
from p2p66.net.joincode import generate_words
from p2p66.net.tcp import Listener, join, join_known

QUIET = ChannelConfig(heartbeat_interval=None, idle_timeout=None)


async def tcp_pair(
    listener: Listener, alice: Identity, bob: Identity, bob_peers: KnownPeers, known: bool
) -> tuple[SecureChannel, SecureChannel]:
    if known:
        joining = join_known("127.0.0.1", listener.port, bob, bob_peers, config=QUIET)
    else:
        listener.renew_code()
        joining = join(listener.join_code(), bob, known_peers=bob_peers, config=QUIET)
    task = asyncio.ensure_future(joining)
    hosted = await listener.accept(timeout=10)
    return hosted, await task


async def round_trips(a: SecureChannel, b: SecureChannel, count: int) -> list[float]:
    times = []
    for i in range(count):
        start = time.perf_counter()
        await a.send(b"move %d" % i)
        await b.send(await b.recv())
        await a.recv()
        times.append(time.perf_counter() - start)
    return times


async def throughput(a: SecureChannel, b: SecureChannel, count: int, size: int) -> float:
    payload = bytes(size)

    async def sender() -> None:
        for _ in range(count):
            await a.send(payload)

    start = time.perf_counter()
    receiving = asyncio.gather(*(b.recv() for _ in range(count)))
    await sender()
    await receiving
    return count * size / (time.perf_counter() - start)


def report(label: str, seconds: list[float]) -> None:
    ms = [s * 1000 for s in seconds]
    print(f"{label:40s} median {statistics.median(ms):7.2f} ms   min {min(ms):7.2f} ms")


async def main(rounds: int, messages: int, size: int) -> None:
    alice, bob = Identity.generate("alice"), Identity.generate("bob")
    with tempfile.TemporaryDirectory() as tmp:
        alice_peers = KnownPeers(Path(tmp) / "a.json")
        bob_peers = KnownPeers(Path(tmp) / "b.json")
        listener = await Listener.open(
            alice, words=generate_words(), bind="127.0.0.1", port=0, known_peers=alice_peers,
            config=QUIET,
        )  # fmt: skip
        async with listener:
            for known in (False, True):
                times = []
                for _ in range(rounds):
                    start = time.perf_counter()
                    hosted, joined = await tcp_pair(listener, alice, bob, bob_peers, known)
                    times.append(time.perf_counter() - start)
                    await hosted.aclose()
                    await joined.aclose()
                report(f"TCP handshake ({'known peer' if known else 'join code'})", times)
            hosted, joined = await tcp_pair(listener, alice, bob, bob_peers, True)
            report("TCP message round trip", await round_trips(joined, hosted, 500))
            rate = await throughput(joined, hosted, messages, size)
            print(f"{'TCP one-way throughput':40s} {rate / 1e6:7.1f} MB/s ({size}-byte messages)")
            await hosted.aclose()
            await joined.aclose()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        a, b = await memory_channel_pair(alice, bob, config=QUIET)
        times.append(time.perf_counter() - start)
        await a.aclose()
        await b.aclose()
    report("memory pair handshake (join code)", times)
    a, b = await memory_channel_pair(alice, bob, config=QUIET)
    report("memory message round trip", await round_trips(b, a, 500))
    rate = await throughput(b, a, messages, size)
    print(f"{'memory one-way throughput':40s} {rate / 1e6:7.1f} MB/s ({size}-byte messages)")
    await a.aclose()
    await b.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--size", type=int, default=1024)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.messages, args.size))
