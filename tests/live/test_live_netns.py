"""A whole match between two processes in two network namespaces (root and iproute2 only)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HOST_ADDRESS = "10.66.0.1"  # the address the namespaces fixture gives the host

pytestmark = pytest.mark.netns


def _in_ns(ns: str, home: Path, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "p2p66.cli.app", *args]


@pytest.mark.timeout(120)
def test_match_between_two_namespaces(namespaces: tuple[str, str], tmp_path: Path) -> None:
    host_ns, joiner_ns = namespaces
    repo = str(Path(__file__).resolve().parents[2])
    env_h = {**os.environ, "P2P66_HOME": str(tmp_path / "h"), "PYTHONPATH": repo}
    env_j = {**os.environ, "P2P66_HOME": str(tmp_path / "j"), "PYTHONPATH": repo}
    host = subprocess.Popen(
        _in_ns(host_ns, tmp_path / "h", "host", "--bind", HOST_ADDRESS, "--port", "0",
               "--bot", "random", "--target", "2", "--soundness", "0",
               "--replay-dir", str(tmp_path / "hr"), "--wait", "30"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_h,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        code = host.stdout.readline().strip()
        assert f"@{HOST_ADDRESS}:" in code, host.stderr.read() if host.stderr else ""
        joined = subprocess.run(
            _in_ns(joiner_ns, tmp_path / "j", "join", code, "--bot", "random",
                   "--replay-dir", str(tmp_path / "jr")),
            check=False, capture_output=True, text=True, env=env_j, timeout=90,
        )  # fmt: skip
        _, host_err = host.communicate(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert joined.returncode == 0, joined.stderr
    assert host.returncode == 0, host_err
    (h_file,) = (tmp_path / "hr").glob("*.p66")
    (j_file,) = (tmp_path / "jr").glob("*.p66")
    assert h_file.read_bytes() == j_file.read_bytes()
