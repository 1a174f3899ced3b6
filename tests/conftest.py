"""Fixtures shared by every test directory."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

HOST_ADDRESS = "10.66.0.1"
JOINER_ADDRESS = "10.66.0.2"
STEP_TIMEOUT = 20.0


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", *args], capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )


def _checked(*args: str) -> None:
    result = _ip(*args)
    if result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed: {result.stderr.strip()}")


@contextlib.contextmanager
def _linked_namespaces(addresses: tuple[str, str], *ip_options: str) -> Iterator[tuple[str, str]]:
    """Two fresh namespaces linked by a veth pair with ``addresses`` (CIDR), deleted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("the 'ip' tool (iproute2) is not installed")
    token = secrets.token_hex(3)
    host_ns, joiner_ns = f"p2p66-h-{token}", f"p2p66-j-{token}"
    created: list[str] = []
    try:
        for ns in (host_ns, joiner_ns):
            result = _ip("netns", "add", ns)
            if result.returncode != 0:
                pytest.skip(f"cannot create a network namespace: {result.stderr.strip()}")
            created.append(ns)
        host_if, joiner_if = f"p6{token}h", f"p6{token}j"
        _checked(
            "link", "add", host_if, "netns", host_ns, "type", "veth",
            "peer", "name", joiner_if, "netns", joiner_ns,
        )  # fmt: skip
        for ns, interface, address in (
            (host_ns, host_if, addresses[0]),
            (joiner_ns, joiner_if, addresses[1]),
        ):
            _checked("-n", ns, "addr", "add", address, "dev", interface, *ip_options)
            _checked("-n", ns, "link", "set", interface, "up")
            _checked("-n", ns, "link", "set", "lo", "up")
        yield host_ns, joiner_ns
    finally:
        for ns in created:
            _ip("netns", "del", ns)


@pytest.fixture
def namespaces() -> Iterator[tuple[str, str]]:
    """Two fresh namespaces linked by a veth pair (IPv4), deleted afterwards whatever happens."""
    with _linked_namespaces((f"{HOST_ADDRESS}/24", f"{JOINER_ADDRESS}/24")) as pair:
        yield pair


HOST_ADDRESS_V6 = "fd66::1"
JOINER_ADDRESS_V6 = "fd66::2"


@pytest.fixture
def namespaces_v6() -> Iterator[tuple[str, str]]:
    """Like ``namespaces``, but the link between them has IPv6 only (unique-local addresses)."""
    with _linked_namespaces((f"{HOST_ADDRESS_V6}/64", f"{JOINER_ADDRESS_V6}/64"), "nodad") as pair:
        yield pair


# Hypothesis: deterministic, and no health-check failures when CI shares the machine.
settings.register_profile(
    "p2p66", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("p2p66")


def _refuse_a_stale_compiled_engine() -> None:
    """A compiled engine built in place (scripts/build_accel.py) shadows the .py files:
    after an edit to its sources the tests would test old code, so stop at once."""
    from importlib.util import module_from_spec, spec_from_file_location
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "build_accel.py"
    spec = spec_from_file_location("build_accel", script)
    if spec is None or spec.loader is None:
        return
    accel = module_from_spec(spec)
    spec.loader.exec_module(accel)
    package = script.parent.parent / "p2p66"
    if accel.stale(package):
        pytest.exit(
            "the compiled modules (p2p66/engine, p2p66/bots) are older than their sources: "
            "rebuild them (python scripts/build_accel.py) or remove them "
            "(python scripts/build_accel.py --clean)",
            returncode=2,
        )


_refuse_a_stale_compiled_engine()
