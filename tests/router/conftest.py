"""The router lab fixture: a fresh namespace network per test, removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import players
import pytest
from lab import RouterLab, missing_prerequisite


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[RouterLab]:
    """host — router A — internet — router B — joiner, plus a carrier-grade home C."""
    reason = missing_prerequisite()
    if reason is not None:
        pytest.skip(reason)
    built = RouterLab.build(tmp_path)
    try:
        yield built
    finally:
        players.kill_all()
        built.close()
