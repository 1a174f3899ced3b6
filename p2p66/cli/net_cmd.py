"""``p2p66 host`` and ``p2p66 join``: a match between two machines, no server.

The host listens, prints a join code (three words and an address) and, with
``--lan``, advertises the game on the local network. The joiner types the
code (or, without one, picks a game found on the LAN), sees the host's rules
and accepts or refuses them. Either seat can be played by a built-in bot
(``--bot NAME``); otherwise the terminal UI opens. Exit codes: 0 the match
was played to its end; 3 the connection could not be made or was lost;
4 the other player broke the protocol or cheated; 5 the rules were refused;
6 the replay could not be written (e.g. a full disk; what was written is kept);
7 you left the match before its end; 2 bad command-line input.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from p2p66.cli.exits import (
    EXIT_CHEAT,
    EXIT_HELP,
    EXIT_INTERRUPTED,
    EXIT_LEFT,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_REPLAY,
    EXIT_USAGE,
    ending_code,
    user_config,
)
from p2p66.cli.internet import (
    Hosted,
    HostReach,
    accept_or_reply,
    host_codes,
    host_reconnect,
    join_or_reply,
    map_for_host,
)
from p2p66.cli.leaving import BOT_LEAVE_SIGNALS, LEAVE_SIGNALS, until_done_or_signal
from p2p66.cli.output import fitted, shows_symbols, terminal_width
from p2p66.cli.proofs import describe_proofs, network_refusal, parse_soundness
from p2p66.cli.signals import REASONS, run_terminable
from p2p66.cli.table_cmd import (
    TablePlayer,
    host_table_main,
    host_table_resume,
    join_table_main,
    join_table_resume,
)
from p2p66.cli.table_options import (
    AsciiOnly,
    BotSeed,
    Plain,
    PlayerName,
    ReplayDir,
    TableGrace,
)
from p2p66.crypto.handkeys import system_rng
from p2p66.engine import PlayerView, RuleOptionError, RuleOptions, preset, preset_name
from p2p66.engine.options import base_preset
from p2p66.engine.table import is_table_preset, table_preset
from p2p66.live.hostresume import host_match_kept
from p2p66.live.resume import (
    MatchInfo,
    ResumableWriter,
    ResumeError,
    SecretStore,
    abandon,
    forget,
    restore,
)
from p2p66.live.starlink import GRACE
from p2p66.live.tablelobby import TableHosting, parse_bot_seats
from p2p66.live.tableresume import table_match_kept
from p2p66.net import (
    Identity,
    KnownPeers,
    Listener,
    TransportError,
    generate_words,
    join_known,
)
from p2p66.net.addresses import join_addresses
from p2p66.net.channel import SecureChannel
from p2p66.net.eyeballs import parse_codes
from p2p66.net.identity import (
    IdentityError,
    PeerIdentity,
    distinct_names,
    home_dir,
    load_or_create_identity,
    short_label,
)
from p2p66.net.portmap import PortMapError
from p2p66.net.reach import scope
from p2p66.net.redial import Target, host_rejoin
from p2p66.net.reply import ReplyPoint
from p2p66.net.tcp import NobodyJoined, format_address
from p2p66.replay.fileio import ReplayWriteError, ReplayWriter
from p2p66.session import events as ev
from p2p66.session.peer import Peer
from p2p66.session.records import Record
from p2p66.ui.config import load_config, use_color

if TYPE_CHECKING:
    from p2p66.live.game import Decider, Status
    from p2p66.net.discovery import Game
    from p2p66.ui.bots import TableBot


def exit_code(peer: Peer, failure: str | None) -> int:
    """The exit code for how the match ended: ``failure`` is a ``LiveGameError`` kind or None."""
    m = peer.machine
    refused = m.stage.value == "refused"
    leaver = m.resigned if m.resigned is not None else m.abandoned
    left = None if leaver is None else leaver == peer.seat
    return ending_code(failure, finished=m.over, refused=refused, left=left)


@dataclass(frozen=True, slots=True)
class Seat:
    """How this seat is played: by a bot or in the UI, and where its replay goes."""

    bot: str | None
    seed: int
    plain: bool
    ascii_suits: bool
    replay_dir: Path | None


def _say(text: str) -> None:
    """A line for the person hosting or joining (stderr), wrapped at words on a terminal."""
    sys.stderr.write(fitted(text, terminal_width(sys.stderr)) + "\n")
    sys.stderr.flush()


def describe_rules(options: RuleOptions, soundness: int) -> str:
    name = base_preset(options)
    proofs = describe_proofs(soundness)
    head = f"preset {name}" if name else "custom rules"
    return f"{head}, match to {options.match_target}, {proofs}"


Reconnect = Callable[[], Awaitable[SecureChannel]]
RulesAnswer = Callable[[RuleOptions, int], Awaitable[str | None]]


async def _play(
    peer: Peer,
    channel: SecureChannel,
    seat: Seat,
    reconnect: Reconnect,
    answer_rules: RulesAnswer | None,
    *,
    writer: ReplayWriter,
) -> int:
    """Play the match; a restarted process (``writer`` holding the chain so far) resumes it."""
    # The game's modules are imported when the game starts, so that ``host`` prints its
    # code without waiting for them (prompt_toolkit, the bots: see cli/app.py).
    from p2p66.live.game import LiveGame
    from p2p66.live.loopback import default_verify
    from p2p66.live.table import NetworkTable
    from p2p66.ui.cards_text import TextStyle
    from p2p66.ui.launch import run_ui

    names = seat_names(peer.seat, channel)
    path = writer.path
    preload = list(writer.records)
    try:
        if seat.bot is not None:
            links = Links(writer, reconnect, answer_rules, preload)
            return await _play_bot(peer, channel, seat, path, links, names=names)
        table = NetworkTable(peer, names, path)
        table.verify = default_verify
        settled = asyncio.Event()
        game = LiveGame(
            peer,
            table.decide,
            writer=writer,
            on_event=table.on_event,
            on_status=table.on_status,
            reconnect=reconnect,
            answer_rules=_then_set(answer_rules, settled) if answer_rules else None,
        )
        if preload:
            game.preload(preload)

        async def opened() -> SecureChannel:
            return channel

        table.task = asyncio.create_task(table.run(game, opened))
        if answer_rules is not None:
            # The question is asked on the plain terminal: the UI takes the keyboard after.
            waiting = asyncio.create_task(settled.wait())
            await asyncio.wait({waiting, table.task}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
        config = load_config()
        plain = seat.plain or not (sys.stdin.isatty() and sys.stdout.isatty())  # a pipe
        color = not plain and use_color(config, os.environ, sys.stdout.isatty())
        ascii_only = seat.ascii_suits or config.ascii or not shows_symbols(sys.stdout)
        style = TextStyle(ascii=ascii_only, color=color)
        ui = asyncio.create_task(run_ui(table, style, plain=plain))
        signalled = await until_done_or_signal(
            ui, LEAVE_SIGNALS, lambda reason: setattr(table, "leave_reason", reason)
        )
        await table.close(signalled)
        if signalled is not None:
            _say(f"You leave the match: {signalled}; the other player is told you resigned.")
        return exit_code(peer, table.failure)
    finally:
        writer.close()


def seat_names(seat: int, channel: SecureChannel) -> tuple[str, str]:
    """The two players' names in seat order, told apart by fingerprints if they are equal."""
    mine, theirs = distinct_names(channel.local, channel.peer)
    return (mine, theirs) if seat == 0 else (theirs, mine)


