"""``p2p66 bot serve NAME``: a built-in bot speaking ``protocol/BOT.md`` on stdin/stdout.

So another checkout's bots (an older version, a branch) can be matched
against this one's exactly as any external bot is::

    p2p66 match "python -m p2p66.cli.app bot serve strong" strong   # in the old checkout's venv

Each ``new_game`` builds the bot afresh, seeded by the serve seed and the
game's number, so a served bot plays as the in-process one does. A message
that cannot be parsed is reported on stderr and left unanswered (the
runner then forfeits the game by timeout): the fault is the runner's, and
the server carries on with the next message.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import IO, Any

from p2p66 import __version__
from p2p66.bots.api import Bot, BotError, as_action
from p2p66.bots.wire import PROTOCOL, WireError, turn_from_json, view_from_json
from p2p66.engine.errors import RuleOptionError
from p2p66.engine.options import RuleOptions

BotMaker = Callable[[int, RuleOptions], Bot]


def serve(
    name: str, make: BotMaker, *, seed: int = 1, stdin: IO[str], stdout: IO[str], stderr: IO[str]
) -> int:
    """Answer the runner's messages until ``quit`` or the end of input; returns the exit code."""
    server = _Server(name, make, seed, stdout, stderr)
    for line in stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise WireError("a message is a JSON object")
            if server.handle(message):
                break
        except (json.JSONDecodeError, WireError, RuleOptionError, BotError, KeyError) as exc:
            server.log(f"cannot use {line.strip()[:120]!r}: {exc}")
    server.close()
    return 0


class _Server:
    def __init__(
        self, name: str, make: BotMaker, seed: int, stdout: IO[str], stderr: IO[str]
    ) -> None:
        self.name = name
        self.make = make
        self.seed = seed
        self.stdout = stdout
        self.stderr = stderr
        self.rules: RuleOptions | None = None
        self.bot: Bot | None = None
        self.games = 0

    def send(self, message: dict[str, Any]) -> None:
        self.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        self.stdout.flush()

    def log(self, text: str) -> None:
        print(f"p2p66 bot serve {self.name}: {text}", file=self.stderr, flush=True)

    def handle(self, message: dict[str, Any]) -> bool:
        """Act on one message; True on ``quit``."""
        kind = message.get("type")
        if kind == "hello":
            self.send(
                {
                    "type": "ready",
                    "name": self.name,
                    "author": f"p2p66 {__version__}",
                    "protocol": PROTOCOL,
                }
            )
        elif kind == "new_game":
            self._new_game(message)
        elif kind == "request":
            self._request(message)
        elif kind == "hand_end" and self.bot is not None and self.rules is not None:
            self.bot.end_hand(view_from_json(message["view"], self.rules, []))
        elif kind == "quit":
            return True
        return False  # unknown types are ignored (BOT.md)

    def _new_game(self, message: dict[str, Any]) -> None:
        rules = RuleOptions.from_wire(message["rules"])
        seat = message["seat"]
        if seat not in (0, 1):
            raise WireError(f"seat must be 0 or 1, not {seat!r}")
        if self.bot is not None:
            self.bot.close()
        game_seed = random.Random(f"p2p66-serve:{self.seed}:{self.games}").getrandbits(63)
        self.games += 1
        self.rules = rules
        self.bot = self.make(game_seed, rules)
        self.bot.start_game(seat, rules)

    def _request(self, message: dict[str, Any]) -> None:
        if self.bot is None or self.rules is None:
            raise WireError("a request before any new_game")
        action = as_action(self.bot.choose(turn_from_json(message, self.rules)))
        reply: dict[str, Any] = {
            "type": "action",
            "id": message["id"],
            "move": action.move.notation,
        }
        if action.info:
            reply["info"] = dict(action.info)
        self.send(reply)

    def close(self) -> None:
        if self.bot is not None:
            self.bot.close()
