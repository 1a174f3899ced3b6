"""``p2p66 bot check``: play an external bot the way ``match`` does and list every fault.

One process per preset (two-player and bidding games alike) plays whole
matches one after the other, exactly as a match run keeps a bot: a
second ``new_game``, hands after the first (``hand_number`` above 1,
match points that are not 0), requests after a ``hand_end``, request ids
counting up across games. Unlike a match, a
check does not stop at the first fault: it records it, plays a random
legal move in the bot's place, replaces the process if the conversation
cannot go on (a timeout, a crash, garbage), and keeps going, so one run
shows everything that is wrong. It also checks the handshake, that an
unknown message type is ignored, that ``quit`` ends the process, and that
the end of its input does too (how a bot learns that its runner died).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from p2p66.bots.api import BotFault, Turn
from p2p66.bots.external import QUIT_GRACE, BotProcess, ExternalBot
from p2p66.bots.random_bot import RandomBot
from p2p66.bots.table.external import ExternalTableBot
from p2p66.bots.table.simple import TableRandom
from p2p66.bots.wire import PROTOCOL
from p2p66.engine.match import Match
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.engine.options import PRESETS, RuleOptions
from p2p66.engine.table import BiddingOptions, TableMatch, TableView, table_preset, table_view
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.engine.view import view_of
from p2p66.runner.deals import deal_deck
from p2p66.runner.table import HandTable, first_trump

B = TypeVar("B", bound="_Process")

CHECK_PRESETS = ("sixty-six", "schnapsen", "vu")
# The bidding games (their own view and bid:N / pass), whole matches too. three-handed
# needs no check of its own: its hands are two-player hands, requested exactly as above.
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
    games_per_preset: int = 2,
    presets: Sequence[str] = CHECK_PRESETS,
    table_presets: Sequence[str] = (),
    movetime: float = 2.0,
    margin: float = 0.5,
    startup_timeout: float = 10.0,
    seed: int = 1,
    say: Say | None = None,
) -> CheckReport:
    """Run the compliance check of ``command``; ``say`` gets one line per step.

    Per preset one process plays ``games_per_preset`` whole matches, as a
    match run does: ``new_game`` again for each, hands after the first
    (``hand_number`` > 1, match points not 0), requests after ``hand_end``.
    Each bidding-game preset of ``table_presets`` is then played the same
    way: one process for ``games_per_preset`` whole matches.
    """
    report = CheckReport(tuple(command))
    note = say or (lambda _text: None)
    _check_handshake(report, startup_timeout, note)
    if report.faults:
        return report  # no point playing with a bot that cannot say hello
    settings = _Settings(movetime, margin, startup_timeout, seed, random.Random(seed))
    for name in presets:
        rules = PRESETS[name]
        player = _Player(report, settings, rules)
        for game in range(games_per_preset):
            where = f"{name} game {game + 1}"
            _check_game(report, player, rules, game, where=where, settings=settings)
            note(f"{where}: {report.moves} moves answered, {len(report.faults)} faults so far")
        player.close()
    for name in table_presets:
        opts = table_preset(name)
        assert isinstance(opts, BiddingOptions)
        table_player = _TablePlayer(report, settings)
        for game in range(games_per_preset):
            where = f"{name} game {game + 1}"
            _check_table_game(report, table_player, opts, game, where=where, settings=settings)
            note(f"{where}: {report.moves} moves answered, {len(report.faults)} faults so far")
        table_player.close()
    _check_quit(report, startup_timeout, note)
    _check_end_of_input(report, startup_timeout, note)
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


class _Process(Protocol):
    process: BotProcess

    def close(self) -> None: ...


class _Conversation(Generic[B]):
    """The bot under test: one process for many games, replaced only after a fault."""

    def __init__(self, report: CheckReport, settings: _Settings) -> None:
        self.report = report
        self.settings = settings
        self.bot: B | None = None

    def start(self) -> B:
        raise NotImplementedError

    def running(self) -> B:
        if self.bot is None:
            self.bot = self.start()
        return self.bot

    def fault(self, kind: str, where: str, detail: str, *, broken: bool) -> None:
        """Record a fault; a broken conversation means a fresh process from here on."""
        self.report.faults.append(CheckFault(kind, where, detail))
        if broken and self.bot is not None:
            self.bot.process.kill()
            self.bot.close()
            self.bot = None

    def close(self) -> None:
        if self.bot is not None:
            self.bot.close()
            self.bot = None


class _Player(_Conversation[ExternalBot]):
    """A two-player bot under test."""

    def __init__(self, report: CheckReport, settings: _Settings, rules: RuleOptions) -> None:
        super().__init__(report, settings)
        self.rules = rules

    def start(self) -> ExternalBot:
        return ExternalBot(
            self.report.command,
            self.rules,
            margin=self.settings.margin,
            startup_timeout=self.settings.startup_timeout,
        )


MAX_CHECK_HANDS = 30  # a match to 7 takes 3 to 7 hands; this is only a guard
# Random partners are often set, so a bidding match against them may never reach its
# target; every protocol point (hand_number > 1, marks, hand_end) comes well before this.
MAX_CHECK_TABLE_HANDS = 12


def _check_game(
    report: CheckReport,
    player: _Player,
    rules: RuleOptions,
    game: int,
    *,
    where: str,
    settings: _Settings,
) -> None:
    """One whole match against ``random``; the bot sits in seat ``game % 2``."""
    seat_bot = game % 2
    rng = settings.rng
    opponent = RandomBot(rng.getrandbits(32))
    try:
        bot = player.running()
        bot.start_game(seat_bot, rules)
        bot.process.send({"type": "x-unknown-extension", "note": "bots must ignore this"})
    except BotFault as fault:
        player.fault(fault.kind, f"{where}, start", fault.detail, broken=True)
    match = Match(rules, first_dealer=game % 2)
    hand = 0
    while not match.is_over and hand < MAX_CHECK_HANDS:
        deck = deal_deck(settings.seed, game, hand, rules.deck_size)
        table = HandTable(
            match.new_hand(deck),
            first_trump(rules, deck),
            hand_number=hand + 1,
            match_points=match.game_points,
        )
        at_hand = f"{where} hand {hand + 1}"
        while not table.is_over:
            turn = table.turn(settings.movetime)
            if turn.seat != seat_bot:
                code = opponent.choose(turn).code
            else:
                code = _bot_move(report, player, turn, at=at_hand, rng=rng)
            table.play(code)
        report.hands += 1
        if player.bot is not None:
            try:
                player.bot.end_hand(view_of(table.state, seat_bot))
            except BotFault as fault:
                player.fault(fault.kind, f"{at_hand}, hand_end", fault.detail, broken=True)
        assert table.state.result is not None
        match = match.record(table.state.result)
        hand += 1


def _bot_move(
    report: CheckReport,
    player: _Player,
    turn: Turn,
    *,
    at: str,
    rng: random.Random,
) -> int:
    """The bot's move, or a random stand-in after a fault (a fresh process joins next game)."""
    legal = [m.code for m in turn.legal]
    at = f"{at}, move {len(turn.moves) + 1}"
    if player.bot is None:
        return rng.choice(legal)
    started = time.perf_counter()
    try:
        move = player.bot.choose(turn).move
    except BotFault as fault:
        player.fault(fault.kind, at, fault.detail, broken=True)
        return rng.choice(legal)
    report.moves += 1
    report.slowest = max(report.slowest, time.perf_counter() - started)
    if move.code not in legal:
        shown = ", ".join(MOVE_NOTATION[c] for c in legal)
        player.fault("illegal", at, f"{move} is not legal; legal: {shown}", broken=False)
        return rng.choice(legal)
    return move.code