def _then_set(answer: RulesAnswer, settled: asyncio.Event) -> RulesAnswer:
    """The rules answer, flagging when it is given."""

    async def answered(options: RuleOptions, soundness: int) -> str | None:
        try:
            return await answer(options, soundness)
        finally:
            settled.set()

    return answered


@dataclass(frozen=True, slots=True)
class Links:
    """What ties a live game to the world: its replay file, reconnection, the rules answer."""

    writer: ReplayWriter
    reconnect: Reconnect
    answer_rules: RulesAnswer | None
    preload: list[Record]
    """The chain so far, when a restarted process resumes the match."""


async def _play_bot(
    peer: Peer,
    channel: SecureChannel,
    seat: Seat,
    path: Path,
    links: Links,
    *,
    names: tuple[str, str],
) -> int:
    """Let a built-in bot play this seat; progress goes to stderr, one line per hand."""
    from p2p66.live.game import LiveGame, LiveGameError
    from p2p66.live.loopback import default_verify
    from p2p66.live.table import bot_decider
    from p2p66.ui.bots import make_table_bot

    bot_spec = seat.bot
    assert bot_spec is not None
    bot: TableBot | None = None
    decider: Decider | None = None  # made with the bot: one question at a time (bot_decider)

    def on_event(event: ev.Event) -> None:
        nonlocal bot, decider
        m = peer.machine
        if isinstance(event, ev.MatchStarted) and m.options is not None:
            bot = make_table_bot(bot_spec, seat.seed, m.options)
            decider = bot_decider(peer, bot)
        elif isinstance(event, ev.HandEnded):
            a, b = event.game_points
            standing = f"{names[0]} {a}, {names[1]} {b}"
            _say(f"hand {event.number}: {event.result.describe(names)}; match: {standing}")
        elif isinstance(event, ev.MatchEnded):
            won, lost = event.game_points[event.winner], event.game_points[1 - event.winner]
            _say(f"match over: {names[event.winner]} wins {won}-{lost}")
        elif isinstance(event, ev.RulesRefused):
            _say(f"rules refused: {event.reason}")
        elif isinstance(event, ev.AuditCalled):
            _say(f"hand {event.number} stops for an audit: {event.reason}")
        elif isinstance(event, ev.Resigned):
            _say(f"{names[event.seat]} resigned: {event.reason}")
        elif isinstance(event, ev.Abandoned):
            _say(f"{names[event.seat]} abandoned the match at record {event.record}")

    async def decide(view: PlayerView) -> int:
        nonlocal bot, decider
        if decider is None and peer.machine.options is not None:  # resumed mid-match
            bot = make_table_bot(bot_spec, seat.seed, peer.machine.options)
            decider = bot_decider(peer, bot)
        assert decider is not None
        return await decider(view)

    def on_status(status: Status) -> None:
        if status.state == "reconnecting":
            _say("connection lost: reconnecting ...")

    game = LiveGame(
        peer,
        decide,
        writer=links.writer,
        on_event=on_event,
        on_status=on_status,
        reconnect=links.reconnect,
        answer_rules=links.answer_rules,
    )
    if links.preload:
        game.preload(links.preload)
    try:
        playing = asyncio.create_task(game.run(channel))
        signalled = await until_done_or_signal(playing, BOT_LEAVE_SIGNALS)
        if signalled is not None:
            await game.leave(signalled)
            _say(f"left the match: {signalled}; the other player is told the bot resigned")
            _say(f"replay: {path}")
            return EXIT_INTERRUPTED if signalled == REASONS["SIGINT"] else exit_code(peer, None)
        await playing
    except LiveGameError as exc:
        _say(f"match stopped ({exc.kind}): {exc}")
        _say(f"replay so far: {path}")
        return exit_code(peer, exc.kind)
    finally:
        if bot is not None:
            bot.close()
        channel.close()
    links.writer.close()
    _say(default_verify(path, None))  # the bot's owner reads about the bot by its name
    return exit_code(peer, None)


