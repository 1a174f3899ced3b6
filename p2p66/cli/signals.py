"""One owner of the event loop's signal handlers: a stack, so that handlers compose.

``loop.add_signal_handler`` keeps one handler per signal, and
``remove_signal_handler`` puts back the *default* (death on SIGTERM), not the
handler that was there before. So a second user of SIGTERM (the match's
"leaving is a resignation" handler) used to switch off the first (the host's
"remove the port mapping" handler) for good once the match ended, and a
SIGTERM in the tail after the match killed the process with the mapping
still on the router.

Here every user pushes a handler with ``on_signals`` for as long as it
needs it; a signal goes to the most recently pushed handler still in place,
and when that one is popped the one below it takes over again. A library
that takes the loop's handler for itself and removes it afterwards
(prompt_toolkit does so for SIGINT) is corrected by ``reassert``, which each
pop also does.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import weakref
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Final

Handler = Callable[[signal.Signals], None]

REASONS: Final = {
    "SIGTERM": "the program was stopped (SIGTERM)",
    "SIGHUP": "the terminal was closed (SIGHUP)",
    "SIGINT": "interrupted (Ctrl-C)",
}

_STACKS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[signal.Signals, list[Handler]]
] = weakref.WeakKeyDictionary()


def _dispatch(loop: asyncio.AbstractEventLoop, sig: signal.Signals) -> None:
    stack = _STACKS.get(loop, {}).get(sig)
    if stack:
        stack[-1](sig)


def _install(loop: asyncio.AbstractEventLoop, sig: signal.Signals) -> bool:
    try:
        loop.add_signal_handler(sig, _dispatch, loop, sig)
    except (NotImplementedError, RuntimeError, ValueError):
        return False  # not on this platform, or not the main thread: the default stays
    return True


def reassert(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Install the dispatcher again for every signal that has handlers (after a library
    removed the loop's handler behind our back)."""
    loop = loop or asyncio.get_running_loop()
    for sig, stack in _STACKS.get(loop, {}).items():
        if stack:
            _install(loop, sig)


@contextlib.contextmanager
def on_signals(signals: tuple[signal.Signals, ...], handler: Handler) -> Iterator[None]:
    """Route ``signals`` to ``handler`` inside the block (above any outer handler)."""
    loop = asyncio.get_running_loop()
    stacks = _STACKS.setdefault(loop, {})
    pushed: list[signal.Signals] = []
    for sig in signals:
        if _install(loop, sig):
            stacks.setdefault(sig, []).append(handler)
            pushed.append(sig)
    try:
        yield
    finally:
        for sig in pushed:
            stack = stacks[sig]
            stack.reverse()
            stack.remove(handler)  # the innermost instance of this handler
            stack.reverse()
            if not stack:
                del stacks[sig]
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.remove_signal_handler(sig)
        reassert(loop)


def run_terminable(
    main: Coroutine[Any, Any, int], on_term: int, on_interrupt: int = 130
) -> Coroutine[Any, Any, int]:
    """``main`` as a task that SIGTERM or Ctrl-C cancels, exit ``on_term`` / ``on_interrupt``.

    This is the bottom of the stack: inner handlers (a match's resignation)
    take the signals while they are pushed, and this one gets them again
    before and after, so whatever ``main`` holds (a port mapping) is released
    by its own ``finally`` blocks at every moment. A repeated signal during
    that cleanup does not cut it short (every router call has a timeout).
    """

    async def runner() -> int:
        task = asyncio.ensure_future(main)
        got: list[signal.Signals] = []

        def stop(sig: signal.Signals) -> None:
            if not got:
                got.append(sig)
                sys.stderr.write(f"Stopping: {REASONS.get(sig.name, sig.name)}.\n")
                task.cancel()

        with on_signals((signal.SIGTERM, signal.SIGINT), stop):
            try:
                return await task
            except asyncio.CancelledError:
                if task.cancelled() and got and not _current_cancelling():
                    return on_interrupt if got[0] == signal.SIGINT else on_term
                raise

    return runner()


def _current_cancelling() -> int:
    current = asyncio.current_task()
    return current.cancelling() if current is not None else 0
