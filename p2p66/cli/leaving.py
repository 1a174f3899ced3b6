"""Signals that mean "I am leaving": the match is resigned, not dropped.

Closing the terminal (SIGHUP) or stopping the process (SIGTERM; and, for a
bot seat with no screen to warn first, Ctrl-C) runs the same path as typing
``q``: the running task is cancelled and the caller resigns with a signed
record the other side gets at once, instead of dying silently while the
other side waits out its time limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import Any, Final

from p2p66.cli.signals import REASONS, on_signals

LEAVE_SIGNALS: Final = (signal.SIGTERM, signal.SIGHUP)
"""Leaving signals for a seat with a screen (it handles Ctrl-C itself: twice to leave)."""
BOT_LEAVE_SIGNALS: Final = (*LEAVE_SIGNALS, signal.SIGINT)


async def until_done_or_signal(
    task: asyncio.Task[Any],
    signals: tuple[signal.Signals, ...] = LEAVE_SIGNALS,
    before_cancel: Callable[[str], None] = lambda reason: None,
) -> str | None:
    """Wait for ``task``; if a leaving signal comes first, cancel it and return the reason
    (given to ``before_cancel`` first, for whatever the task does as it is cancelled)."""
    loop = asyncio.get_running_loop()
    got: asyncio.Future[str] = loop.create_future()

    def caught(sig: signal.Signals) -> None:
        if not got.done():
            got.set_result(sig.name)

    with on_signals(signals, caught):
        await asyncio.wait({task, got}, return_when=asyncio.FIRST_COMPLETED)
    if not got.done():
        got.cancel()
        return None
    reason = REASONS.get(got.result(), got.result())
    if not task.done():
        before_cancel(reason)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    return reason
