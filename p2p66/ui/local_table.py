"""A table in this process: the engine deals and judges, a bot plays the other seat.

Randomness enters here and only here: each hand's deck is shuffled by one
seeded ``random.Random``, so a seed replays the same match. The bot runs in a
worker thread, so a slow search never freezes the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

from p2p66.engine import HandState, IllegalMoveError, Match, RuleOptions, view_of
from p2p66.engine.cards import CARDS, Card, deck_ids
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.ui.bots import BotContext, BotMoveError, TableBot
from p2p66.ui.table import (
    ConnectionStatus,
    HandOver,
    HandStarted,
    MatchOver,
    MovePlayed,
    Notice,
    PeerError,
    TableEvent,
    automatic,
)


class LocalTable:
    """Seat ``seat`` against ``bot``; see ``p2p66.ui.table.Table`` for the contract."""

    def __init__(
        self,
        options: RuleOptions,
        bot: TableBot,
        *,
        seed: int,
        names: tuple[str, str] = ("You", "Bot"),
        seat: int = 0,
        bot_delay: float = 0.0,
    ) -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        self._seat = seat
        self._names = names
        self._bot = bot
        self._bot_delay = bot_delay
        self._seed = seed
        self._rng = random.Random(seed)
        self._match = Match(options, first_dealer=self._rng.randrange(2))
        self._state: HandState | None = None
        self._moves: list[tuple[int, int]] = []  # (seat, code) this hand, for the bot
        self._events: asyncio.Queue[TableEvent] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._driver: asyncio.Task[None] | None = None
        self._closed = False
        self._over = False  # MatchOver was sent

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def names(self) -> tuple[str, str]:
        return self._names

    @property
    def failure(self) -> str | None:
        return None  # nothing between us and the bot can fail; a failing bot forfeits

    async def next_event(self) -> TableEvent:
        if self._driver is None:
            self._driver = asyncio.create_task(self._drive())
        return await self._events.get()

    async def submit(self, move_code: int) -> None:
        state = self._state
        if self._closed or state is None or state.is_over:
            raise IllegalMoveError(_notation(move_code), "no hand is being played")
        self._set_state(state.apply(move_code, seat=self._seat), self._seat, move_code)
        self._wake.set()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._driver is not None:
            self._driver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._driver
        self._bot.close()
        self._end(None)

    # ---------------------------------------------------------------- driving

    def _set_state(self, state: HandState, seat: int, code: int) -> None:
        self._state = state
        self._moves.append((seat, code))
        self._events.put_nowait(MovePlayed(seat, code, view_of(state, self._seat)))

    async def _drive(self) -> None:
        """Deal hands, let the bot move, record results, until the match is over."""
        self._events.put_nowait(ConnectionStatus("local"))
        self._events.put_nowait(
            Notice(f"Cards shuffled with seed {self._seed} (--seed deals them again).")
        )
        try:
            while not self._match.is_over:
                await self._play_hand()
        except BotMoveError as exc:
            self._events.put_nowait(PeerError(str(exc)))
            self._end(self._seat)  # the bot forfeits
            return
        self._end(self._match.winner)

    def _end(self, winner: int | None) -> None:
        """Send MatchOver, once."""
        if not self._over:
            self._over = True
            self._events.put_nowait(MatchOver(winner, self._match.game_points))

    async def _play_hand(self) -> None:
        deck = deck_ids(self._match.options.deck_size)
        self._rng.shuffle(deck)
        state = self._match.new_hand(deck)
        self._state = state
        self._moves = []
        first_trump = CARDS[state.trump_card]
        self._events.put_nowait(
            HandStarted(
                self._match.hand_number, view_of(state, self._seat), self._match.game_points
            )
        )
        while not state.is_over:
            if state.to_act == self._seat:
                code = automatic(view_of(state, self._seat))
                if code is not None:  # not worth asking: played for the player
                    self._set_state(state.apply(code, seat=self._seat), self._seat, code)
                else:
                    self._wake.clear()
                    await self._wake.wait()
            else:
                await self._bot_move(state, first_trump)
            state = self._current()
        assert state.result is not None
        self._bot.end_hand(view_of(state, 1 - self._seat))
        self._match = self._match.record(state.result)
        self._events.put_nowait(HandOver(state.result, self._match.game_points))

    async def _bot_move(self, state: HandState, first_trump: Card) -> None:
        bot_seat = 1 - self._seat
        view = view_of(state, bot_seat)
        context = BotContext(
            tuple(self._moves), first_trump, self._match.hand_number, self._match.game_points
        )
        if self._bot_delay:
            await asyncio.sleep(self._bot_delay)
        code = await asyncio.to_thread(self._bot.choose, view, context)
        try:
            nxt = state.apply(code, seat=bot_seat)
        except (IllegalMoveError, IndexError) as exc:
            name = self._names[bot_seat]
            raise BotMoveError(f"{name} (bot) made an illegal move and forfeits: {exc}") from None
        self._set_state(nxt, bot_seat, code)

    def _current(self) -> HandState:
        assert self._state is not None
        return self._state


def _notation(code: int) -> str:
    return MOVE_NOTATION[code] if 0 <= code < len(MOVE_NOTATION) else repr(code)