def _check_end_of_input(report: CheckReport, grace: float, note: Say) -> None:
    """A bot whose stdin closes (its runner died) must exit by itself within 2 s."""
    _check_exit(
        report,
        grace,
        note,
        where="end of input",
        cause="stdin closing",
        stop=BotProcess.close_input,
    )


class _TablePlayer(_Conversation[ExternalTableBot]):
    """The bot under test in a bidding game (a fresh process from the next match on a fault)."""

    def start(self) -> ExternalTableBot:
        return ExternalTableBot(
            self.report.command,
            move_time=self.settings.movetime,
            margin=self.settings.margin,
            startup_timeout=self.settings.startup_timeout,
        )


def _check_table_game(
    report: CheckReport,
    player: _TablePlayer,
    rules: BiddingOptions,
    game: int,
    *,
    where: str,
    settings: _Settings,
) -> None:
    """One match of a bidding game (to its end, or MAX_CHECK_TABLE_HANDS hands); the bot
    sits in seat ``game % players``, random elsewhere, and after a fault its seat is played
    at random to the end of the match."""
    seat_bot = game % rules.players
    rng = settings.rng
    others = TableRandom(rng.getrandbits(32))
    try:
        bot = player.running()
        bot.start_game(seat_bot, rules)
        bot.process.send({"type": "x-unknown-extension", "note": "bots must ignore this"})
    except BotFault as fault:
        player.fault(fault.kind, f"{where}, start", fault.detail, broken=True)
    match = TableMatch(rules, first_dealer=game % rules.players)
    while not match.is_over and match.hand_number <= MAX_CHECK_TABLE_HANDS:
        at_hand = f"{where} hand {match.hand_number}"
        deck = deal_deck(settings.seed, game, match.hand_number - 1, 24)
        state = match.new_hand(deck)
        while not state.is_over:
            view = table_view(state, state.to_act, match.scores)
            if state.to_act != seat_bot:
                state = state.apply(others.choose(view))
            else:
                state = state.apply(_table_bot_move(report, player, view, at=at_hand, rng=rng))
        report.hands += 1
        if player.bot is not None:
            try:
                player.bot.end_hand(table_view(state, seat_bot, match.scores))
            except BotFault as fault:
                player.fault(fault.kind, f"{at_hand}, hand_end", fault.detail, broken=True)
        assert state.result is not None
        match = match.record(state.result)


