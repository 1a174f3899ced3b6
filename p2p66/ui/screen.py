"""Everything the screen shows, as one immutable value updated by table events.

``advance(screen, event)`` is the only way the UI's knowledge changes, and it
also returns the sentences the event deserves, so the log panel and
``--plain`` mode tell exactly the same story.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from p2p66.engine import HandResult, PlayerView
from p2p66.engine.cards import Card
from p2p66.ui.narrate import Voice, narrate
from p2p66.ui.scoresheet import SheetRow
from p2p66.ui.table import (
    ConnectionStatus,
    HandOver,
    HandStarted,
    MatchOver,
    MovePlayed,
    TableEvent,
    ViewChanged,
    automatic,
)

LOG_KEEP = 40
CONNECTING = ConnectionStatus("connecting")


@dataclass(frozen=True, slots=True)
class Screen:
    """The player's picture of the match between two events."""

    voice: Voice
    view: PlayerView | None = None
    hand_number: int = 0
    game_points: tuple[int, int] = (0, 0)
    log: tuple[str, ...] = ()
    connection: ConnectionStatus = CONNECTING
    result: HandResult | None = None
    match_over: MatchOver | None = None
    sheet: tuple[SheetRow, ...] = ()  # every hand that ended, for the score sheet
    moves: tuple[tuple[int, int], ...] = ()  # (seat, move code) of this hand so far: public
    first_trump: Card | None = None  # the trump card turned up at this hand's deal

    @property
    def my_turn(self) -> bool:
        """The player is to move (not for a move the table plays itself: ``automatic``)."""
        view = self.view
        return (
            view is not None
            and view.my_turn
            and self.match_over is None
            and (automatic(view) is None)
        )

    @property
    def match_target(self) -> int | None:
        return self.view.options.match_target if self.view is not None else None


_STEADY = ("connected", "waiting")


def _routine(before: ConnectionStatus, after: ConnectionStatus) -> bool:
    """A latency update, or the turn passing to and fro on a healthy link."""
    return before.state == after.state or (before.state in _STEADY and after.state in _STEADY)


def advance(screen: Screen, event: TableEvent) -> tuple[Screen, tuple[str, ...]]:
    """The screen after ``event``, and the sentences to log for it."""
    if isinstance(event, ConnectionStatus) and _routine(screen.connection, event):
        return replace(screen, connection=event), ()  # the status bar shows it; the log need not
    sentences = narrate(event, screen.view, screen.voice)
    log = (*screen.log, *sentences)[-LOG_KEEP:]
    if isinstance(event, HandStarted):
        new = replace(
            screen,
            view=event.view,
            hand_number=event.hand_number,
            game_points=event.game_points,
            result=None,
            moves=(),
            first_trump=event.view.trump_card,
        )
    elif isinstance(event, MovePlayed):
        new = replace(screen, view=event.view, moves=(*screen.moves, (event.seat, event.code)))
    elif isinstance(event, ViewChanged):
        new = replace(screen, view=event.view)
    elif isinstance(event, HandOver):
        row = SheetRow(screen.hand_number, event.result, event.game_points)
        new = replace(
            screen,
            result=event.result,
            game_points=event.game_points,
            sheet=(*screen.sheet, row),
        )
    elif isinstance(event, MatchOver):
        new = replace(screen, match_over=event, game_points=event.game_points)
    elif isinstance(event, ConnectionStatus):
        new = replace(screen, connection=event)
    else:
        new = screen
    return replace(new, log=log), sentences
