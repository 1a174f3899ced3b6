"""``p2p66 bot check``: play a few hands against an external bot and list every protocol fault.

Unlike a match, a check does not stop at the first fault: it records it,
plays a random legal move in the bot's place, restarts the bot if the
conversation cannot go on (a timeout, a crash, garbage), and keeps going,
so one run shows everything that is wrong. It also checks the handshake,
that an unknown message type is ignored, and that ``quit`` ends the process.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2p66.bots.api import BotFault, Turn
from p2p66.bots.external import BotProcess, ExternalBot
from p2p66.bots.random_bot import RandomBot
from p2p66.bots.table.external import ExternalTableBot
from p2p66.bots.table.simple import TableRandom
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.engine.options import PRESETS, RuleOptions
from p2p66.engine.table import BiddingOptions, new_bidding_hand, table_preset, table_view
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.engine.view import view_of
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable

CHECK_PRESETS = ("sixty-six", "schnapsen", "vu")
# The bidding games (their own view and bid:N / pass). three-handed needs no check of
# its own: its hands are two-player hands, requested exactly as above.
TABLE_CHECK_PRESETS = ("north-american", "cut-throat")


@dataclass(frozen=True, slots=True)
class CheckFault:
    """One thing the bot did wrong: its kind, where it happened, and what exactly."""

    kind: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} ({self.where}): {self.detail}"


@dataclass(slots=True)
class CheckReport:
    """Everything a check found; ``ok`` when there is no fault."""

    command: tuple[str, ...]
    name: str | None = None
    author: str | None = None
    hands: int = 0
    moves: int = 0
    slowest: float = 0.0
    faults: list[CheckFault] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults


Say = Callable[[str], None]


def check_bot(
    command: Sequence[str],
    *,
    hands_per_preset: int = 2,
    presets: Sequence[str] = CHECK_PRESETS,
    table_presets: Sequence[str] = (),
    movetime: float = 2.0,
    margin: float = 0.5,
    startup_timeout: float = 10.0,
    seed: int = 1,
    say: Say | None = None,
) -> CheckReport:
    """Run the compliance check of ``command``; ``say`` gets one line per step."""
    report = CheckReport(tuple(command))
    note = say or (lambda _text: None)
    _check_handshake(report, startup_timeout, note)
    if report.faults:
        return report  # no point playing with a bot that cannot say hello
    settings = _Settings(movetime, margin, startup_timeout, seed, random.Random(seed))
    for name in presets:
        for hand in range(hands_per_preset):
            where = f"{name} hand {hand + 1}"
            _check_hand(report, PRESETS[name], hand, where=where, settings=settings)
            note(f"{where}: {report.moves} moves answered, {len(report.faults)} faults so far")
    for name in table_presets:
        opts = table_preset(name)
        assert isinstance(opts, BiddingOptions)
        for hand in range(hands_per_preset):
            where = f"{name} hand {hand + 1}"
            _check_table_hand(report, opts, hand, where=where, settings=settings)
            note(f"{where}: {report.moves} moves answered, {len(report.faults)} faults so far")
    _check_quit(report, startup_timeout, note)
    return report


def _check_handshake(report: CheckReport, startup_timeout: float, note: Say) -> None:
    bot = ExternalBot(report.command, PRESETS["sixty-six"], startup_timeout=startup_timeout)
    try:
        ready = bot.handshake()
    except BotFault as fault:
        report.faults.append(CheckFault(fault.kind, "handshake", fault.detail))
        bot.close()
        return
    for key in ("name", "author"):
        value = ready.get(key)
        if not isinstance(value, str) or not value.strip():
            report.faults.append(
                CheckFault("protocol", "handshake", f"ready has no {key} (a non-empty string)")
            )
    report.name = ready.get("name") if isinstance(ready.get("name"), str) else None
    report.author = ready.get("author") if isinstance(ready.get("author"), str) else None
    note(f"handshake: ready from {report.name!r} by {report.author!r}")
    bot.close()


@dataclass(frozen=True, slots=True)
class _Settings:
    movetime: float
    margin: float
    startup_timeout: float
    seed: int
    rng: random.Random


def _check_hand(
    report: CheckReport, rules: RuleOptions, hand: int, *, where: str, settings: _Settings
) -> None:
    """One hand against ``random``; the bot sits in seat ``hand % 2``."""
    seat_bot = hand % 2
    rng = settings.rng
    bot: ExternalBot | None = ExternalBot(
        report.command, rules, margin=settings.margin, startup_timeout=settings.startup_timeout
    )
    assert bot is not None
    opponent = RandomBot(rng.getrandbits(32))
    table = HandTable.deal(rules, deal_deck(settings.seed, hand, 0, rules.deck_size), hand % 2)
    try:
        bot.start_game(seat_bot, rules)
        bot.process.send({"type": "x-unknown-extension", "note": "bots must ignore this"})
    except BotFault as fault:
        report.faults.append(CheckFault(fault.kind, f"{where}, start", fault.detail))
        bot.close()
        bot = None
    while not table.is_over:
        turn = table.turn(settings.movetime)
        if turn.seat != seat_bot:
            code = opponent.choose(turn).code
        else:
            at = f"{where}, move {len(table.log) + 1}"
            code, bot = _bot_move(report, bot, turn, at=at, rng=rng)
        table.play(code)
    report.hands += 1
    if bot is not None:
        try:
            bot.end_hand(view_of(table.state, seat_bot))
        except BotFault as fault:
            report.faults.append(CheckFault(fault.kind, f"{where}, hand_end", fault.detail))
        bot.close()


def _bot_move(
    report: CheckReport, bot: ExternalBot | None, turn: Turn, *, at: str, rng: random.Random
) -> tuple[int, ExternalBot | None]:
    """The bot's move, or a random stand-in after a fault (the bot is dropped if broken)."""
    legal = [m.code for m in turn.legal]
    if bot is None:
        return rng.choice(legal), None
    started = time.perf_counter()
    try:
        move = bot.choose(turn).move
    except BotFault as fault:
        report.faults.append(CheckFault(fault.kind, at, fault.detail))
        bot.close()
        return rng.choice(legal), None
    report.moves += 1
    report.slowest = max(report.slowest, time.perf_counter() - started)
    if move.code not in legal:
        shown = ", ".join(MOVE_NOTATION[c] for c in legal)
        report.faults.append(CheckFault("illegal", at, f"{move} is not legal; legal: {shown}"))
        return rng.choice(legal), bot
    return move.code, bot


