"""``p2p66 host --preset north-american ...`` and ``p2p66 join --table CODE``: a whole match.

The typer layer of ``p2p66.live.tablelobby`` (the seating) and
``p2p66.live.tablenet`` (the match over the star): it prints, asks, and maps
the outcome to an exit code: 0 played to the end, 3 a seat's connection was
lost (the match is abandoned by it) or another seat resigned, 4 a seat (or
the relaying host) cheated or broke the protocol, 7 the person at this seat
left before the end (a signed resignation: ``q``, SIGTERM, SIGHUP). The
replay so far is kept in every case. A person at a seat (no ``--bot``) plays
on the very screens of ``play --preset`` (``live.netseat``): the full
screen, or ``--plain`` lines when asked or piped.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import typer

from p2p66.cli.exits import (
    EXIT_CHEAT,
    EXIT_LEFT,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_REPLAY,
    EXIT_USAGE,
)
from p2p66.cli.leaving import BOT_LEAVE_SIGNALS, LEAVE_SIGNALS
from p2p66.cli.signals import REASONS, on_signals
from p2p66.cli.table_bots import bot_chooser
from p2p66.cli.table_options import screen_style
from p2p66.engine.table import TableOptions
from p2p66.live.hostresume import (
    BotSeat,
    HostFiles,
    HostMatch,
    RejoinQueue,
    forget_host,
    host_match_kept,
    restart_hosted,
    start_hosted,
)
from p2p66.live.loopback import replay_path
from p2p66.live.netseat import NetSeatTable
from p2p66.live.resume import ResumeError, restore
from p2p66.live.starlink import GRACE, Notify, Rejoins
from p2p66.live.tableleave import Leaving
from p2p66.live.tablelobby import (
    TableHosting,
    bot_identities,
    host_seated_table,
    join_seated_table,
    lines_of_seating,
    open_table_listener,
    seating_lines,
    take_back_only_seated,
)
from p2p66.live.tablenet import (
    Chooser,
    Dropouts,
    HostedSeats,
    TableEnd,
    options_of,
    peer_for,
    play_hosted,
    play_joined,
)
from p2p66.live.tableresume import (
    TableMatch,
    dial_within,
    forget_table,
    fresh_secrets,
    redial_host,
    stored_secrets,
    table_match_kept,
)
from p2p66.net.errors import TransportError
from p2p66.net.identity import Identity, load_or_create_identity
from p2p66.net.joincode import JoinCodeError, parse_join_code
from p2p66.net.lobby import SeatingRefused, Table
from p2p66.net.seating import Seating
from p2p66.net.tcp import Listener
from p2p66.replay.fileio import ReplayWriter
from p2p66.session.headacks import HOST_SEAT
from p2p66.session.peer import Peer
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.screens import play_plain
from p2p66.ui.multi.terminal import MultiTerminal
from p2p66.ui.multi.typeahead import TypeAhead, leaves
from p2p66.ui.plain import StdinLines
from p2p66.ui.race import before


def _say(text: str) -> None:
    typer.echo(text, err=True)


def _show_code(code: str) -> None:
    print(code, flush=True)


@dataclass(frozen=True, slots=True)
class TablePlayer:
    """How this process plays its seat: ``bot`` (None: the person at the terminal, in the
    full screen or ``plain`` lines, ``ascii`` only if asked), where the replay goes, and
    the match target the host proposes."""

    bot: str | None
    seed: int
    replay_dir: Path | None = None
    target: int | None = None
    grace: float = GRACE
    """Seconds a dropped seat has to reconnect before the match ends as abandoned by it."""
    plain: bool = False
    ascii: bool = False


def _link_teller(seat_model: NetSeatTable, table: Table, grace: float) -> Notify:
    """What the person at this seat hears of the others' links (the host's notices): a
    line, or on the full screen a line of the story (a printed line would tear it)."""
    names = tuple(p.name for p in table.seating.seats)

    def tell(seat: int, state: str) -> None:
        who = "the host" if seat == 0 else f"seat {seat} ({names[seat]})"
        if state == "reconnecting":
            line = f"{who}: connection lost, reconnecting (waiting up to {grace:g} s) ..."
        elif state == "back":
            line = f"{who}: reconnected, the match goes on."
        elif state == "gone":
            line = f"{who} did not come back within {grace:g} s."
        else:
            return
        told(line)

    told = _teller(seat_model)
    return tell


def _teller(seat_model: NetSeatTable) -> Callable[[str], None]:
    """A line for the person at this seat: on the full screen a line of its story (a printed
    line would tear it), else on stderr."""

    def tell(line: str) -> None:
        if seat_model.on_screen:
            seat_model.say(line)
            seat_model.changed()
        else:
            _say(line)

    return tell


def _outcome(seat: NetSeatTable, end: TableEnd, replay: Path) -> int:
    """Tell the person at this seat how it ended, and the exit code of that."""
    seat.ended(end)
    _say(f"The match is over: {seat.verdict()}" if end.fault is None else seat.verdict())
    _say(f"Replay: {replay} ({end.verdict})")
    if end.fork_proof is not None:
        _say(f"Fork proof: {end.fork_proof}")
    if end.fault is None:
        return EXIT_OK
    if end.replay_failed:
        return EXIT_REPLAY
    if end.left:
        return EXIT_LEFT
    return EXIT_CHEAT if end.cheat else EXIT_NETWORK


def _hand_teller(seat: NetSeatTable) -> Callable[[], None]:
    """A bot's seat: each hand's result, as the local game says it, when the hand ends."""
    told = 0

    def tell() -> None:
        nonlocal told
        while told < len(seat.match.results):
            told += 1
            result, *more = seat.hand_end or ("",)
            if not result:  # a hand a restarted process replayed: told by the one that died
                continue
            _say(f"Hand {told} over: {result}")
            for line in more:
                if seat.over is None or line != seat.over.text:  # the end is told once
                    _say(f"  {line}")

    return tell


LEAVE_SECONDS: Final = 20.0
"""How long a seat that leaves waits for its resignation to be in the chain (the host's
receipt) before it goes anyway."""


async def _seat_played(
    seat: NetSeatTable, player: TablePlayer, options: TableOptions, table: Table,
    play: Callable[[Chooser, Leaving], Coroutine[object, object, TableEnd]],
) -> TableEnd | None:  # fmt: skip
    """Play this process's seat: a bot's, or the person's on the screens of ``play --preset``.
    Leaving (``q``, the end of input, SIGTERM or SIGHUP; a bot also Ctrl-C) is a signed
    resignation every seat records; None if even that could not be done in time."""
    leaving = Leaving()
    signals = LEAVE_SIGNALS if player.bot is None else BOT_LEAVE_SIGNALS
    with on_signals(signals, lambda sig: leaving.leave(REASONS.get(sig.name, sig.name))):
        if player.bot is not None:
            seat.on_change = _hand_teller(seat)
            chooser = bot_chooser(player.bot, player.seed * 10 + table.seat, options)
            return await _ended_or_left(asyncio.create_task(play(chooser, leaving)), leaving)
        plain, style = screen_style(player.plain, player.ascii)
        seat.style = style
        match = asyncio.create_task(play(seat.choose, leaving))
        match.add_done_callback(lambda done: _told_end(seat, done))  # the screen shows it
        typed = TypeAhead(StdinLines(), interactive=sys.stdin.isatty()) if plain else None
        screen = asyncio.create_task(_screen(seat, style, match, typed))
        left = asyncio.create_task(leaving.wait())
        await asyncio.wait({screen, left}, return_when=asyncio.FIRST_COMPLETED)
        left.cancel()
        if not match.done() and seat.over is None:  # the person left the screen
            leaving.leave("left the match")
        try:
            return await _ended_or_left(match, leaving)
        finally:
            screen.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await screen


async def _ended_or_left(match: asyncio.Task[TableEnd], leaving: Leaving) -> TableEnd | None:
    """The match's end; once the seat is leaving, within ``LEAVE_SECONDS`` (else None)."""
    if leaving.reason is None:
        done = await before(asyncio.shield(match), leaving.wait())
        if done is not None:
            return done[0]
    try:
        async with asyncio.timeout(LEAVE_SECONDS):
            return await match
    except TimeoutError:
        match.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await match
        _say("You left the match before its end (the resignation could not be sent in time).")
        return None


