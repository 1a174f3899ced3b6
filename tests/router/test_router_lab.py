"""The lab behaves like two home routers on the internet (so the other tests mean something)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lab import RouterLab

pytestmark = [pytest.mark.netns, pytest.mark.timeout(90)]

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import socket, sys
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
with socket.socket(family) as sock:
    sock.settimeout(float(sys.argv[3]))
    print(sock.connect_ex((sys.argv[1], int(sys.argv[2]))))
"""


def _probe(lab: RouterLab, ns: str, address: str, port: int, timeout: float = 1.0) -> int:
    out = subprocess.run(
        ["ip", "netns", "exec", ns, "python3", "-c", PROBE, address, str(port), str(timeout)],
        capture_output=True, text=True, timeout=20, check=True,
    )  # fmt: skip
    return int(out.stdout.strip() or -1)


def test_routers_learn_their_external_address_and_the_carrier_is_shared(lab: RouterLab) -> None:
    for name in "abc":
        lab.upnp(name, True)
    for name, address in (("a", "198.51.100.1"), ("b", "198.51.100.2"), ("c", "100.64.0.2")):
        assert f"public IP address {address}" in lab.upnp_log(name)


def test_home_machines_are_not_reachable_from_the_internet(lab: RouterLab) -> None:
    """No mapping, no pinhole: neither the router's IPv4 port nor the host's IPv6 answers."""
    joiner = lab.homes["b"].machine_ns
    assert _probe(lab, joiner, "198.51.100.1", 7777) != 0
    assert _probe(lab, joiner, "2001:db8:a::2", 7777) != 0
    # Outbound works: the joiner reaches the internet's STUN host (a UDP-only box: refused).
    assert _probe(lab, joiner, "198.51.100.254", 7777) == 111


RENEW = """
import asyncio
from p2p66.net.portmap import PortMapping

async def main() -> None:
    mapping = await PortMapping.open(40000)
    await mapping.renew()  # what the renewer does at half the lease
    await mapping.renew()
    print(mapping.mapping.external_port, mapping.problems)
    await mapping.aclose()

asyncio.run(main())
"""


def test_a_mapping_is_renewed_by_a_real_router(lab: RouterLab) -> None:
    """miniupnpd refused a renewal asked with remote host 0.0.0.0 (718): it must update."""
    lab.upnp("b", True)
    out = subprocess.run(
        ["ip", "netns", "exec", lab.homes["b"].machine_ns, sys.executable, "-c", RENEW],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert out.stdout.split() == ["40000", "[]"], out.stderr
    assert "updating existing port mapping 40000 TCP" in lab.upnp_log("b")
    assert "dnat" not in lab.forwarded_ports("b")
