"""Play one game between two bots in this process: the runner's reference referee.

The referee owns the true state; each bot gets only its seat's ``Turn``.
Whatever a bot does wrong (an exception, a move that is not legal, a move
over the time limit plus margin) ends the game as a forfeit for that bot,
recorded with the reason, so a run never stops for one bad bot.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any, Literal

from p2p66.bots.api import Bot, BotFault, Turn, as_action
from p2p66.engine.match import Match
from p2p66.engine.moves import MOVE_NOTATION, Move
from p2p66.engine.options import RuleOptions
from p2p66.engine.state import HandState
from p2p66.engine.view import view_of
from p2p66.runner.deals import deal_deck
from p2p66.runner.records import FAULT_KINDS, FaultKind, Forfeit, GameResult, Side
from p2p66.runner.table import HandTable, first_trump

Mode = Literal["matches", "hands"]


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Seconds per move (None: unlimited) and the grace before a forfeit."""

    per_move: float | None = None
    margin: float = 0.05

    def over(self, seconds: float) -> bool:
        return self.per_move is not None and seconds > self.per_move + self.margin


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Which game to play: its number, its deal pair, where A sits, and the rules."""

    game: int
    pair: int
    a_seat: int
    seed: int
    options: RuleOptions
    mode: Mode = "matches"
    first_dealer: int = 0
    time: TimeControl = TimeControl()
    replay_dir: str | None = None  # each game's signed replay (.p66) is written here


class _Forfeited(Exception):
    def __init__(self, seat: int, kind: FaultKind, detail: str) -> None:
        super().__init__(detail)
        self.seat = seat
        self.kind = kind
        self.detail = detail


def play_game(spec: GameSpec, bot_a: Bot, bot_b: Bot) -> GameResult:
    """Referee one game and return its result (never raises for a bot's fault)."""
    seats: list[Bot] = [bot_a, bot_b] if spec.a_seat == 0 else [bot_b, bot_a]
    side_of: tuple[Side, Side] = ("a", "b") if spec.a_seat == 0 else ("b", "a")
    options = spec.options
    match = Match(options, first_dealer=spec.first_dealer)
    think = [0.0, 0.0]
    longest = [0.0, 0.0]
    moves = 0
    started = time.perf_counter()
    hand_no = 0
    forfeit: Forfeit | None = _start(seats, side_of, options)
    while forfeit is None:
        deck = deal_deck(spec.seed, spec.pair, hand_no, options.deck_size)
        table = HandTable(
            match.new_hand(deck),
            first_trump(options, deck),
            hand_number=hand_no + 1,
            match_points=match.game_points,
        )
        state = table.state
        try:
            while not state.is_over:
                seat = state.to_act
                turn = table.turn(spec.time.per_move)
                move, seconds = _ask(seats[seat], seat, turn, state, spec.time)
                think[seat] += seconds
                longest[seat] = max(longest[seat], seconds)
                table.play(move.code)
                moves += 1
        except _Forfeited as fault:
            forfeit = Forfeit(side_of[fault.seat], fault.kind, fault.detail)
        if forfeit is not None:
            break
        for seat in (0, 1):
            _notify_end(seats[seat], view_of(state, seat))
        assert state.result is not None
        match = match.record(state.result)
        hand_no += 1
        if spec.mode == "hands" or match.is_over:
            break
    points = match.game_points
    a_points = (points[spec.a_seat], points[1 - spec.a_seat])
    winner: Side | None
    if forfeit is not None:
        winner = "b" if forfeit.side == "a" else "a"
    elif spec.mode == "matches":
        winner = side_of[match.winner] if match.winner is not None else None
    else:
        last = match.results[-1].winner
        winner = None if last is None else side_of[last]
    a, b = spec.a_seat, 1 - spec.a_seat
    return GameResult(
        game=spec.game,
        pair=spec.pair,
        a_seat=spec.a_seat,
        winner=winner,
        points=a_points,
        hands=len(match.results) + (1 if forfeit is not None else 0),
        moves=moves,
        seconds=time.perf_counter() - started,
        think=(think[a], think[b]),
        max_move=(longest[a], longest[b]),
        forfeit=forfeit,
    )


def _start(seats: list[Bot], side_of: tuple[Side, Side], rules: RuleOptions) -> Forfeit | None:
    """Let both bots get ready, off the clock; a bot that cannot start forfeits."""
    for seat in (0, 1):
        try:
            seats[seat].start_game(seat, rules)
        except BotFault as fault:
            kind = fault.kind if fault.kind in FAULT_KINDS else "protocol"
            return Forfeit(side_of[seat], kind, f"at the start: {fault.detail}")
        except Exception as exc:
            return Forfeit(side_of[seat], "crash", f"at the start: {type(exc).__name__}: {exc}")
    return None


def _ask(
    bot: Bot, seat: int, turn: Turn, state: HandState, clock: TimeControl
) -> tuple[Move, float]:
    t0 = time.perf_counter()
    try:
        action = as_action(bot.choose(turn))
    except BotFault as fault:
        kind = fault.kind if fault.kind in FAULT_KINDS else "protocol"
        raise _Forfeited(seat, kind, fault.detail) from None
    except Exception as exc:  # a crashing bot forfeits; the run goes on
        raise _Forfeited(seat, "crash", f"{type(exc).__name__}: {exc}") from None
    seconds = time.perf_counter() - t0
    if clock.over(seconds):
        raise _Forfeited(
            seat, "timeout", f"took {seconds:.3f}s, limit {clock.per_move}s + {clock.margin}s"
        )
    move = action.move
    if not isinstance(move, Move) or move not in turn.legal:
        legal = ", ".join(MOVE_NOTATION[c] for c in state.legal_codes())
        raise _Forfeited(seat, "illegal", f"{move!s} is not legal here; legal: {legal}")
    return move, seconds


def _notify_end(bot: Bot, view: Any) -> None:
    with contextlib.suppress(Exception):  # bookkeeping failures are not faults of play
        bot.end_hand(view)
