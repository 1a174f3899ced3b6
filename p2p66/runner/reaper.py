"""Stopping a run stops everything it started: worker processes and the bots they run.

A run is killed the way CI, ``timeout`` and systemd kill things: SIGTERM to
the parent, or SIGKILL when that did not work. Without care the worker
processes of ``--concurrency`` and every external bot they started are left
behind, adopted by init. So:

- the parent turns SIGTERM into ``RunStopped`` (unwinding like Ctrl-C) and
  then terminates its workers instead of waiting for their games;
- a worker asks the kernel for SIGTERM when its parent dies (Linux
  ``PR_SET_PDEATHSIG``) and also watches its parent id (everywhere else, and
  for the race where the parent died before the request), and on SIGTERM
  kills its bots and exits;
- each external bot runs in its own process group, so killing it kills
  whatever it started too.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

PR_SET_PDEATHSIG = 1
PARENT_WATCH_SECONDS = 0.5


class RunStopped(BaseException):
    """The run got SIGTERM (or SIGHUP): unwind, stop the workers and bots, exit."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise ``RunStopped`` in the main thread."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise RunStopped(signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # signals only reach the main thread; nothing to install
        return
    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def request_parent_death_signal(signum: int) -> bool:
    """Ask Linux to send ``signum`` to this process when its parent dies; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def init_worker(parent: int, kill_children: Callable[[], None]) -> None:
    """Worker initialiser: die with the parent, and kill our bots when we die by signal."""

    def on_term(signum: int, frame: FrameType | None) -> None:
        kill_children()
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, on_term)
    request_parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before we asked
        on_term(signal.SIGTERM, None)
    threading.Thread(target=_watch_parent, args=(parent, kill_children), daemon=True).start()


def _watch_parent(parent: int, kill_children: Callable[[], None]) -> None:
    """The fallback where there is no parent-death signal: poll the parent id."""
    stop = threading.Event()
    while not stop.wait(PARENT_WATCH_SECONDS):
        if os.getppid() != parent:
            kill_children()
            os._exit(128 + signal.SIGTERM)