def _guarded(main: Coroutine[Any, Any, int]) -> int:
    """Run a host/join coroutine; a home directory we cannot use is a clear error, not a crash."""
    try:
        return asyncio.run(main)
    except (OSError, IdentityError) as exc:
        _say(f"p2p66: cannot use the p2p66 home ({home_dir()}): {exc}")
        return EXIT_REPLAY


def _options(preset_text: str, target: int | None) -> RuleOptions:
    try:
        options = preset(preset_text)
        return options.with_options(match_target=target) if target is not None else options
    except RuleOptionError as exc:
        raise typer.BadParameter(str(exc), param_hint="--preset") from None


def _table_hosting(
    preset_text: str, bot_seats: str | None, bot: str | None, listen: Listen
) -> TableHosting:
    players = table_preset(preset_text).players
    try:
        seats = parse_bot_seats(bot_seats, players)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot-seats") from None
    bot_spec = _bot(bot) or "expert"
    return TableHosting(preset_text, players, listen.bind, listen.port, listen.lan, seats, bot_spec)


def _bot(spec: str | None) -> str | None:
    if spec is None:
        return None
    from p2p66.ui.bots import UnknownBotError, check_bot_spec

    try:
        return check_bot_spec(spec)
    except UnknownBotError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot") from None