def _check_table_hand(
    report: CheckReport, rules: BiddingOptions, hand: int, *, where: str, settings: _Settings
) -> None:
    """One hand of a bidding game; the bot sits in seat ``hand % players``, random elsewhere."""
    seat_bot = hand % rules.players
    rng = settings.rng
    bot: ExternalTableBot | None = ExternalTableBot(
        report.command,
        move_time=settings.movetime,
        margin=settings.margin,
        startup_timeout=settings.startup_timeout,
    )
    assert bot is not None
    others = TableRandom(rng.getrandbits(32))
    state = new_bidding_hand(rules, deal_deck(settings.seed, hand, 0, 24), hand % rules.players)
    try:
        bot.start_game(seat_bot, rules)
    except BotFault as fault:
        report.faults.append(CheckFault(fault.kind, f"{where}, start", fault.detail))
        bot.close()
        bot = None
    while not state.is_over:
        view = table_view(state, state.to_act)
        if state.to_act != seat_bot:
            state = state.apply(others.choose(view))
            continue
        at = f"{where}, move {len(state.history) + 1}"
        legal = list(view.legal)
        code = rng.choice(legal)
        if bot is not None:
            started = time.perf_counter()
            try:
                answer = bot.choose(view)
            except BotFault as fault:
                report.faults.append(CheckFault(fault.kind, at, fault.detail))
                bot.close()
                bot = None
            else:
                report.moves += 1
                report.slowest = max(report.slowest, time.perf_counter() - started)
                if answer in legal:
                    code = answer
                else:
                    shown = ", ".join(TABLE_NOTATION[c] for c in legal)
                    report.faults.append(
                        CheckFault(
                            "illegal", at, f"{TABLE_NOTATION[answer]} is not legal; legal: {shown}"
                        )
                    )
        state = state.apply(code)
    report.hands += 1
    if bot is not None:
        try:
            bot.end_hand(table_view(state, seat_bot))
        except BotFault as fault:
            report.faults.append(CheckFault(fault.kind, f"{where}, hand_end", fault.detail))
        bot.close()


def _check_quit(report: CheckReport, grace: float, note: Say) -> None:
    process = BotProcess(report.command)
    try:
        process.send({"type": "hello", "protocol": "p2p66-bot/1", "engine": "p2p66 check"})
        deadline = time.monotonic() + grace
        while process.receive(deadline - time.monotonic())["type"] != "ready":
            pass
        process.send({"type": "quit"})
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and not process.exited_by_itself():
            time.sleep(0.02)
        if not process.exited_by_itself():
            report.faults.append(
                CheckFault("protocol", "quit", "the bot did not exit within 2 s of quit")
            )
        else:
            note("quit: the bot exited")
    except BotFault as fault:
        report.faults.append(CheckFault(fault.kind, "quit", fault.detail))
    finally:
        process.stop(grace=0.2)
