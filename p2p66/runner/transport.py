"""How a game reaches the bots: in this process, or over the full peer protocol.

The runner only needs ``play(spec, bot_a, bot_b) -> GameResult``. ``inproc``
referees with the engine directly (or, when replays are written, plays two
peers in memory, ``runner/memory.py``). ``loopback`` runs each game between two
peers on 127.0.0.1 with the mental-poker deal and signed moves, each peer
driven by its bot (``runner/loopback.py``); it is loaded lazily, and a
clear error says so if the peer layers cannot load.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

from p2p66.bots.api import Bot
from p2p66.runner.game import GameSpec, play_game
from p2p66.runner.records import GameResult

TRANSPORTS = ("inproc", "loopback")


class TransportUnavailable(RuntimeError):
    """The chosen transport cannot run here (a missing layer, not a bot's fault)."""


class GameTransport(Protocol):
    """Plays one game between two bots and reports the result."""

    name: str

    def play(self, spec: GameSpec, bot_a: Bot, bot_b: Bot) -> GameResult: ...


class InprocTransport:
    """The engine referees in this process: fastest, the default. With replays to write,
    two in-memory peers play instead, so each replay is a real signed transcript
    (``runner/memory.py``)."""

    name = "inproc"

    def play(self, spec: GameSpec, bot_a: Bot, bot_b: Bot) -> GameResult:
        if spec.replay_dir is not None:
            memory = importlib.import_module("p2p66.runner.memory")
            result: GameResult = memory.play_in_memory(spec, bot_a, bot_b)
            return result
        return play_game(spec, bot_a, bot_b)


class LoopbackTransport:
    """Both bots play as real peers over 127.0.0.1 through ``p2p66.session``."""

    name = "loopback"

    def __init__(self, play: Callable[[GameSpec, Bot, Bot], GameResult]) -> None:
        self._play = play

    def play(self, spec: GameSpec, bot_a: Bot, bot_b: Bot) -> GameResult:
        return self._play(spec, bot_a, bot_b)


def get_transport(name: str) -> GameTransport:
    """The transport called ``name``; TransportUnavailable when it cannot run yet."""
    if name == "inproc":
        return InprocTransport()
    if name == "loopback":
        try:
            loopback = importlib.import_module("p2p66.runner.loopback")
        except ImportError as exc:
            raise TransportUnavailable(
                f"--transport loopback is not available: the peer layers cannot load ({exc}); "
                "use --transport inproc"
            ) from None
        return LoopbackTransport(loopback.play_over_loopback)
    raise TransportUnavailable(f"unknown transport {name!r}; transports: {', '.join(TRANSPORTS)}")