def register(app: typer.Typer) -> None:
    """Add ``host`` and ``join`` to ``app``."""

    @app.command("host", epilog=EXIT_HELP)
    def host_command(
        *,
        port: Annotated[
            int,
            typer.Option("--port", min=0, max=65535, help="TCP port, 0-65535 (0: any free port)."),
        ] = 6666,
        bind: Annotated[
            str | None, typer.Option("--bind", help="Address to listen on (default: all).")
        ] = None,
        lan: Annotated[bool, typer.Option("--lan", help="Advertise on the local network.")] = False,
        preset_text: Annotated[
            str | None, typer.Option("--preset", help="Rules preset (default: your config's).")
        ] = None,
        target: Annotated[
            int | None,
            typer.Option(
                "--target", min=1, help="Game points that win the match (default: the preset's)."
            ),
        ] = None,
        soundness_text: Annotated[
            str,
            typer.Option(
                "--soundness",
                help="Shuffle proofs: on, off, or 64-128 rounds of the old cut-and-choose.",
            ),
        ] = "on",
        move_time: Annotated[
            int, typer.Option("--move-time", min=5, help="Seconds each move may take.")
        ] = 600,
        bot: Annotated[str | None, typer.Option("--bot", help="Let a built-in bot play.")] = None,
        name: PlayerName = None,
        plain: Plain = False,
        ascii_suits: AsciiOnly = False,
        seed: BotSeed = None,
        replay_dir: ReplayDir = None,
        accept_timeout: Annotated[float, typer.Option("--wait", help="Seconds to wait.")] = 600,
        upnp: Annotated[
            bool | None,
            typer.Option(
                "--upnp/--no-upnp",
                help="Map the port on your router (UPnP IGD or NAT-PMP): --upnp fails if it "
                "cannot, --no-upnp never tries (default: try for a moment).",
            ),
        ] = None,
        once: Annotated[
            bool,
            typer.Option(
                "--once", help="Stop after one failed join attempt (no new code; for scripts)."
            ),
        ] = False,
        resume: Annotated[
            bool,
            typer.Option("--resume", help="Resume the match this player was hosting when it died."),
        ] = False,
        bot_seats: Annotated[
            str | None,
            typer.Option(
                "--bot-seats",
                help="Three- or four-player games: the seats bots take, e.g. 1,3 (--bot picks "
                "the bot).",
            ),
        ] = None,
        grace: TableGrace = GRACE,
    ) -> None:
        """Host a match and print the join code to give the other player."""
        config = user_config()
        chosen = preset_text or config.preset
        if resume and (host_match_kept() or is_table_preset(chosen)):
            if bot_seats is not None:
                raise typer.BadParameter(
                    "a resumed table keeps its bot seats", param_hint="--bot-seats"
                )
            player = TablePlayer(
                _bot(bot), _seed(seed), replay_dir, grace=grace, plain=plain, ascii=ascii_suits
            )
            resuming = host_table_resume(name or config.name, player)
            raise typer.Exit(_guarded(run_terminable(resuming, EXIT_NETWORK)))
        if is_table_preset(chosen) and not resume:
            table = _table_hosting(chosen, bot_seats, bot, Listen(port, bind, lan, 0))
            player = TablePlayer(
                _bot(bot), _seed(seed), replay_dir, target, grace, plain=plain, ascii=ascii_suits
            )
            seating = host_table_main(table, name or config.name, accept_timeout, player)
            raise typer.Exit(_guarded(run_terminable(seating, EXIT_NETWORK)))
        if bot_seats is not None:
            raise typer.BadParameter(
                "bot seats are for games of three or four players", param_hint="--bot-seats"
            )
        if resume:
            seat = Seat(_bot(bot), _seed(seed), plain, ascii_suits, replay_dir)
            listen = Listen(port, bind, lan, accept_timeout, move_time, once)
            raise typer.Exit(_guarded(_host_resume(listen, seat, name or config.name)))
        _resumable_note("host")
        options = _options(preset_text or config.preset, target)
        name = name or config.name
        bot_spec = _bot(bot)
        seat = Seat(bot_spec, _seed(seed), plain, ascii_suits, replay_dir)
        listen = Listen(port, bind, lan, accept_timeout, move_time, once, upnp)
        try:
            soundness = parse_soundness(soundness_text)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--soundness") from None
        refusal = network_refusal(soundness)
        if refusal is not None:
            raise typer.BadParameter(refusal, param_hint="--soundness")
        hosting = _host(options, soundness, listen, seat, name)
        raise typer.Exit(_guarded(run_terminable(hosting, EXIT_NETWORK, EXIT_INTERRUPTED)))

    @app.command("join", epilog=EXIT_HELP)
    def join_command(
        code: Annotated[str | None, typer.Argument(help="The host's join code.")] = None,
        *,
        bot: Annotated[str | None, typer.Option("--bot", help="Let a built-in bot play.")] = None,
        name: PlayerName = None,
        yes: Annotated[bool, typer.Option("--yes", help="Accept the host's rules.")] = False,
        rematch: Annotated[
            str | None,
            typer.Option(
                "--rematch", help="HOST:PORT of a host you played before: no code needed."
            ),
        ] = None,
        plain: Plain = False,
        ascii_suits: AsciiOnly = False,
        seed: BotSeed = None,
        replay_dir: ReplayDir = None,
        resume: Annotated[
            bool,
            typer.Option("--resume", help="Resume the match this player had joined when it died."),
        ] = False,
        reply: Annotated[
            bool,
            typer.Option(
                "--reply/--no-reply",
                help="If the host cannot be reached, offer a reply code for the host to dial.",
            ),
        ] = True,
        reply_wait: Annotated[
            float,
            typer.Option("--wait", min=1, help="Seconds to wait for the host to use a reply code."),
        ] = 600,
        table: Annotated[
            bool,
            typer.Option("--table", help="Join a table of three or four players with its code."),
        ] = False,
        grace: TableGrace = GRACE,
    ) -> None:
        """Join a match with a join code (or pick one on the local network)."""
        name = name or user_config().name
        if resume and (table or table_match_kept()):
            player = TablePlayer(
                _bot(bot), _seed(seed), replay_dir, grace=grace, plain=plain, ascii=ascii_suits
            )
            resuming = join_table_resume(name, player)
            raise typer.Exit(_guarded(run_terminable(resuming, EXIT_NETWORK)))
        if table:
            if code is None:
                raise typer.BadParameter("--table needs the table's join code", param_hint="CODE")
            player = TablePlayer(
                _bot(bot), _seed(seed), replay_dir, grace=grace, plain=plain, ascii=ascii_suits
            )
            seating = join_table_main(code, name, accept=yes or bot is not None, player=player)
            raise typer.Exit(_guarded(run_terminable(seating, EXIT_NETWORK)))
        bot_spec = _bot(bot)
        seat = Seat(bot_spec, _seed(seed), plain, ascii_suits, replay_dir)
        accept = yes or bot_spec is not None
        if resume:
            raise typer.Exit(_guarded(_join_resume(seat, name, accept=accept, wait=reply_wait)))
        _resumable_note("join")
        joining = _join(
            code, seat, name, accept=accept, rematch=rematch, reply=reply_wait if reply else None
        )
        raise typer.Exit(_guarded(run_terminable(joining, EXIT_NETWORK, EXIT_INTERRUPTED)))


