"""The UI's ``Table`` for a match over the real peer protocol.

``NetworkTable`` runs a ``LiveGame`` for the human's seat and translates
session events into the UI's table events; ``submit`` checks a move with
the peer's own knowledge first, so an illegal entry costs nothing and never
leaves this machine. ``bot_decider`` turns a built-in bot into a ``Decider``
for the other end (a bot is a peer like any other).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from p2p66.engine import IllegalMoveError, PlayerView
from p2p66.engine.cards import CARDS
from p2p66.live.game import Decider, LiveGame, LiveGameError, Status, cancel_quietly
from p2p66.net.channel import SecureChannel
from p2p66.net.errors import PeerClosed, TransportError
from p2p66.session import events as ev
from p2p66.session.peer import Peer
from p2p66.ui.bots import BotContext, TableBot
from p2p66.ui.table import (
    ConnectionStatus,
    HandOver,
    HandStarted,
    MatchOver,
    MovePlayed,
    Notice,
    PeerError,
    TableEvent,
    ViewChanged,
    automatic,
)

_STATUS = {
    "your-turn": "connected",
    "waiting": "waiting",
    "reconnecting": "reconnecting",
    "connected": "connected",
}


def context_of(peer: Peer) -> BotContext:
    """The public record of the hand in progress, as bots expect it."""
    m = peer.machine
    hand = m.hand
    assert hand is not None and m.match is not None
    trump_pos = hand.public.layout.trump
    first = hand.public.card_at(trump_pos)
    moves = tuple(zip(hand.authors, hand.public.moves, strict=True))
    return BotContext(
        moves, CARDS[first if first is not None else 0], hand.number, m.match.game_points
    )


def bot_decider(peer: Peer, bot: TableBot, delay: float = 0.0) -> Decider:
    """A ``Decider`` that asks ``bot`` (in a worker thread, so the UI stays live).

    A decision can be cut short (the link drops while the bot thinks), but its
    thread cannot be stopped. So the bot is never asked two things at once: a
    new question waits for the old answer, and the same position asked again
    (after a reconnect) gets that answer instead of a second one.
    """
    last: tuple[PlayerView, asyncio.Future[int]] | None = None

    async def decide(view: PlayerView) -> int:
        nonlocal last
        if last is not None:
            asked, answer = last
            if asked == view:
                return await asyncio.shield(answer)
            await asyncio.wait([answer])
        if delay:
            await asyncio.sleep(delay)
        answer = asyncio.ensure_future(asyncio.to_thread(bot.choose, view, context_of(peer)))
        answer.add_done_callback(_retrieved)
        last = (view, answer)
        return await asyncio.shield(answer)

    return decide


def _retrieved(answer: asyncio.Future[int]) -> None:
    """Mark a bot's failure as seen even if nobody awaits it (it is reported when awaited)."""
    if not answer.cancelled():
        answer.exception()


