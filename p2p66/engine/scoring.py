"""Who wins a finished hand and how many game points (RULES.md steps 7, 9, 10, rulings 3, 4, 9).

Kept apart from ``state.py`` so that the game-point arithmetic, the part
players argue about, reads as one page.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Final

from p2p66.engine.slots import is_native, slot_setters

if TYPE_CHECKING:
    from p2p66.engine.state import HandState


class Outcome(Enum):
    """What stopped play: a declaration, the cards running out open, or closed."""

    DECLARED = "declared"
    EXHAUSTED = "exhausted"
    RAN_OUT = "ran-out"


class HowEnded(Enum):
    """How the hand was decided, for results, replays and the UI."""

    DECLARED_66 = "declared-66"
    FALSE_DECLARATION = "false-declaration"
    CLOSER_SUCCEEDED = "closer-succeeded"
    CLOSER_FAILED = "closer-failed"
    LAST_TRICK = "last-trick"
    MORE_POINTS = "more-points"
    TIE = "tie"


@dataclass(frozen=True, slots=True, init=False)
class HandResult:
    """The result of one hand; ``winner`` is None only for a tie (``unclaimed_end = points``)."""

    winner: int | None
    game_points: int
    how: HowEnded
    card_points: tuple[int, int]
    tricks: tuple[int, int]
    declarer: int | None
    closer: int | None

    def __init__(  # noqa: PLR0917 - the signature dataclass would generate
        self,
        winner: int | None,
        game_points: int,
        how: HowEnded,
        card_points: tuple[int, int],
        tricks: tuple[int, int],
        declarer: int | None,
        closer: int | None,
    ) -> None:
        # One per hand, and a hand of random play is about twenty moves: see
        # p2p66.engine.slots for why this is written out.
        if _COMPILED:
            self.winner = winner  # type: ignore[misc]
            self.game_points = game_points  # type: ignore[misc]
            self.how = how  # type: ignore[misc]
            self.card_points = card_points  # type: ignore[misc]
            self.tricks = tricks  # type: ignore[misc]
            self.declarer = declarer  # type: ignore[misc]
            self.closer = closer  # type: ignore[misc]
            return
        f = _RESULT_SETTERS
        f[0](self, winner)
        f[1](self, game_points)
        f[2](self, how)
        f[3](self, card_points)
        f[4](self, tricks)
        f[5](self, declarer)
        f[6](self, closer)

    def describe(self, names: tuple[str, str] = ("Seat 0", "Seat 1")) -> str:
        """One sentence for people, e.g. 'Seat 0 declared 66 and scores 2 game points'."""
        if self.winner is None:
            return f"Tie at {self.card_points[0]} card points: nobody scores (+1 to the next hand)"
        w, loser = names[self.winner], names[1 - self.winner]
        gp = f"{self.game_points} game point{'s' if self.game_points != 1 else ''}"
        text = {
            HowEnded.DECLARED_66: f"{w} declared 66 and scores {gp}",
            HowEnded.FALSE_DECLARATION: f"{loser} declared 66 without having it; {w} scores {gp}",
            HowEnded.CLOSER_SUCCEEDED: f"{w} closed the talon, reached 66 and scores {gp}",
            HowEnded.CLOSER_FAILED: f"{loser} closed the talon but failed; {w} scores {gp}",
            HowEnded.LAST_TRICK: f"{w} won the last trick and scores {gp}",
            HowEnded.MORE_POINTS: f"{w} has more card points and scores {gp}",
        }[self.how]
        return f"{text} (card points {self.card_points[0]}-{self.card_points[1]})"


_RESULT_SETTERS: Final = slot_setters(HandResult)
_COMPILED: Final = is_native(HandResult)


def is_schwarz(state: HandState, tricks: int, points: int) -> bool:
    """The 3-game-point condition of the ``schwarz`` option for a loser's tricks/points."""
    return points == 0 if state.options.schwarz == "no-points" else tricks == 0


def winner_points(state: HandState, loser_tricks: int, loser_points: int) -> int:
    """Step 7: 3 if the loser is schwarz, 2 if under 33 card points, else 1."""
    if is_schwarz(state, loser_tricks, loser_points):
        return 3
    return 2 if loser_points < 33 else 1


def penalty_points(state: HandState, tricks: int, points: int) -> int:
    """False declaration / failed close: 2, or 3 if the scorer had won no trick."""
    return 3 if is_schwarz(state, tricks, points) else 2


def score_hand(state: HandState, outcome: Outcome, seat: int) -> HandResult:
    """Score a finished hand; ``seat`` is the declarer or the last trick's winner."""
    score, tricks = state.score, state.tricks
    closer = state.closer if state.closed else None
    winner: int | None
    declarer = seat if outcome is Outcome.DECLARED else None
    if closer is not None:
        winner, gp, how = _score_closed(state, outcome, seat, closer)
    elif outcome is Outcome.DECLARED:
        other = 1 - seat
        if score[seat] >= 66:
            winner, how = seat, HowEnded.DECLARED_66
            gp = winner_points(state, tricks[other], score[other])
        else:
            winner, how = other, HowEnded.FALSE_DECLARATION
            gp = penalty_points(state, tricks[other], score[other])
    else:
        winner, gp, how = _score_exhausted(state, seat)
    return HandResult(
        winner=winner,
        game_points=gp,
        how=how,
        card_points=(score[0], score[1]),
        tricks=(tricks[0], tricks[1]),
        declarer=declarer,
        closer=closer,
    )


def _score_closed(
    state: HandState, outcome: Outcome, seat: int, closer: int
) -> tuple[int, int, HowEnded]:
    """Step 10 and rulings 3-4: the closer succeeds only by declaring 66 truly."""
    opponent = 1 - closer
    snap_tricks, snap_points, _before_first = state.close_snapshot
    score, tricks = state.score, state.tricks
    if outcome is Outcome.DECLARED and seat == closer and score[closer] >= 66:
        if state.options.closer_scored_at == "close":
            return closer, winner_points(state, snap_tricks, snap_points), HowEnded.CLOSER_SUCCEEDED
        gp = winner_points(state, tricks[opponent], score[opponent])
        return closer, gp, HowEnded.CLOSER_SUCCEEDED
    if outcome is Outcome.DECLARED and seat == opponent and score[opponent] < 66:
        # Ruling 3: the non-closer's false declaration is scored by step 7.
        gp = penalty_points(state, tricks[closer], score[closer])
        return closer, gp, HowEnded.FALSE_DECLARATION
    # The closer failed: false declaration, opponent declared first, or cards ran out.
    return opponent, penalty_points(state, snap_tricks, snap_points), HowEnded.CLOSER_FAILED


def _score_exhausted(state: HandState, last_winner: int) -> tuple[int | None, int, HowEnded]:
    """Steps 8-9: the talon ran out and nobody declared."""
    opts = state.options
    score, tricks = state.score, state.tricks
    loser = 1 - last_winner
    if opts.exhausted_end == "last-trick-1":
        return last_winner, 1, HowEnded.LAST_TRICK
    if opts.exhausted_end == "unclaimed-end" and opts.unclaimed_end == "points":
        if score[0] == score[1]:
            return None, 0, HowEnded.TIE
        hi = 0 if score[0] > score[1] else 1
        return hi, winner_points(state, tricks[1 - hi], score[1 - hi]), HowEnded.MORE_POINTS
    return last_winner, winner_points(state, tricks[loser], score[loser]), HowEnded.LAST_TRICK