async def _screen(
    seat: NetSeatTable, style: TextStyle, match: asyncio.Task[TableEnd], typed: TypeAhead | None
) -> None:
    """The person's screen: ``--plain`` lines (``typed``: stdin, read all the time) or the
    full screen, once the first hand is dealt; ``q`` even before that."""
    dealt = asyncio.create_task(seat.first_hand())  # the board needs a hand to show
    try:
        while not seat.ready and not match.done():
            early = asyncio.ensure_future(typed.while_waiting()) if typed else None
            waits: set[asyncio.Future[Any]] = {match, dealt, *([early] if early else [])}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if early is None or not early.done():
                if early is not None:
                    early.cancel()
                continue
            if leaves(early.result()):
                _print("You leave the match.")
                return
            _print("Not your turn: the cards are being dealt.")
    finally:
        dealt.cancel()
    if not seat.ready:
        return
    if typed is not None:
        await play_plain(seat, typed.on_turn, _print, waiting=typed.while_waiting)
        return
    seat.on_screen = True
    try:
        await MultiTerminal(seat, style).run()
    finally:
        seat.on_screen = False


def _told_end(seat: NetSeatTable, match: asyncio.Task[TableEnd]) -> None:
    if not match.cancelled() and match.exception() is None:
        seat.ended(match.result())