def _seed(seed: int | None) -> int:
    return seed if seed is not None else random.randrange(2**32)


@dataclass(frozen=True, slots=True)
class Listen:
    port: int
    bind: str | None
    lan: bool
    accept_timeout: float
    move_seconds: int = 600
    once: bool = False
    upnp: bool | None = None


async def _host(
    options: RuleOptions, soundness: int, listen: Listen, seat: Seat, name: str | None
) -> int:
    port, bind, lan = listen.port, listen.bind, listen.lan
    me = load_or_create_identity(name)
    peers = KnownPeers.load()
    try:
        listener = await Listener.open(
            me, words=generate_words(), bind=bind, port=port, known_peers=peers
        )
    except TransportError as exc:
        _say(f"cannot host: {exc}")
        return EXIT_NETWORK
    async with listener, contextlib.AsyncExitStack() as stack:
        loopback = (
            bind is not None and bind not in ("", "0.0.0.0", "::") and (scope(bind) == "loopback")
        )
        try:
            reach = (
                HostReach() if loopback else await map_for_host(listener.port, listen.upnp, _say)
            )
        except PortMapError as exc:
            _say(f"cannot host with --upnp: {exc}")
            return EXIT_NETWORK
        if reach.mapping is not None:
            stack.push_async_callback(reach.mapping.aclose)
        _say(f"Hosting as {me.name} ({me.fingerprint}), {describe_rules(options, soundness)}.")
        if name is None and seat.bot is None:
            _name_hint(me)
        show_codes(listener, reach)
        if lan:
            from p2p66.net.discovery import advertise

            await stack.enter_async_context(
                await advertise(
                    me.name,
                    listener.port,
                    fingerprint=me.fingerprint,
                    preset=preset_name(options) or "custom",
                    addresses=[b.address for b in join_addresses(listener.bound)],
                )
            )
            _say("Advertised on the local network.")
        hosted = await await_joiner(listener, listen, reach)
        if hosted is None:
            return EXIT_NETWORK
        channel = hosted.channel
        _say(f"{channel.peer.name} ({channel.peer.fingerprint}) joined.{_newcomer(peers, channel)}")
        store = SecretStore("host")
        info = MatchInfo(
            "host", "", channel.peer.public_key, bind or "", listener.port,
            options.to_dict(), soundness, listen.move_seconds, reply_to=hosted.reply_to,
        )  # fmt: skip
        from p2p66.live.loopback import replay_path, signer_of

        peer = Peer(
            0,
            signer_of(me),
            options=options,
            soundness=soundness,
            move_seconds=listen.move_seconds,
            rng=store.rng(),
        )

        listener.only_for(channel.peer)  # a reconnection must be this opponent
        reconnect = host_reconnect(listener, hosted)
        writer = ResumableWriter(replay_path("match", seat.replay_dir), info, store)
        code = await _play(peer, channel, seat, reconnect, None, writer=writer)
        return _settled(writer, code, peer)


def _newcomer(peers: KnownPeers, channel: SecureChannel) -> str:
    """A note when the peer's name is shared with another key we know, or with us."""
    them = channel.peer
    others = [PeerIdentity(them.name, k) for k in peers.keys_named(them.name)]
    notes = []
    if known := [short_label(p) for p in others if p.public_key != them.public_key]:
        notes.append(f"Not {', '.join(known)}, met before, but another player of that name.")
    if channel.local.name == them.name:
        notes.append("You use that name too.")
    if notes:
        notes.append(f"Shown as {short_label(them)} where the two could be confused.")
    return "".join(" " + note for note in notes)


