"""Benchmark whole hands of the games for three and four over real loopback TCP, one process a seat.

For each preset (north-american: 4 seats; three-handed and cut-throat: 3)
this starts one process per seat, as real players run them: the host
(``host_table`` + ``play_hosted``, the star's hub) and each joiner
(``join_table`` + ``play_joined``), talking over TCP on 127.0.0.1 with the
join-code handshake, default proofs (the shuffle argument) and a bot in
every seat; replays (and the joiners' receipts) are written and fsynced to a
temporary folder as in a real match. Each process times itself at every
record it sends or takes in (one clock per player, so ``time.process_time``
is that player's own CPU, relaying included for the host):

- deal: from the end of the previous hand (the last setup record before
  hand 1) until the hand's first record that is not a deal flight (the
  first bid or move, so one bot decision and one hop are included);
- hand: from the end of the previous hand to the hand's last record (play,
  keys, seeds, every peer's own audit of the hand before its last record);
- flights: the deal records of the hand; bytes: star messages (records,
  receipts, acknowledgements) each player sent and received during the hand,
  before the channel's encryption and framing.

Goal (issue 16): four players under 1 s wall per hand including the deal.

    PYTHONPATH=$PWD python scripts/bench_table_net.py [--presets north-american,cut-throat]
        [--hands 3] [--bot greedy]

The default run measures 3 hands of each preset (a process that sees the
next hand's first deal flight reports and leaves) and takes under a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p66.cli.table_bots import bot_chooser
from p2p66.engine.table import table_options
from p2p66.live.starwire import RecordMessage, StarWireError, decode_star_message
from p2p66.live.tablenet import options_of, play_hosted, play_joined
from p2p66.net.channel import ChannelConfig
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode, generate_words
from p2p66.net.lobby import host_table, join_table
from p2p66.net.tcp import Listener
from p2p66.session import messages as msg
from p2p66.session.errors import ProtocolError

PRESETS = ("north-american", "three-handed", "cut-throat")
CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=30)
GOAL_SECONDS = 1.0
WORKER_TIMEOUT = 300.0


def identity(seat: int) -> Identity:
    return Identity.from_seed(f"seat{seat}", bytes([60 + seat]) * 32)


def deal_marker(hand: int) -> bytes:
    """The bytes every deal flight of ``hand`` carries (its body's first fields, canonical)."""
    encoded = msg.encode(msg.Deal(hand, {}))
    return encoded[1 : encoded.index(b"\xa4data")]


@dataclass
class Clock:
    """What one process saw: each star message with its time, CPU time, direction, bytes.

    The first deal flight of hand ``hands + 1`` ends the measurement: the process
    prints its report and exits (the others see it leave, after hand ``hands``).
    """

    seat: int
    hands: int
    seen: list[tuple[float, float, str, bytes]] = field(default_factory=list)

    def note(self, way: str, data: bytes) -> None:
        self.seen.append((time.perf_counter(), time.process_time(), way, data))
        if deal_marker(self.hands + 1) in data:
            report(self, None)
            os._exit(0)


def report(clock: Clock, fault: str | None) -> None:
    hands = [h for h in per_hand(clock) if h["hand"] <= clock.hands]
    print(json.dumps({"seat": clock.seat, "fault": fault, "hands": hands}), flush=True)


class Counted:
    """A channel that notes every message on the ``Clock`` (the rest is the channel's own)."""

    def __init__(self, inner: Any, clock: Clock) -> None:
        self._inner = inner
        self._clock = clock

    async def send(self, data: bytes) -> None:
        self._clock.note("out", data)
        await self._inner.send(data)

    async def recv(self) -> bytes:
        data: bytes = await self._inner.recv()
        self._clock.note("in", data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _record_kind(data: bytes) -> tuple[int, str, int] | None:
    """(seq, message type, hand; 0 before the first hand) of a record message, else None."""
    try:
        message = decode_star_message(data)
    except StarWireError:
        return None
    if not isinstance(message, RecordMessage):
        return None
    record = message.record
    try:
        body = msg.decode(record.body, record.author)
    except ProtocolError:
        return None
    return record.seq, body.TYPE, int(getattr(body, "hand", 0))


def per_hand(clock: Clock) -> list[dict[str, Any]]:
    """The clock's notes cut into hands (see the module's docstring)."""
    records: dict[int, tuple[float, float, str, int]] = {}
    for wall, cpu, _, data in clock.seen:
        kind = _record_kind(data)
        if kind is not None and kind[0] not in records:  # the hub sends each to every joiner
            records[kind[0]] = (wall, cpu, kind[1], kind[2])
    ordered = [records[s] for s in sorted(records)]
    hands = sorted({hand for *_, hand in ordered if hand > 0})
    out = []
    for hand in hands:
        first = next(i for i, r in enumerate(ordered) if r[3] == hand)
        mine = [r for r in ordered if r[3] == hand]
        if first == 0:
            continue
        start_wall, start_cpu = ordered[first - 1][0], ordered[first - 1][1]
        after_deal = next((r for r in mine if r[2] != "deal"), mine[-1])
        end_wall, end_cpu = mine[-1][0], mine[-1][1]
        window = [n for n in clock.seen if start_wall < n[0] <= end_wall]
        out.append(
            {
                "hand": hand,
                "deal_wall": after_deal[0] - start_wall,
                "deal_cpu": after_deal[1] - start_cpu,
                "hand_wall": end_wall - start_wall,
                "hand_cpu": end_cpu - start_cpu,
                "flights": sum(1 for r in mine if r[2] == "deal"),
                "sent": sum(len(n[3]) for n in window if n[2] == "out"),
                "received": sum(len(n[3]) for n in window if n[2] == "in"),
            }
        )
    return out


async def host_worker(preset: str, hands: int, bot: str, folder: Path) -> None:
    seats = table_options(preset, {}).players
    me = identity(0)
    words = generate_words()
    listener = await Listener.open(me, words=words, bind="127.0.0.1", port=0, config=CONFIG)
    async with listener:
        print(JoinCode(words, "127.0.0.1", listener.port), flush=True)
        table = await host_table(listener, me, seats=seats, preset=preset, config=CONFIG)
        clock = Clock(0, hands)
        for seat, channel in list(table.channels.items()):
            table.channels[seat] = Counted(channel, clock)  # type: ignore[assignment]
        options = options_of(table)
        (end, *_) = await play_hosted(
            table, me, bot_chooser(bot, 0, options), {}, replay=folder / "p0.p66"
        )
    report(clock, end.fault)


async def joiner_worker(seat: int, hands: int, code: str, bot: str, folder: Path) -> None:
    me = identity(seat)
    table = await join_table(code, me, config=CONFIG)
    clock = Clock(table.seat, hands)
    table.channels[0] = Counted(table.channels[0], clock)  # type: ignore[assignment]
    options = options_of(table)
    end = await play_joined(
        table, me, bot_chooser(bot, table.seat, options), replay=folder / f"p{table.seat}.p66"
    )
    report(clock, end.fault)


def worker(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if args.code is None:
        asyncio.run(host_worker(args.preset, args.hands, args.bot, folder))
    else:
        asyncio.run(joiner_worker(args.seat, args.hands, args.code, args.bot, folder))
    return 0


def _spawn(extra: list[str], folder: Path) -> subprocess.Popen[str]:
    command = [sys.executable, __file__, "--worker", "--folder", str(folder), *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=os.environ.copy())


def run_preset(preset: str, hands: int, bot: str) -> list[dict[str, Any]]:
    """One match among one process per seat; each seat's report (seat order)."""
    seats = table_options(preset, {}).players
    with tempfile.TemporaryDirectory(prefix="p2p66-bench-") as tmp:
        folder = Path(tmp)
        base = ["--preset", preset, "--hands", str(hands), "--bot", bot]
        host = _spawn(base, folder)
        procs = [host]
        try:
            assert host.stdout is not None
            code = host.stdout.readline().strip()
            if "@127.0.0.1:" not in code:
                raise SystemExit(f"{preset}: the host printed no join code: {code!r}")
            for seat in range(1, seats):
                procs.append(_spawn([*base, "--seat", str(seat), "--code", code], folder))
            reports = []
            for proc in procs:
                out, _ = proc.communicate(timeout=WORKER_TIMEOUT)
                if proc.returncode != 0:
                    raise SystemExit(f"{preset}: a seat's process failed ({proc.returncode})")
                reports.append(json.loads(out.strip().splitlines()[-1]))
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    short = [r for r in reports if len(r["hands"]) < hands and r["fault"]]
    if short:  # a fault after the measured hands is only the others leaving
        raise SystemExit(f"{preset}: the match did not get through {hands} hands: {short}")
    return sorted(reports, key=lambda r: r["seat"])


def summarise(preset: str, reports: list[dict[str, Any]]) -> list[str]:
    def cells(key: str) -> list[float]:
        return [h[key] for r in reports for h in r["hands"]]

    hands = min(len(r["hands"]) for r in reports)
    n = len(reports)
    hand_walls = [max(r["hands"][i]["hand_wall"] for r in reports) for i in range(hands)]
    ms = 1000.0
    lines = [
        f"{preset} ({n} seats, {n} processes, {hands} hands): per hand per player",
        f"  deal  wall mean {statistics.mean(cells('deal_wall')) * ms:6.0f} ms"
        f"  max {max(cells('deal_wall')) * ms:6.0f} ms"
        f"   cpu mean {statistics.mean(cells('deal_cpu')) * ms:6.0f} ms"
        f"  max {max(cells('deal_cpu')) * ms:6.0f} ms",
        f"  hand  wall mean {statistics.mean(cells('hand_wall')) * ms:6.0f} ms"
        f"  max {max(cells('hand_wall')) * ms:6.0f} ms"
        f"   cpu mean {statistics.mean(cells('hand_cpu')) * ms:6.0f} ms"
        f"  max {max(cells('hand_cpu')) * ms:6.0f} ms",
        f"  flights {statistics.mean(cells('flights')):.0f}; bytes sent / received per player"
        f" per hand: host {_mean_of(reports[:1], 'sent')} / {_mean_of(reports[:1], 'received')},"
        f" joiners {_mean_of(reports[1:], 'sent')} / {_mean_of(reports[1:], 'received')}",
    ]
    if n == 4:
        worst = max(hand_walls)
        verdict = "met" if worst < GOAL_SECONDS else "NOT met"
        lines.append(
            f"  goal: four players under {GOAL_SECONDS:g} s wall per hand including the deal:"
            f" slowest hand {worst:.2f} s (slowest player), {verdict}"
        )
    return lines


def _mean_of(reports: list[dict[str, Any]], key: str) -> str:
    values = [h[key] for r in reports for h in r["hands"]]
    return f"{statistics.mean(values) / 1024:.1f} KiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--hands", type=int, default=3, help="hands measured per preset")
    parser.add_argument("--bot", default="greedy", help="the bot in every seat")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--preset", help=argparse.SUPPRESS)
    parser.add_argument("--seat", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    print(f"loopback TCP, one process per seat, default proofs, bot {args.bot}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    for preset in args.presets.split(","):
        started = time.perf_counter()
        reports = run_preset(preset, args.hands, args.bot)
        for line in summarise(preset, reports):
            print(line)
        took = time.perf_counter() - started
        print(f"  (the whole match, from starting the processes to their end: {took:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