def _table_bot_move(
    report: CheckReport, player: _TablePlayer, view: TableView, *, at: str, rng: random.Random
) -> int:
    """The bot's move in a bidding game, or a random stand-in after a fault."""
    legal = list(view.legal)
    at = f"{at}, move {len(view.moves) + 1}"
    if player.bot is None:
        return rng.choice(legal)
    started = time.perf_counter()
    try:
        answer = player.bot.choose(view)
    except BotFault as fault:
        player.fault(fault.kind, at, fault.detail, broken=True)
        return rng.choice(legal)
    report.moves += 1
    report.slowest = max(report.slowest, time.perf_counter() - started)
    if answer not in legal:
        shown = ", ".join(TABLE_NOTATION[c] for c in legal)
        detail = f"{TABLE_NOTATION[answer]} is not legal; legal: {shown}"
        player.fault("illegal", at, detail, broken=False)
        return rng.choice(legal)
    return answer


def _check_quit(report: CheckReport, grace: float, note: Say) -> None:
    """A bot must exit within 2 s of ``quit``."""
    _check_exit(
        report, grace, note, where="quit", cause="quit", stop=lambda p: p.send({"type": "quit"})
    )


def _check_exit(
    report: CheckReport,
    grace: float,
    note: Say,
    *,
    where: str,
    cause: str,
    stop: Callable[[BotProcess], None],
) -> None:
    """Start a fresh process, shake hands, ``stop`` it, and see that it exits in time."""
    process = BotProcess(report.command)
    try:
        process.send({"type": "hello", "protocol": PROTOCOL, "engine": "p2p66 check"})
        deadline = time.monotonic() + grace
        while process.receive(deadline - time.monotonic())["type"] != "ready":
            pass
        stop(process)
        deadline = time.monotonic() + QUIT_GRACE
        while time.monotonic() < deadline and not process.exited_by_itself():
            time.sleep(0.02)
        if process.exited_by_itself():
            note(f"{where}: the bot exited")
        else:
            detail = f"the bot did not exit within {QUIT_GRACE:g} s of {cause}"
            report.faults.append(CheckFault("protocol", where, detail))
    except BotFault as fault:
        report.faults.append(CheckFault(fault.kind, where, fault.detail))
    finally:
        process.kill()
        process.stop(grace=0.2)