def _name_hint(me: Identity) -> None:
    _say(f"(Your opponent will see the name {me.name!r}: 'p2p66 config set name NAME'.)")


def show_codes(listener: Listener, reach: HostReach) -> None:
    """Print the internet code first, then one per usable address (stdout, one a line)."""
    _say("Give the other player a join code (one try only):")
    for code in host_codes(reach, listener.words or (), listener.port):
        print(code, flush=True)
    for lan_code in listener.join_codes():
        print(lan_code, flush=True)


async def await_joiner(listener: Listener, listen: Listen, reach: HostReach) -> Hosted | None:
    """The joiner's channel; after each failed code attempt a fresh code on Enter.

    ``None`` (after saying why) when nobody joined in time, the player asked
    for no new code, or ``--once`` was given and the one attempt failed.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + listen.accept_timeout
    while True:
        try:
            return await accept_or_reply(listener, max(0.0, deadline - loop.time()), _say)
        except NobodyJoined:
            _say(f"nobody joined within {listen.accept_timeout:g} s")
            return None
        except TransportError as exc:
            if listen.once:
                _say(f"nobody joined: {exc}")
                return None
            _say(f"A join attempt failed, so the code is spent: {exc}")
        _say("Press Enter for a new join code (end of input or Ctrl-C: stop hosting).")
        from p2p66.ui.plain import read_line

        if await read_line(max(0.0, deadline - loop.time())) is None:
            _say("no new code asked for: stopping")
            return None
        listener.renew_code()
        show_codes(listener, reach)


async def browse(timeout: float) -> list[Game]:
    """The games on the LAN (zeroconf is imported here, on first use: see cli/app.py)."""
    from p2p66.net import discovery

    return await discovery.browse(timeout)


async def _pick_lan_game() -> str | None:
    games = await browse(3.0)
    if not games:
        _say("No game found on the local network: ask the host for a join code.")
        return None
    for i, game in enumerate(games, 1):
        _say(f"{i}. {game.name} ({game.preset}) at {format_address(game.addresses[0], game.port)}")
    choice = 1 if len(games) == 1 else typer.prompt("Which game", type=int, default=1)
    game = games[max(1, min(choice, len(games))) - 1]
    words = typer.prompt("The three words of the host's code (e.g. fox-lamp-river)")
    return f"{words}@{format_address(game.addresses[0], game.port)}"


@dataclass(frozen=True, slots=True)
class Connected:
    """The joiner's channel, its way back after a drop, and what a restart needs to know."""

    channel: SecureChannel
    reconnect: Reconnect
    address: str
    port: int
    punch: tuple[Target, ...] = ()
    reply_port: int = 0
    """Our reply port, when the host connected to us (0: we dialled the host)."""


async def _connect(
    code_text: str | None,
    rematch: str | None,
    me: Identity,
    peers: KnownPeers,
    reply: float | None,
    *,
    stack: contextlib.AsyncExitStack,
) -> Connected | int:
    """Join with a code (or a LAN pick), or rematch a pinned host without one.

    ``reply``: how long to wait for the host to dial a reply code (None: offer none).
    What must stay open for the match (a reply port and its mapping) goes on ``stack``.
    """
    if rematch is not None:
        host, _, port_text = rematch.rpartition(":")
        if not host or not port_text.isdigit():
            _say(f"--rematch wants HOST:PORT, not {rematch!r}")
            return EXIT_USAGE
        address, port = host.strip("[]"), int(port_text)
    else:
        if code_text is None:
            code_text = await _pick_lan_game()
            if code_text is None:
                return EXIT_NETWORK
        try:
            code = parse_codes(code_text)[0]
        except ValueError as exc:
            _say(f"not a join code: {exc}")
            return EXIT_USAGE
        address, port = code.host, code.port
    try:
        if rematch is not None:
            channel = await join_known(address, port, me, peers)
        else:
            assert code_text is not None
            joined = await join_or_reply(
                code_text, me, peers, _say, reply=reply is not None, wait=reply or 0
            )
            stack.push_async_callback(joined.aclose)
            if joined.point is not None:
                again = "the host dials you" if joined.path == "reply code" else "both of you dial"
                _say(f"Connected by {joined.path}: if the link drops, {again} again.")
            reply_port = joined.point.port if joined.point is not None else 0
            return Connected(
                joined.channel, joined.reconnect, address, port, joined.punch, reply_port
            )
    except TransportError as exc:
        _say(f"cannot join: {exc}")
        return EXIT_NETWORK
    opponent = channel.peer

    async def reconnect() -> SecureChannel:
        return await join_known(address, port, me, peers, expect_key=opponent)

    return Connected(channel, reconnect, address, port)