def _print(text: str) -> None:
    print(text, flush=True)


async def _play_hosted(
    table: Table, me: Identity, match: HostMatch, player: TablePlayer, *,
    rejoins: Rejoins, made: HostedSeats, files: HostFiles,
) -> int:  # fmt: skip
    for line in seating_lines(table):
        _say(line)
    options = options_of(table, match.target)
    seat_bots = {
        seat: (bid, bot_chooser(match.bot, match.bot_seed * 10 + seat, options))
        for seat, bid in match.bot_identities().items()
    }
    replay = Path(match.replay)
    seat = NetSeatTable(table, TextStyle(), target=match.target)
    dropouts = Dropouts(
        player.grace, rejoins=rejoins, on_notice=_link_teller(seat, table, player.grace)
    )

    async def play(choose: Chooser, leaving: Leaving) -> TableEnd:
        ends = await play_hosted(
            table, me, choose, seat_bots, replay=replay, on_events=seat.heard,
            target=match.target, dropouts=dropouts, attach=seat.bind, made=made,
            leaving=leaving,
        )  # fmt: skip
        return ends[0]

    try:
        end = await _seat_played(seat, player, options, table, play)
    finally:
        files.close()
    if end is None:  # the person left: 'host --resume' may still take the match up
        return EXIT_LEFT
    forget_host()  # over, or it cannot go on: nothing to resume
    return _outcome(seat, end, replay)


async def host_table_main(
    hosting: TableHosting, name: str | None, wait: float, player: TablePlayer
) -> int:
    """Host a table until it is seated (at most ``wait`` seconds), then play the match."""
    me = load_or_create_identity(name)
    bots = bot_identities(hosting)
    _say(f"Hosting {hosting.preset} as {me.name} ({me.fingerprint}), seat 0.")
    if host_match_kept():
        _say(
            "Note: an unfinished table match can be resumed with 'p2p66 host --resume'; "
            "once this one is seated, it replaces that one."
        )
    try:
        listener = await open_table_listener(hosting, me)
    except TransportError as exc:
        _say(f"p2p66: cannot host: {exc}")
        return EXIT_NETWORK
    async with listener:
        try:
            async with asyncio.timeout(wait):
                table = await host_seated_table(listener, hosting, me, _say, _show_code, bots=bots)
        except TimeoutError:
            _say(f"p2p66: the table was not seated within {wait:g} s")
            return EXIT_NETWORK
        except TransportError as exc:
            _say(f"p2p66: cannot host: {exc}")
            return EXIT_NETWORK
        take_back_only_seated(listener, table)  # the listener stays open for reconnections
        replay = replay_path(table.seating.preset, player.replay_dir)
        match = HostMatch(
            table.seating, table.signatures, hosting.bind, listener.port, str(replay),
            hosting.bot, player.seed, player.target,
            tuple(BotSeat.of(seat, bid) for seat, bid in sorted(bots.items())),
        )  # fmt: skip
        try:
            made, files = start_hosted(table, me, bots, match, warn=_say)
        except (ResumeError, OSError) as exc:
            _say(f"p2p66: cannot keep the match's resume state: {exc}")
            return EXIT_REPLAY
        _say(f"Playing; replay {replay} ('p2p66 host --resume' goes on if this process dies).")
        return await _play_hosted(
            table, me, match, player, rejoins=listener.accept, made=made, files=files
        )


async def host_table_resume(name: str | None, player: TablePlayer) -> int:
    """``host --resume`` of a table match whose host process died: rebuild the hub and every
    seat of this process from the resume files, listen on the same port again and take the
    joiners back as their redials reach it (each within the grace)."""
    try:
        match = HostMatch.load()
        if match is None:
            _say("p2p66: there is no table match to resume (none was hosted, or it is over)")
            return EXIT_USAGE
        me = load_or_create_identity(name)
        if me.public_key != match.seating.seats[HOST_SEAT].public_key:
            _say(
                f"p2p66: this identity ({me.fingerprint}) is not the host (seat 0) of that "
                "table; cannot resume"
            )
            return EXIT_USAGE
    except (ResumeError, OSError) as exc:
        _say(f"p2p66: {exc}")
        return EXIT_USAGE
    rejoins = RejoinQueue()
    try:
        restarted = await restart_hosted(match, me, rejoins.put, player.grace, warn=_say)
    except (ResumeError, OSError) as exc:
        _say(f"p2p66: {exc}")
        return EXIT_USAGE
    try:
        listener = await Listener.open(me, words=None, bind=match.bind, port=match.port)
    except TransportError as exc:
        restarted.files.close()
        _say(f"p2p66: cannot listen on port {match.port} again: {exc}")
        return EXIT_NETWORK
    chain = restarted.seats.chain or ()
    async with listener:
        take_back_only_seated(listener, restarted.table)  # the seated joiners only
        _say(
            f"Resuming {match.seating.preset} as the host from record {len(chain)}, on port "
            f"{listener.port}; every seat has {player.grace:g} s to come back ..."
        )
        async with rejoins.fed_by(listener):
            return await _play_hosted(
                restarted.table, me, match, player, rejoins=rejoins.next,
                made=restarted.seats, files=restarted.files,
            )  # fmt: skip


