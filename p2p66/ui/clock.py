"""The move clock of a practice game (``p2p66 play --clock``): your time on this move and hand.

Only the player's own thinking is timed, from the moment a move is theirs to
make until it is played; the bot's moves and the pauses between hands are
not. Pure: the times come in as arguments (``time.monotonic`` in the UI,
plain numbers in the tests), so the clock shows exactly what was spent.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from p2p66.ui.screen import Screen
from p2p66.ui.table import HandStarted, MovePlayed, TableEvent


@dataclass(frozen=True, slots=True)
class MoveClock:
    """Seconds spent on this hand's played moves, the last move, and the turn under way."""

    hand: float = 0.0
    last: float = 0.0
    since: float | None = None  # when the move now due became the player's; None: not theirs

    def turn(self, now: float) -> MoveClock:
        """A move is the player's to make from ``now`` (a turn already running goes on)."""
        return self if self.since is not None else replace(self, since=now)

    def moved(self, now: float) -> MoveClock:
        """The player's move was played at ``now``: its time joins the hand's."""
        if self.since is None:
            return self
        spent = max(0.0, now - self.since)
        return MoveClock(hand=self.hand + spent, last=spent)

    def new_hand(self) -> MoveClock:
        """A new hand: its clock starts at zero."""
        return MoveClock()

    def reading(self, now: float) -> tuple[float, float]:
        """(this move, this hand) in seconds: the running move, else the last one played."""
        if self.since is None:
            return self.last, self.hand
        running = max(0.0, now - self.since)
        return running, self.hand + running

    def after(self, event: TableEvent, screen: Screen, now: float) -> MoveClock:
        """The clock once ``event`` made ``screen``: stopped when the player's move is
        played, started when a move is due (after winning a trick the next one is theirs
        at once: a new move, timed anew)."""
        clock = self.new_hand() if isinstance(event, HandStarted) else self
        if isinstance(event, MovePlayed) and event.seat == screen.voice.seat:
            clock = clock.moved(now)
        return clock.turn(now) if screen.my_turn else clock

    def sentence(self) -> str:
        """The last move's time in words, for ``--plain``."""
        move, hand = clock_text(self.last), clock_text(self.hand)
        return f"That move took {move}; this hand so far {hand}."

    def wordings(self, now: float) -> list[str]:
        """The clock for the status bar, longest first."""
        move, hand = (clock_text(s) for s in self.reading(now))
        return [f"move {move}, hand {hand}", f"{move}/{hand}"]


def clock_text(seconds: float) -> str:
    """``7`` -> ``0:07``; an hour or more -> ``1:02:03``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
