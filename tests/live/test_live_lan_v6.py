"""An IPv6-only LAN in two network namespaces: codes, discovery and a match (root and iproute2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HOST_V6 = "fd66::1"  # what the namespaces_v6 fixture gives the host

pytestmark = pytest.mark.netns


def _in_ns(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "p2p66.cli.app", *args]


@pytest.mark.timeout(120)
def test_lan_discovery_and_a_match_on_an_ipv6_only_link(
    namespaces_v6: tuple[str, str], tmp_path: Path
) -> None:
    host_ns, joiner_ns = namespaces_v6
    repo = str(Path(__file__).resolve().parents[2])
    env_h = {**os.environ, "P2P66_HOME": str(tmp_path / "h"), "PYTHONPATH": repo}
    env_j = {**os.environ, "P2P66_HOME": str(tmp_path / "j"), "PYTHONPATH": repo}
    with subprocess.Popen(
        _in_ns(host_ns, "host", "--lan", "--port", "0", "--bot", "random", "--target", "2",
               "--soundness", "0", "--replay-dir", str(tmp_path / "hr"), "--wait", "60"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_h,
    ) as host:  # fmt: skip
        try:
            assert host.stdout is not None
            code = host.stdout.readline().strip()
            assert code.split("@")[1].startswith(f"[{HOST_V6}]:"), code
            words = code.split("@")[0]
            joined = subprocess.run(
                _in_ns(joiner_ns, "join", "--bot", "random", "--replay-dir", str(tmp_path / "jr")),
                input=words + "\n", check=False, capture_output=True, text=True, env=env_j,
                timeout=90,
            )  # fmt: skip
            more_codes, host_err = host.communicate(timeout=30)
        finally:
            if host.poll() is None:
                host.kill()
                host.communicate()
    assert joined.returncode == 0, joined.stderr
    assert host.returncode == 0, host_err
    assert "127.0.0.1" not in code + more_codes  # nobody on the link could use it
    assert f"at [{HOST_V6}]:" in joined.stderr  # the game was found by mDNS over IPv6
    (h_file,) = (tmp_path / "hr").glob("*.p66")
    (j_file,) = (tmp_path / "jr").glob("*.p66")
    assert h_file.read_bytes() == j_file.read_bytes()