async def join_table_main(code: str, name: str | None, *, accept: bool, player: TablePlayer) -> int:
    """Join a table and answer its seating (asked unless ``accept``)."""
    me = load_or_create_identity(name)
    if table_match_kept():
        _say(
            "Note: an unfinished table match can be resumed with 'p2p66 join --resume'; "
            "once this one is seated, it replaces that one."
        )

    async def decide(seating: Seating, seat: int) -> str | None:
        for line in lines_of_seating(seating, seat):  # once: the table is this seating
            _say(line)
        if accept:
            return None
        ok = await asyncio.to_thread(typer.confirm, "Accept this seating?", default=True)
        return None if ok else "the player refused the seating"

    try:
        parsed = parse_join_code(code)
        table = await join_seated_table(parsed, me, decide, _say)
    except JoinCodeError as exc:
        _say(f"p2p66: {exc}")
        return EXIT_USAGE
    except SeatingRefused as exc:
        _say(f"p2p66: {exc}")
        return EXIT_REFUSED
    except TransportError as exc:
        _say(f"p2p66: cannot join the table: {exc}")
        return EXIT_NETWORK
    replay = replay_path(table.seating.preset, player.replay_dir)
    match = TableMatch.of(table, parsed.host, parsed.port, replay)
    store = fresh_secrets()  # saved from the first draw on, before any record made from it
    match.save()
    _say(f"Playing; replay {replay} ('p2p66 join --resume' goes on if this process dies).")
    peer = peer_for(table, me, rng=store.rng())
    return await _play_joined(match, table, me, player, peer=peer, restarted=None)


async def _play_joined(
    match: TableMatch, table: Table, me: Identity, player: TablePlayer, *, peer: Peer,
    restarted: ReplayWriter | None,
) -> int:  # fmt: skip
    replay = Path(match.replay)
    seat = NetSeatTable(table, TextStyle())
    dropouts = Dropouts(
        player.grace, redial=redial_host(match, me),
        on_notice=_link_teller(seat, table, player.grace),
    )  # fmt: skip

    async def play(choose: Chooser, leaving: Leaving) -> TableEnd:
        return await play_joined(
            table, me, choose, replay=replay, on_events=seat.heard, dropouts=dropouts,
            peer=peer, restarted=restarted, attach=seat.bind, warn=_teller(seat),
            leaving=leaving,
        )  # fmt: skip

    end = await _seat_played(seat, player, options_of(table), table, play)
    if end is None:
        return EXIT_LEFT
    if not end.lost or end.culprit != HOST_SEAT:  # over, or it cannot go on: nothing to resume
        forget_table()
    return _outcome(seat, end, replay)


async def join_table_resume(name: str | None, player: TablePlayer) -> int:
    """``join --resume`` of a table match whose joiner process died: restore the seat from
    its replay and stored secrets, dial the host again and catch up."""
    try:
        match = TableMatch.load()
        if match is None:
            _say("p2p66: there is no table match to resume (none was joined, or it is over)")
            return EXIT_USAGE
        me = load_or_create_identity(name)
        if me.public_key != match.seating.seats[match.seat].public_key:
            _say(
                f"p2p66: this identity ({me.fingerprint}) is not the one seated at seat "
                f"{match.seat} of that table; cannot resume"
            )
            return EXIT_USAGE
        store = stored_secrets()
        writer = ReplayWriter(match.replay)
        seated = match.table(None)
        peer = peer_for(seated, me, rng=store.rng())
        restore(peer, list(writer.records))
    except (ResumeError, OSError) as exc:
        _say(f"p2p66: {exc}")
        return EXIT_USAGE
    _say(
        f"Resuming {match.seating.preset} at seat {match.seat} from record "
        f"{len(writer.records)}; dialling the host {match.host}:{match.port} ..."
    )
    try:
        channel = await dial_within(redial_host(match, me), player.grace)
    except TransportError as exc:
        writer.close()
        _say(f"p2p66: the host did not take us back within {player.grace:g} s: {exc}")
        return EXIT_NETWORK
    return await _play_joined(match, match.table(channel), me, player, peer=peer, restarted=writer)
