"""Across two home routers (the namespace lab of tests/router): how fast, and which paths work.

Root only (it builds the lab, like the tests). For each path it starts
``p2p66 host`` and ``p2p66 join`` (random bots, a match to 2, proofs off) and
measures: host start -> printed internet code (with a mapping), and host
start -> the joiner's "Joined ..." line (authenticated). First, where the
time to the code goes: the interpreter alone, ``host --help`` (our imports),
``host --no-upnp`` to its code, and ``host`` to its mapped public code, each
the median of 5 runs, with the load average (the machine may be shared);
``PortMapping.open`` alone comes next. ``--sim N`` repeats
the simultaneous-open path N times and counts the successes. Not a test.

    sudo PYTHONPATH=$PWD python scripts/bench_internet.py [--sim 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "router"))

import players
from lab import RouterLab, missing_prerequisite

Setup = Callable[[RouterLab], None]


def _joined_at(player: players.Player, start: float, timeout: float = 60) -> float | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "Joined " in player.err:
            return time.monotonic() - start
        if player.proc.poll() is not None:
            return None
        time.sleep(0.02)
    return None


def run_path(name: str, setup: Setup, host_home: str, want: str, reply: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lab = RouterLab.build(work)
        try:
            setup(lab)
            start = time.monotonic()
            host = players.host(lab.homes[host_home].machine_ns, work)
            code = host.read_line(want)
            code_s = time.monotonic() - start
            joiner = players.join(lab.homes["b"].machine_ns, work, code, "--wait", "40")
            if reply:
                host.type_line(joiner.read_line("198.51.100.2:", 60))
            joined_s = _joined_at(joiner, start)
            ok = joiner.finish(90) == 0 and host.finish(90) == 0
            return {"path": name, "code_s": code_s, "joined_s": joined_s, "ok": ok}
        except AssertionError as exc:
            return {"path": name, "code_s": None, "joined_s": None, "ok": False, "why": str(exc)}
        finally:
            players.kill_all()
            lab.close()


MAPPING_TIMER = """
import asyncio, statistics, time
from p2p66.net.portmap import PortMapping
from p2p66.net.reach import global_ipv6_addresses
async def main():
    took = []
    for port in range(7100, 7105):
        start = time.perf_counter()
        session = await PortMapping.open(port, ipv6=global_ipv6_addresses())
        took.append(time.perf_counter() - start)
        await session.aclose()
    print(f"{statistics.median(took):.3f} {min(took):.3f} {max(took):.3f}")
asyncio.run(main())
"""


def time_mapping() -> str:
    """Median/min/max seconds of PortMapping.open (discovery, mapping, IPv6 pinhole) alone."""
    with tempfile.TemporaryDirectory() as tmp:
        lab = RouterLab.build(Path(tmp))
        try:
            lab.upnp("a", True)
            out = subprocess.run(
                ["ip", "netns", "exec", lab.homes["a"].machine_ns, sys.executable, "-c",
                 MAPPING_TIMER],
                capture_output=True, text=True, timeout=120, check=True,
                env={**os.environ, "PYTHONPATH": str(players.REPO)},
            )  # fmt: skip
            return out.stdout.strip()
        finally:
            lab.close()


def _median_s(command: list[str], runs: int, until_line: str | None = None) -> float:
    """Median wall time of ``command``: to its exit, or to its first stdout line holding
    ``until_line`` (then it is killed)."""
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, text=True,
                                env={**os.environ, "PYTHONPATH": str(players.REPO)})  # fmt: skip
        assert proc.stdout is not None
        if until_line is None:
            proc.communicate(timeout=60)
        else:
            for line in proc.stdout:
                if until_line in line:
                    break
        took.append(time.perf_counter() - start)
        proc.kill()
        proc.communicate(timeout=30)
    return statistics.median(took)


def time_startup(runs: int = 5) -> list[tuple[str, float]]:
    """Where ``host`` start -> printed code goes: Python itself, our imports, the mapping."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lab = RouterLab.build(work)
        try:
            lab.upnp("a", True)
            ns = ["ip", "netns", "exec", lab.homes["a"].machine_ns]
            cli = [*ns, sys.executable, "-m", "p2p66.cli.app"]
            os.environ["P2P66_HOME"] = str(work / "home")
            host = [*cli, "host", "--port", "0", "--name", "bench", "--wait", "1"]
            python = [*ns, sys.executable]
            return [
                ("python -c pass (interpreter alone)", _median_s([*python, "-c", "pass"], runs)),
                ("p2p66 host --help (start-up, imports)", _median_s([*cli, "host", "-h"], runs)),
                ("p2p66 host --no-upnp -> code", _median_s([*host, "--no-upnp"], runs, "@")),
                ("p2p66 host -> public code (mapped)", _median_s(host, runs, "198.51.100.1:")),
            ]
        finally:
            os.environ.pop("P2P66_HOME", None)
            lab.close()