async def _join(
    code_text: str | None,
    seat: Seat,
    name: str | None,
    *,
    accept: bool,
    rematch: str | None,
    reply: float | None = 600,
) -> int:
    me = load_or_create_identity(name)
    peers = KnownPeers.load()
    async with contextlib.AsyncExitStack() as stack:
        connected = await _connect(code_text, rematch, me, peers, reply, stack=stack)
        if isinstance(connected, int):
            return connected
        return await _joined(connected, seat, name, me, peers, accept=accept)


async def _joined(
    connected: Connected,
    seat: Seat,
    name: str | None,
    me: Identity,
    peers: KnownPeers,
    *,
    accept: bool,
) -> int:
    channel, reconnect = connected.channel, connected.reconnect
    _say(f"Joined {channel.peer.name} ({channel.peer.fingerprint}).{_newcomer(peers, channel)}")
    if name is None and seat.bot is None:
        _name_hint(me)

    info = MatchInfo(
        "join", "", channel.peer.public_key, connected.address, connected.port,
        reply_to=connected.punch, reply_port=connected.reply_port,
    )  # fmt: skip
    store = SecretStore("join")
    from p2p66.live.loopback import replay_path, signer_of

    peer = Peer(1, signer_of(me), rules_policy=None, rng=store.rng())
    writer = ResumableWriter(replay_path("match", seat.replay_dir), info, store)
    answer = joiner_answer(accept=accept)
    code = await _play(peer, channel, seat, reconnect, answer, writer=writer)
    return _settled(writer, code, peer)


def joiner_answer(*, accept: bool) -> RulesAnswer:
    """The joiner's answer to the host's rules: shown, then accepted (asked unless ``accept``).

    Cut-and-choose proofs with too few rounds are refused even with ``--yes``: they can be
    forged offline, and the opponent of a network match is not to be trusted.
    """

    async def answer(options: RuleOptions, soundness: int) -> str | None:
        _say(f"The host proposes: {describe_rules(options, soundness)}.")
        refusal = network_refusal(soundness)
        if refusal is not None:
            _say(f"Refused: {refusal}.")
            return refusal
        if accept:
            return None
        ok = await asyncio.to_thread(typer.confirm, "Accept these rules?", default=True)
        return None if ok else "the joiner refused the rules"

    return answer


__all__ = ["Identity", "register"]


# ---------------------------------------------------------------------------- resume

SETTLED = (EXIT_OK, EXIT_CHEAT, EXIT_REFUSED, EXIT_LEFT)
"""Exit codes after which nothing is left to resume (kept: lost links, timeouts, disk)."""


def _settled(writer: ResumableWriter, code: int, peer: Peer) -> int:
    """Forget this match's resume state once it cannot be resumed any more (it is over,
    resigned by either side included, or ended by a violation)."""
    if (code in SETTLED or peer.machine.over) and writer.store.armed:
        forget(writer.info.role)
    return code


def _resumable_note(role: str) -> None:
    """A fresh start never silently replaces a match that can still be resumed: say so."""
    try:
        info = MatchInfo.load(role)
    except ResumeError:
        return
    if info is not None:
        _say(
            f"Note: an unfinished match (replay {info.replay}) can be resumed with "
            f"'p2p66 {role} --resume'; this starts a new match, which replaces it."
        )


def _load_resume(role: str) -> tuple[MatchInfo, SecretStore | None] | int:
    try:
        info = MatchInfo.load(role)
        store = SecretStore.load(role) if info is not None else None
    except ResumeError as exc:
        _say(f"cannot resume: {exc}")
        return EXIT_USAGE
    if info is None:
        _say(f"cannot resume: there is no unfinished match to resume as {role} in {home_dir()}")
        return EXIT_USAGE
    return info, store


async def _host_resume(listen: Listen, seat: Seat, name: str | None) -> int:
    loaded = _load_resume("host")
    if isinstance(loaded, int):
        return loaded
    info, store = loaded
    me = load_or_create_identity(name)
    peers = KnownPeers.load()
    bind = listen.bind or info.address or None
    try:
        listener = await Listener.open(
            me, words=generate_words(), bind=bind, port=info.port, known_peers=peers
        )
    except TransportError as exc:
        _say(f"cannot resume hosting on port {info.port}: {exc}")
        return EXIT_NETWORK
    async with listener, contextlib.AsyncExitStack() as stack:
        opponent = PeerIdentity("opponent", info.opponent)
        listener.only_for(opponent)
        if not (bind is not None and scope(bind) == "loopback"):
            reach = await map_for_host(listener.port, None, _say)
            if reach.mapping is not None:
                stack.push_async_callback(reach.mapping.aclose)
        where = f"on port {info.port}"
        if info.reply_to:
            dials = ", ".join(format_address(*target) for target in info.reply_to)
            where += f", and dialling the joiner's reply code at {dials}"
        _say(f"Resuming the match of {info.replay}: waiting for the opponent {where}.")

        async def reconnect() -> SecureChannel:
            return await host_rejoin(listener, info.reply_to)

        try:
            channel = await asyncio.wait_for(reconnect(), listen.accept_timeout)
        except (TransportError, TimeoutError) as exc:
            _say(f"the opponent did not come back: {exc or 'no answer in time'}")
            return EXIT_NETWORK
        return await _resumed(
            info, store, me, channel=channel, reconnect=reconnect, seat=seat, answer_rules=None
        )


