"""External bots for the bidding games: the same child-process pipe as two-player bots.

The conversation of ``protocol/BOT.md`` unchanged (hello/ready, new_game,
request/action, hand_end, quit); only the ``request``'s view and legal moves
are those of a bidding game (``"game": "bidding"``, ``bid:N`` and ``pass``).
The runner counts the hands since ``new_game`` to tell the bot each
request's ``hand_number``, as the two-player request does.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from p2p66.bots.api import BotFault
from p2p66.bots.external import STARTUP_TIMEOUT, UNLIMITED_MOVE_CAP, BotProcess, handshake
from p2p66.bots.table.api import TableBot
from p2p66.bots.table.wire import (
    TABLE_NOTATION_TO_CODE,
    table_request_json,
    table_view_json,
)
from p2p66.engine.table import BiddingOptions, TableView, table_preset_name


class ExternalTableBot(TableBot):
    """A bot in another process playing one seat of a bidding game."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str | None = None,
        move_time: float | None = None,
        margin: float = 0.05,
        startup_timeout: float = STARTUP_TIMEOUT,
    ) -> None:
        self.process = BotProcess(command)
        self.name = name or " ".join(command)
        self.move_time = move_time
        self.margin = margin
        self.startup_timeout = startup_timeout
        self.hello: dict[str, Any] | None = None
        self._game: BiddingOptions | None = None
        self._next_id = 1
        self._hands_ended = 0  # since the last new_game

    def handshake(self) -> dict[str, Any]:
        if self.hello is None:
            self.hello = handshake(self.process, self.startup_timeout)
        return self.hello

    def start_game(self, seat: int, rules: BiddingOptions) -> None:
        self.handshake()
        self.process.send(
            {
                "type": "new_game",
                "game": "bidding",
                "seat": seat,
                "players": rules.players,
                "preset": table_preset_name(rules),
                "rules": rules.to_dict(),
            }
        )
        self._game = rules
        self._hands_ended = 0

    def choose(self, view: TableView) -> int:
        if self._game is None:
            self.start_game(view.seat, view.options)
        request_id = self._next_id
        self._next_id += 1
        hand_number = self._hands_ended + 1
        self.process.send(
            table_request_json(view, request_id, self.move_time, self.margin, hand_number)
        )
        limit = self.move_time if self.move_time is not None else UNLIMITED_MOVE_CAP
        deadline = time.monotonic() + limit + self.margin
        while True:
            message = self.process.receive(deadline - time.monotonic())
            if message["type"] == "action":
                return parse_table_action(message, request_id)

    def end_hand(self, view: TableView) -> None:
        if self._game is not None:
            self.process.send(
                {"type": "hand_end", "game": "bidding", "view": table_view_json(view)}
            )
            self._hands_ended += 1

    def close(self) -> None:
        self.process.stop()


def parse_table_action(message: dict[str, Any], request_id: int) -> int:
    """The move code of an ``action`` answering ``request_id``; BotFault if malformed."""
    if message.get("id") != request_id:
        raise BotFault(
            "protocol", f"action answers request {message.get('id')!r}, expected {request_id}"
        )
    text = message.get("move")
    if not isinstance(text, str) or text not in TABLE_NOTATION_TO_CODE:
        raise BotFault(
            "protocol", f"move {text!r} is not in RULES.md notation (e.g. 'bid:2', 'play:TH')"
        )
    return TABLE_NOTATION_TO_CODE[text]
