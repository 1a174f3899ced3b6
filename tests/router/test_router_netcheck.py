"""``p2p66 net check --json`` in the lab's homes: what it finds and what it advises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lab import RouterLab
from players import REPO

pytestmark = [pytest.mark.netns, pytest.mark.timeout(90)]


def _check(lab: RouterLab, home: str, tmp_path: Path) -> dict[str, Any]:
    env = {**os.environ, "P2P66_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        ["ip", "netns", "exec", lab.homes[home].machine_ns, sys.executable, "-m",
         "p2p66.cli.app", "net", "check", "--json", "--port", "7000"],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    report: dict[str, Any] = json.loads(out.stdout)
    return report


def test_router_with_upnp(lab: RouterLab, tmp_path: Path) -> None:
    lab.upnp("a", True)
    report = _check(lab, "a", tmp_path)
    assert report["ipv4"] == ["192.168.1.2"]
    assert report["ipv6_global"] == ["2001:db8:a::2"]
    assert report["upnp_router"] == "192.168.1.1"
    assert report["natpmp_router"] == "192.168.1.1"
    assert report["external_address"] == "198.51.100.1"
    assert report["carrier_grade"] is False
    assert report["mapping_test"].startswith("ok: 198.51.100.1:7000 -> 192.168.1.2:7000")
    assert report["pinholes"] == ["[2001:db8:a::2]:7000"]
    assert report["join_code"][0] == "fox-lamp-river@[2001:db8:a::2]:7000,198.51.100.1:7000"
    assert "works across the internet" in report["next_step"]
    assert "dnat" not in lab.forwarded_ports("a")  # the test mapping is removed


def test_carrier_grade_home(lab: RouterLab, tmp_path: Path) -> None:
    lab.upnp("c", True)
    report = _check(lab, "c", tmp_path)
    assert report["external_address"] == "100.64.0.2"
    assert report["carrier_grade"] is True
    assert report["mapping_test"].endswith("is carrier-grade: nobody on the internet reaches it)")
    assert "carrier-grade NAT" in report["next_step"]
    assert report["join_code"] == ["fox-lamp-river@192.168.3.2:7000"]


def test_no_router_answers(lab: RouterLab, tmp_path: Path) -> None:
    report = _check(lab, "a", tmp_path)
    assert report["upnp_router"] is None and report["natpmp_router"] is None
    assert report["mapping_test"].startswith("not tried")
    assert "switch one on" in report["next_step"]