async def _join_resume(seat: Seat, name: str | None, *, accept: bool, wait: float) -> int:
    loaded = _load_resume("join")
    if isinstance(loaded, int):
        return loaded
    info, store = loaded
    me = load_or_create_identity(name)
    peers = KnownPeers.load()
    opponent = PeerIdentity("opponent", info.opponent)
    async with contextlib.AsyncExitStack() as stack:
        if info.reply_port:  # the host connected to us: listen there again, it redials
            try:
                point = await ReplyPoint.open(me, (), port=info.reply_port, known_peers=peers)
            except TransportError as exc:
                _say(f"cannot resume: {exc}")
                return EXIT_NETWORK
            stack.push_async_callback(point.aclose)
            reach = await map_for_host(point.port, None, _say, role="join")
            if reach.mapping is not None:
                stack.push_async_callback(reach.mapping.aclose)

            async def reconnect() -> SecureChannel:
                return await point.rejoin(opponent, info.reply_to)

            _say(
                f"Resuming the match of {info.replay}: waiting on port {info.reply_port} for "
                "the host to dial you again (the host runs 'p2p66 host --resume')."
            )
        else:

            async def reconnect() -> SecureChannel:
                return await join_known(info.address, info.port, me, peers, expect_key=opponent)

            where = format_address(info.address, info.port)
            _say(f"Resuming the match of {info.replay} with {where}.")
        try:
            channel = await asyncio.wait_for(reconnect(), wait)
        except (TransportError, TimeoutError) as exc:
            _say(f"cannot resume: {exc or 'the host did not come back in time'}")
            return EXIT_NETWORK
        answer = joiner_answer(accept=accept)
        return await _resumed(
            info, store, me, channel=channel, reconnect=reconnect, seat=seat, answer_rules=answer
        )


async def _resumed(
    info: MatchInfo,
    store: SecretStore | None,
    me: Identity,
    *,
    channel: SecureChannel,
    reconnect: Reconnect,
    seat: Seat,
    answer_rules: RulesAnswer | None,
) -> int:
    """Restore the peer from its replay and secrets, then play on (or abandon without them)."""
    options = RuleOptions.from_wire(info.options) if info.options is not None else None
    from p2p66.live.loopback import signer_of

    peer = Peer(
        info.seat,
        signer_of(me),
        options=options,
        soundness=info.soundness,
        move_seconds=info.move_seconds,
        rules_policy=None,
        rng=store.rng() if store is not None else system_rng,
    )
    try:
        writer = ResumableWriter(info.replay, info, store or SecretStore(info.role, []))
    except ReplayWriteError as exc:
        channel.close("cannot resume: our replay file is unusable")
        _say(f"cannot resume: {exc}")
        return EXIT_REPLAY
    try:
        if len(writer.records) < info.have:
            raise ResumeError(
                f"{info.replay} holds {len(writer.records)} records, but {info.have} were "
                "kept: the replay file lost records"
            )
        if store is None:
            _say(
                f"cannot resume: the hand secrets of this match are gone "
                f"({SecretStore(info.role).path} is missing), so this side cannot play on; "
                "it abandons the match (a signed resignation)"
            )
            await abandon(peer, channel, writer, "abandoned: lost its hand secrets")
            _say(f"match abandoned by this side; replay: {writer.path}")
            forget(info.role)
            return EXIT_LEFT
        restore(peer, list(writer.records))
    except ResumeError as exc:
        channel.close(f"cannot resume: {exc}"[:200])
        writer.close()
        _say(f"cannot resume: {exc}")
        return EXIT_USAGE
    except (TransportError, OSError) as exc:
        writer.close()
        _say(f"the connection was lost while abandoning the match: {exc}")
        return EXIT_NETWORK
    _say(f"Resumed at record {len(writer.records)}.")
    code = await _play(peer, channel, seat, reconnect, answer_rules, writer=writer)
    return _settled(writer, code, peer)
