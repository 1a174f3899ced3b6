"""External bot processes kept alive from one game to the next, as cutechess-cli does.

Starting a process per game costs a fork, an interpreter start and the
bot's own set-up (tables, networks) every time, and hides bugs that only
show in a long-lived bot. The protocol already frames games with
``new_game``, so each worker keeps one process per side and reuses it. A
process that faulted (timeout, crash, garbage, an illegal move) is never
reused: a late answer could land in the next game. Built-in bots are
cheap and seeded per game, so they are always built afresh.
"""

from __future__ import annotations

import multiprocessing.util

from p2p66.bots.api import Bot
from p2p66.bots.registry import BotSpec, make_bot
from p2p66.engine.options import RuleOptions
from p2p66.runner.records import GameResult, Side


class BotKeeper:
    """The external bots of one worker, by side, between games."""

    def __init__(self) -> None:
        self._kept: dict[tuple[Side, BotSpec], Bot] = {}

    def take(self, side: Side, spec: BotSpec, seed: int, rules: RuleOptions, margin: float) -> Bot:
        """A bot for the next game: the kept process of this side, or a new one."""
        kept = self._kept.pop((side, spec), None)
        if kept is not None:
            return kept
        return make_bot(spec, seed, rules, margin=margin)

    def give_back(self, side: Side, spec: BotSpec, bot: Bot, result: GameResult | None) -> None:
        """Keep a healthy external bot for the next game; close anything else."""
        healthy = result is not None and (result.forfeit is None or result.forfeit.side != side)
        if spec.kind == "external" and healthy:
            self._kept[(side, spec)] = bot
        else:
            bot.close()

    def close_all(self) -> None:
        """Send every kept bot ``quit`` (at the end of a run, or when a worker exits)."""
        kept, self._kept = self._kept, {}
        for bot in kept.values():
            bot.close()


KEEPER = BotKeeper()
"""This process's keeper (each worker process of a parallel run has its own)."""


def close_at_exit() -> None:
    """Worker initialiser: quit the kept bots when the worker process ends."""
    multiprocessing.util.Finalize(None, KEEPER.close_all, exitpriority=10)
