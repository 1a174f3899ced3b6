"""Fixtures of the transport tests (helpers live in netkit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from netkit import ALICE_SEED, BOB_SEED

from p2p66.net.identity import Identity


@pytest.fixture
def alice() -> Identity:
    return Identity.from_seed("alice", ALICE_SEED)


@pytest.fixture
def bob() -> Identity:
    return Identity.from_seed("bob", BOB_SEED)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private P2P66_HOME so no test touches the real config directory."""
    path = tmp_path / "home"
    monkeypatch.setenv("P2P66_HOME", str(path))
    return path