def _both_upnp_v4(lab: RouterLab) -> None:
    lab.upnp("a", True)
    lab.upnp("b", True)
    lab.block_ipv6_between_homes()


def _ipv6_only(lab: RouterLab) -> None:
    lab.upnp("a", True)
    lab.block_ipv4_between_homes()


def _reply(lab: RouterLab) -> None:
    lab.upnp("b", True)
    lab.block_ipv6_between_homes()


def _simultaneous(lab: RouterLab) -> None:
    lab.upnp("a", True, maps=False)
    lab.upnp("b", True, maps=False)
    lab.block_ipv6_between_homes()


def _symmetric(lab: RouterLab) -> None:
    _simultaneous(lab)
    lab.randomize_ports("b")


def _cgnat_reply(lab: RouterLab) -> None:
    lab.upnp("c", True)
    lab.upnp("b", True)


PATHS = [
    ("UPnP both, public IPv4 code", _both_upnp_v4, "a", "198.51.100.1:", False),
    ("IPv6 only (IGDv2 pinhole)", _ipv6_only, "a", "[2001:db8:a::2]", False),
    ("reply code (host router no UPnP)", _reply, "a", "192.168.1.2:", True),
    ("simultaneous open (no mappings)", _simultaneous, "a", "198.51.100.1:", True),
    ("carrier-grade host, reply code", _cgnat_reply, "c", "192.168.3.2:", True),
    ("simultaneous open, joiner symmetric NAT", _symmetric, "a", "198.51.100.1:", True),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim", type=int, default=0, help="repeat the simultaneous open N times")
    parser.add_argument("--startup", action="store_true", help="only the start-up numbers")
    args = parser.parse_args()
    reason = missing_prerequisite()
    if reason is not None:
        print(f"cannot run: {reason}")
        return 2
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for what, seconds in time_startup():
        print(f"{what:44} {seconds:6.2f} s (median of 5)")
    median, low, high = time_mapping().split()
    print(f"PortMapping.open (UPnP + pinhole), 5 runs: median {median} s (min {low}, max {high})")
    if args.startup:
        return 0
    print(f"{'path':38} {'code (s)':>9} {'joined (s)':>11}  result")
    for name, setup, home, want, reply in PATHS:
        r = run_path(name, setup, home, want, reply)
        code_s = f"{r['code_s']:.2f}" if isinstance(r["code_s"], float) else "-"
        joined = f"{r['joined_s']:.2f}" if isinstance(r["joined_s"], float) else "-"
        print(f"{name:38} {code_s:>9} {joined:>11}  {'ok' if r['ok'] else 'FAILED'}", flush=True)
    if args.sim:
        wins = sum(
            bool(run_path("sim", _simultaneous, "a", "198.51.100.1:", True)["ok"])
            for _ in range(args.sim)
        )
        print(f"simultaneous open: {wins}/{args.sim} matches played")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
