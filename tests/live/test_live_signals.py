"""Signal handlers compose: the innermost gets the signal, the outer ones get it back after.

The in-process tests use SIGWINCH, whose default is to be ignored (a bug
cannot kill the test run); the whole-process tests run in a child.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from p2p66.cli.signals import on_signals, reassert

pytestmark = pytest.mark.timeout(30)
REPO = Path(__file__).resolve().parents[2]
SIG = signal.SIGWINCH


async def _raise_and_see(got: list[str]) -> None:
    before = len(got)
    os.kill(os.getpid(), SIG)
    for _ in range(100):
        if len(got) > before:
            return
        await asyncio.sleep(0.01)


def test_the_innermost_handler_gets_the_signal_and_the_outer_one_gets_it_back() -> None:
    async def main() -> list[str]:
        got: list[str] = []
        with on_signals((SIG,), lambda sig: got.append("outer")):
            await _raise_and_see(got)
            with on_signals((SIG,), lambda sig: got.append("inner")):
                await _raise_and_see(got)
            await _raise_and_see(got)
        return got

    assert asyncio.run(main()) == ["outer", "inner", "outer"]


def test_a_library_that_removes_the_loop_handler_is_corrected() -> None:
    """prompt_toolkit removes the loop's SIGINT handler when its app ends."""

    async def main() -> list[str]:
        got: list[str] = []
        loop = asyncio.get_running_loop()
        with on_signals((SIG,), lambda sig: got.append("ours")):
            loop.add_signal_handler(SIG, lambda: got.append("library"))
            await _raise_and_see(got)
            loop.remove_signal_handler(SIG)
            reassert()
            await _raise_and_see(got)
        return got

    assert asyncio.run(main()) == ["library", "ours"]


SCRIPT = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from p2p66.cli.leaving import until_done_or_signal
    from p2p66.cli.signals import run_terminable

    async def main() -> int:
        try:
            game = asyncio.create_task(asyncio.sleep(0))
            assert await until_done_or_signal(game) is None  # the match ended by itself
            print("tail", flush=True)
            os.kill(os.getpid(), signal.{sig})  # in the tail after the match
            await asyncio.sleep(20)
            return 0
        finally:
            print("cleaned up", flush=True)

    sys.exit(asyncio.run(run_terminable(main(), 3, 130)))
    """
)


@pytest.mark.parametrize(("sig", "code"), [("SIGTERM", 3), ("SIGINT", 130)])
def test_a_signal_after_the_match_still_runs_the_cleanup(sig: str, code: int) -> None:
    """Before: the match's handler, once removed, left SIGTERM to its default (death)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(sig=sig)],
        capture_output=True,
        text=True,
        timeout=25,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert done.stdout.split("\n")[:2] == ["tail", "cleaned up"], done.stderr
    assert done.returncode == code, done.stderr
