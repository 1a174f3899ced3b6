"""A run stopped while a bot process is being started still knows that process, and kills it.

The runner turns SIGTERM into an exception in the main thread; before, one that struck
inside ``Popen`` after the fork lost the bot's pid, and a bot that ignores its input's end
and SIGTERM outlived the run (what made ``test_runner_stop`` fail now and then under load).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from p2p66.bots import external
from p2p66.bots.external import BotProcess


class Stopped(BaseException):
    """What the runner's signal handler raises (``RunStopped``), for this test."""


@pytest.mark.timeout(30)
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_signal_while_a_bot_starts_leaves_it_known_and_killable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = subprocess.Popen

    def slow_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real(*args, **kwargs)
        time.sleep(1.0)  # the parent's side of the start, long under load: the signal lands
        return proc

    monkeypatch.setattr(external.subprocess, "Popen", slow_popen)

    def handler(signum: int, frame: object) -> None:
        raise Stopped

    old = signal.signal(signal.SIGUSR1, handler)
    bot = BotProcess([sys.executable, "-c", "import time; time.sleep(60)"])
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1))
    timer.start()
    try:
        with pytest.raises(Stopped):
            bot.start()
    finally:
        timer.join()
        signal.signal(signal.SIGUSR1, old)
    assert bot.started, "the bot's process was started but lost"
    bot.kill()
    assert bot.stop(grace=10) == -signal.SIGKILL  # gone, and its pipes closed


@pytest.mark.timeout(30)
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_kill_from_a_signal_handler_during_a_start_kills_that_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker's SIGTERM handler kills its bots and exits: the one being started too."""
    real = subprocess.Popen

    def slow_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real(*args, **kwargs)
        time.sleep(1.0)
        return proc

    monkeypatch.setattr(external.subprocess, "Popen", slow_popen)
    bot = BotProcess([sys.executable, "-c", "import time; time.sleep(60)"])
    old = signal.signal(signal.SIGUSR1, lambda signum, frame: bot.kill())
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1))
    timer.start()
    try:
        bot.start()  # the handler's kill waited for this start, then killed its process
    finally:
        timer.join()
        signal.signal(signal.SIGUSR1, old)
    assert bot._proc is not None
    try:
        code = bot._proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None  # the kill missed it: the bot lives on
    bot.kill()
    bot.stop(grace=1)
    assert code == -signal.SIGKILL
