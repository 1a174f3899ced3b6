"""External bot processes kept alive from one game to the next, as cutechess-cli does.

Starting a process per game costs a fork, an interpreter start and the
bot's own set-up (tables, networks) every time, and hides bugs that only
show in a long-lived bot. The protocol already frames games with
``new_game``, so each worker keeps one process per side and reuses it. A
process that faulted (timeout, crash, garbage, an illegal move) is never
reused: a late answer could land in the next game. Built-in bots are
cheap and seeded per game, so they are always built afresh.

Each external bot's stderr goes to a log file of its own in the run's bot
log directory (``--bot-logs``), named by side, bot and process, so a fault
message can say where to look.
"""

from __future__ import annotations

import multiprocessing.util
import os
import re
from pathlib import Path

from p2p66.bots.api import Bot
from p2p66.bots.registry import BotSpec, make_bot
from p2p66.engine.options import RuleOptions
from p2p66.runner.reaper import init_worker
from p2p66.runner.records import GameResult, Side


class BotKeeper:
    """The external bots of one worker, by side, between games (and every bot in play)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[Side, BotSpec], Bot] = {}
        self._live: list[Bot] = []
        self._started = 0

    def take(
        self,
        side: Side,
        spec: BotSpec,
        seed: int,
        rules: RuleOptions,
        *,
        margin: float,
        log_dir: str | None = None,
    ) -> Bot:
        """A bot for the next game: the kept process of this side, or a new one."""
        kept = self._kept.pop((side, spec), None)
        if kept is not None:
            return kept
        stderr = None
        if log_dir is not None and spec.kind == "external":
            self._started += 1
            stderr = bot_log_path(Path(log_dir), side, spec, self._started)
        bot = make_bot(spec, seed, rules, margin=margin, stderr=stderr)
        self._live.append(bot)
        return bot

    def give_back(self, side: Side, spec: BotSpec, bot: Bot, result: GameResult | None) -> None:
        """Keep a healthy external bot for the next game; close anything else."""
        healthy = result is not None and (result.forfeit is None or result.forfeit.side != side)
        if spec.kind == "external" and healthy:
            self._kept[(side, spec)] = bot
            return
        self._forget(bot)
        if result is None:
            bot.kill()  # the game was interrupted: no goodbye, no waiting
        else:
            bot.close()

    def _forget(self, bot: Bot) -> None:
        self._live = [b for b in self._live if b is not bot]

    def close_all(self) -> None:
        """Send every kept bot ``quit`` (at the end of a run, or when a worker exits)."""
        kept, self._kept = self._kept, {}
        for bot in kept.values():
            self._forget(bot)
            bot.close()

    def kill_all(self) -> None:
        """SIGKILL every bot process this keeper started (the run is being stopped)."""
        live, self._live, self._kept = self._live, [], {}
        for bot in live:
            bot.kill()


KEEPER = BotKeeper()
"""This process's keeper (each worker process of a parallel run has its own)."""


def bot_log_path(directory: Path, side: Side, spec: BotSpec, number: int) -> Path:
    """``DIR/a-mybot-4242-1.log``: side, the bot's command name, worker pid, process count."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(spec.name).name)[:40] or "bot"
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{side}-{stem}-{os.getpid()}-{number}.log"


def worker_start(parent: int) -> None:
    """Worker initialiser: quit the kept bots at exit; die (killing the bots) with the parent."""
    multiprocessing.util.Finalize(None, KEEPER.close_all, exitpriority=10)
    init_worker(parent, KEEPER.kill_all)