class NetworkTable:
    """One human seat at a live match; see the module docstring."""

    def __init__(self, peer: Peer, names: tuple[str, str], replay_path: Path | None) -> None:
        self.peer = peer
        self._names = names
        self.replay_path = replay_path
        self._events: asyncio.Queue[TableEvent] = asyncio.Queue()
        self._pending: asyncio.Future[int] | None = None
        self._played = asyncio.Event()
        self._untold: list[tuple[int, int]] = []
        self._shown: PlayerView | None = None  # the view the last event carried
        self._over = False
        self.game: LiveGame | None = None
        self.task: asyncio.Task[None] | None = None
        self.verify: Callable[[Path, int | None], str] | None = None
        """The verdict on the replay, told to the player at a seat ("you win the match")."""
        self.leave_reason = "left the match"
        """What a resignation on leaving says (a signal sets it before the screen is stopped)."""
        self.local = False
        """The opponent is a bot on this computer (``p2p66 play``): no link to speak of."""
        self.failure: str | None = None
        """Why the match stopped early (a ``LiveGameError`` kind, "transport"), if it did."""

    @property
    def seat(self) -> int:
        return self.peer.seat

    @property
    def names(self) -> tuple[str, str]:
        return self._names

    # --------------------------------------------------------------- Table

    async def next_event(self) -> TableEvent:
        return await self._events.get()

    async def submit(self, move_code: int) -> None:
        if self._pending is not None and self._pending.cancelled():
            # the link ended while we chose: the same turn is asked again once it is back
            raise IllegalMoveError(str(move_code), "the connection is down: wait until it is back")
        if self._pending is None or self._pending.done():
            raise IllegalMoveError(str(move_code), "it is not your turn")
        hand = self.peer.machine.hand
        assert hand is not None
        hand.state.check_legal(move_code)
        self._played = asyncio.Event()
        self._pending.set_result(move_code)
        # Return once the move is applied and its event queued, as a local table does,
        # so a screen never reads the next line against the view from before the move.
        await self._played.wait()

    async def close(self, reason: str | None = None) -> None:
        """Leave: a match under way is resigned (a signed record the other side gets at once)."""
        reason = reason or self.leave_reason
        running = self.task is not None and not self.task.done()
        if self.task is not None and running:
            await cancel_quietly(self.task)
        if self.game is not None and running:
            await self.game.leave(reason)
        path = self.replay_path
        if running and path is not None and path.exists():  # leaving early loses nothing
            verdict = f"The replay so far is in {path}."
            if self.verify is not None:
                verdict = await asyncio.to_thread(self.verify, path, self.seat)
            self._events.put_nowait(Notice(verdict))
        m = self.peer.machine
        self._finish(1 - self.seat if m.resigned == self.seat else None)

    # --------------------------------------------------------------- wiring

    async def decide(self, view: PlayerView) -> int:
        code = automatic(view)
        if code is not None:  # not worth asking the player (going on short of 66)
            return code
        loop = asyncio.get_running_loop()
        self._pending = loop.create_future()
        if view != self._shown:  # after their move, MovePlayed already carried this view
            self._show(ViewChanged(view))
        return await self._pending

    def _show(self, event: HandStarted | MovePlayed | ViewChanged) -> None:
        self._shown = event.view
        self._events.put_nowait(event)

    def _tell_moves(self) -> None:
        view = self.peer.view()
        if view is None:
            return
        for seat, code in self._untold:
            self._show(MovePlayed(seat, code, view))
        self._untold.clear()

    def on_status(self, status: Status) -> None:
        self._tell_moves()
        state = _STATUS.get(status.state, "connected")
        if self.local and state in ("connected", "waiting"):
            # a bot on this computer: its loopback link's health and latency mean nothing
            self._events.put_nowait(ConnectionStatus("local"))
            return
        self._events.put_nowait(ConnectionStatus(state, status.latency_ms))  # type: ignore[arg-type]

    def on_event(self, event: ev.Event) -> None:
        peer = self.peer
        m = peer.machine
        if isinstance(event, ev.DealComplete) and m.match is not None:
            view = peer.view()
            if view is not None:
                self._show(HandStarted(event.number, view, m.match.game_points))
        elif isinstance(event, ev.MoveMade):
            # A move that gives us a card we cannot see yet (a draw waiting for the
            # other player's key) is told once the key is here, with the true hand.
            self._untold.append((event.seat, event.code))
            self._tell_moves()
            if event.seat == self.seat:
                self._played.set()
        elif isinstance(event, ev.HandEnded):
            self._tell_moves()
            self._events.put_nowait(HandOver(event.result, event.game_points))
        elif isinstance(event, ev.AuditCalled):
            self._events.put_nowait(
                Notice(f"Hand {event.number} stops for an audit: {event.reason}")
            )
        elif isinstance(event, ev.Resigned):
            who = "You" if event.seat == self.seat else self._names[event.seat]
            self._events.put_nowait(Notice(f"{who} resigned: {event.reason}."))
        elif isinstance(event, ev.RulesRefused):
            # Only the joiner (seat 1) answers the rules.
            if self.seat == 1:
                text = "You refused the rules: no match is played."
            else:
                text = f"{self._names[1]} refused the rules ({event.reason}): no match is played."
            self._events.put_nowait(Notice(text))

    async def run(
        self, game: LiveGame, open_channel: Callable[[], Awaitable[SecureChannel]]
    ) -> None:
        """Drive the game; every ending becomes table events (never an exception)."""
        self.game = game
        try:
            await game.run(await open_channel())
        except LiveGameError as exc:
            self.failure = exc.kind
            if isinstance(exc.__cause__, PeerClosed):  # not a problem: a decision of theirs
                why = exc.__cause__.reason or "no reason given"
                opponent = self._names[1 - self.seat]
                self._events.put_nowait(Notice(f"{opponent} left the match ({why})."))
            else:
                self._events.put_nowait(PeerError(str(exc)))
        except (TransportError, OSError) as exc:
            self.failure = "transport"
            self._events.put_nowait(PeerError(f"could not connect: {exc}"))
        except Exception as exc:  # any other failure is still shown, never swallowed
            self.failure = "internal"
            self._events.put_nowait(PeerError(f"the match stopped: {type(exc).__name__}: {exc}"))
        if self.replay_path is not None and self.verify is not None:
            verdict = await asyncio.to_thread(self.verify, self.replay_path, self.seat)
            self._events.put_nowait(Notice(verdict))
        m = self.peer.machine
        self._finish(m.match.winner if m.match is not None else None)

    def _finish(self, winner: int | None) -> None:
        self._played.set()  # nobody waits for a move that will never be applied
        if self._over:
            return
        self._over = True
        m = self.peer.machine
        points = m.match.game_points if m.match is not None else (0, 0)
        self._events.put_nowait(MatchOver(winner, points, m.resigned))
