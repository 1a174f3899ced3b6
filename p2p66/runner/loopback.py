"""``--transport loopback``: each game is a real match between two peers on 127.0.0.1.

Bot A's and bot B's seats are two ``Peer``s of the session layer, joined by
a join code over TCP through the SPAKE2 handshake and the encrypted channel,
dealing with mental poker and exchanging signed moves, exactly as two
people on two machines would (``p2p66.live``). The runner only decides for
each seat, by asking its bot, and measures the time.

Differences from ``inproc``: the deck comes from the peers' joint shuffle.
Every secret of both peers (identities, coin flip, hand seeds) is derived
from the game's deal, not its number, so the two games of a duplicate pair
run the same shuffle and get the same cards, seats swapped, and a run is
reproducible. The cards are not those ``inproc`` deals for the same seed,
and a deal book's explicit decks cannot be played (a mental-poker deck
cannot be chosen); its seed deals can. With ``--replays DIR`` each game's
signed replay (seat 0's copy) is written there as ``game-NNNNNN.p66``,
verifiable with ``p2p66 verify``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from p2p66.bots.api import Bot, BotFault, as_action
from p2p66.engine.view import PlayerView
from p2p66.live.derived import derived_identity, derived_rng
from p2p66.live.game import LiveGame, LiveGameError
from p2p66.live.table import context_of
from p2p66.net import Identity, Listener, generate_words, join
from p2p66.net.identity import MAX_NAME_LENGTH
from p2p66.replay.fileio import ReplayWriter
from p2p66.runner.deals import Deal, shown_deck
from p2p66.runner.game import GameSpec, _Forfeited
from p2p66.runner.records import (
    FAULT_KINDS,
    DealtHand,
    Forfeit,
    GameResult,
    Side,
    TimedMove,
    replay_file_name,
)
from p2p66.session import events as ev
from p2p66.session.peer import Peer, Signer
from p2p66.ui.bots import turn_for

SOUNDNESS = 256
"""Bot matches prove their shuffles like people's: the shuffle argument (SPEC.md 9.3, soundness
value 256) costs milliseconds; the runner may not import the crypto layer for its constant."""
JOIN_TIMEOUT = 30.0


def play_over_loopback(
    spec: GameSpec, bot_a: Bot, bot_b: Bot, *, soundness: int = SOUNDNESS
) -> GameResult:
    """Play one game of the run as two peers over loopback TCP."""
    return asyncio.run(_play(spec, bot_a, bot_b, soundness))


def _deal_key(deal: Deal) -> str:
    """The key every seat's secrets derive from: the deal, alike in both games of a pair."""
    if deal.deck is not None:
        raise ValueError("peers cannot deal a chosen deck: a deal played by peers must be a seed")
    return deal.key


@dataclass
class Seating:
    """The two seats of one game played by two peers: bots, sides, identities, peers, clock."""

    spec: GameSpec
    seats: list[Bot]
    side_of: tuple[Side, Side]
    ids: list[Identity]
    peers: list[Peer]
    clock: _Clock
    forfeit: Forfeit | None
    started: float

    def result(self) -> GameResult:
        """The game's result from seat 0's machine (the forfeit, if a bot forfeited)."""
        spec, side_of, forfeit, clock = self.spec, self.side_of, self.forfeit, self.clock
        match = self.peers[0].machine.match
        dealt = tuple(
            DealtHand(hand.dealer, None if hand.deck is None else shown_deck(hand.deck))
            for hand in self.peers[0].machine.hands
        )
        points = match.game_points if match is not None else (0, 0)
        a, b = spec.a_seat, 1 - spec.a_seat
        winner: Side | None
        if forfeit is not None:
            winner = "b" if forfeit.side == "a" else "a"
        elif match is not None and match.winner is not None:
            winner = side_of[match.winner]
        else:
            winner = None
        return GameResult(
            game=spec.game,
            pair=spec.pair,
            a_seat=spec.a_seat,
            winner=winner,
            points=(points[a], points[b]),
            hands=len(dealt),
            moves=clock.moves,
            seconds=time.perf_counter() - self.started,
            think=(clock.think[a], clock.think[b]),
            max_move=(clock.longest[a], clock.longest[b]),
            forfeit=forfeit,
            deals=dealt,
            moves_timed=clock.timed_hands(len(dealt)) if spec.record_moves else None,
        )


def seat_bots(spec: GameSpec, bot_a: Bot, bot_b: Bot, soundness: int) -> Seating:
    """Start both bots and make the two peers; the game's deal seeds their keys and shuffles."""
    seats: list[Bot] = [bot_a, bot_b] if spec.a_seat == 0 else [bot_b, bot_a]
    side_of: tuple[Side, Side] = ("a", "b") if spec.a_seat == 0 else ("b", "a")
    rules = spec.options
    started = time.perf_counter()
    forfeit: Forfeit | None = None
    for seat in (0, 1):
        try:
            seats[seat].start_game(seat, rules)
        except Exception as exc:  # a bot that cannot start forfeits
            kind = exc.kind if isinstance(exc, BotFault) and exc.kind in FAULT_KINDS else "crash"
            forfeit = Forfeit(side_of[seat], kind, f"at the start: {exc}")
            break
    key = _deal_key(spec.the_deal)
    ids = [derived_identity(seat_name(seats[s], s), key, s) for s in (0, 1)]
    rngs = [derived_rng(key, s) for s in (0, 1)]
    peers = [
        Peer(0, _signer(ids[0]), options=rules, soundness=soundness, rng=rngs[0]),
        Peer(1, _signer(ids[1]), rng=rngs[1]),
    ]
    return Seating(spec, seats, side_of, ids, peers, _Clock(), forfeit, started)


async def _play(spec: GameSpec, bot_a: Bot, bot_b: Bot, soundness: int) -> GameResult:
    seating = seat_bots(spec, bot_a, bot_b, soundness)
    if seating.forfeit is None:
        try:
            await _run_peers(spec, seating.seats, seating.peers, seating.ids, seating.clock)
        except _Forfeited as fault:
            seating.forfeit = Forfeit(seating.side_of[fault.seat], fault.kind, fault.detail)
    return seating.result()


def seat_name(bot: Bot, seat: int) -> str:
    """The name a bot plays under in its replay: an external bot's ``ready`` name, else the
    bot's own (``strong``, ``expert``), made a valid player name (``bot-N`` if nothing is left)."""
    hello = getattr(bot, "hello", None)
    declared = hello.get("name") if isinstance(hello, dict) else None
    raw = declared if isinstance(declared, str) and declared.strip() else bot.name
    kept = "".join(ch if not unicodedata.category(ch).startswith(("C", "Z")) else " " for ch in raw)
    name = " ".join(kept.split())[:MAX_NAME_LENGTH].strip()
    return name or f"bot-{seat}"


def _signer(identity: Identity) -> Signer:
    return Signer(identity.name, identity.public_key, identity.sign)


class _Clock:
    """Thinking time per seat, and (for ``--record``) every decision per hand number."""

    def __init__(self) -> None:
        self.think = [0.0, 0.0]
        self.longest = [0.0, 0.0]
        self.moves = 0
        self.timed: dict[int, list[TimedMove]] = {}

    def timed_hands(self, hands: int) -> tuple[tuple[TimedMove, ...], ...]:
        """The decisions of hands 1..``hands`` (a hand cut short holds what was decided)."""
        return tuple(tuple(self.timed.get(number, ())) for number in range(1, hands + 1))


Decider = Callable[[PlayerView], Awaitable[int]]


def decide_now(
    spec: GameSpec, seat: int, bot: Bot, peer: Peer, *, clock: _Clock, view: PlayerView
) -> int:
    """Ask ``bot`` for seat ``seat``'s move, timed; a fault raises ``_Forfeited``."""
    turn = turn_for(view, context_of(peer), spec.time.per_move)
    t0 = time.perf_counter()
    try:
        action = as_action(bot.choose(turn))
    except BotFault as fault:
        kind = fault.kind if fault.kind in FAULT_KINDS else "protocol"
        raise _Forfeited(seat, kind, fault.detail) from None
    except Exception as exc:
        raise _Forfeited(seat, "crash", f"{type(exc).__name__}: {exc}") from None
    seconds = time.perf_counter() - t0
    clock.think[seat] += seconds
    clock.longest[seat] = max(clock.longest[seat], seconds)
    clock.moves += 1
    if spec.time.over(seconds):
        limit = f"limit {spec.time.per_move}s + {spec.time.margin}s"
        raise _Forfeited(seat, "timeout", f"took {seconds:.3f}s, {limit}")
    if action.move not in view.legal:
        raise _Forfeited(seat, "illegal", f"{action.move} is not legal here")
    if spec.record_moves:
        timed = TimedMove(seat, action.move.notation, seconds, dict(action.info))
        clock.timed.setdefault(turn.hand_number, []).append(timed)
    return action.move.code


def _decider(spec: GameSpec, seat: int, bot: Bot, peer: Peer, clock: _Clock) -> Decider:
    async def decide(view: PlayerView) -> int:
        return await asyncio.to_thread(decide_now, spec, seat, bot, peer, clock=clock, view=view)

    return decide


def _hand_ends(seat: int, bot: Bot, peer: Peer) -> Callable[[ev.Event], None]:
    def sink(event: ev.Event) -> None:
        if isinstance(event, ev.HandEnded):
            view = peer.view()
            if view is not None and view.result is not None:
                with contextlib.suppress(Exception):
                    bot.end_hand(view)

    return sink


async def _run_peers(
    spec: GameSpec, seats: list[Bot], peers: list[Peer], ids: list[Identity], clock: _Clock
) -> None:
    writer = _replay_writer(spec)
    games = [
        LiveGame(
            peers[s],
            _decider(spec, s, seats[s], peers[s], clock),
            writer=writer if s == 0 else None,
            on_event=_hand_ends(s, seats[s], peers[s]),
        )
        for s in (0, 1)
    ]
    listener = await Listener.open(
        ids[0],
        words=generate_words(random.Random(spec.seed * 7919 + spec.game)),
        bind="127.0.0.1",
        port=0,
        allow_known=False,
    )
    code = listener.join_code("127.0.0.1")

    async def guest() -> None:
        await games[1].run(await join(code, ids[1]))

    async def host() -> None:
        await games[0].run(await listener.accept(timeout=JOIN_TIMEOUT))

    tasks = [asyncio.create_task(host()), asyncio.create_task(guest())]
    try:
        done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            exc = task.exception()
            if isinstance(exc, _Forfeited):
                raise exc
        for task in tasks:
            with contextlib.suppress(LiveGameError):
                await task
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for game in games:
            if game.channel is not None:
                with contextlib.suppress(Exception):
                    await game.channel.aclose("bot match stopped")
        await listener.aclose()
        if writer is not None:
            writer.sync()
            writer.close()


def _replay_writer(spec: GameSpec) -> ReplayWriter | None:
    """The signed replay of the game (seat 0's copy), as ``p2p66 verify`` reads it.

    Not fsynced record by record: no bot acts on a record surviving a crash (a game
    cut by a crash is played again), and a run writes thousands of records a
    second. The file and its directory are made durable once the game is over.
    """
    if spec.replay_dir is None:
        return None
    path = Path(spec.replay_dir) / replay_file_name(spec.game)
    path.unlink(missing_ok=True)
    return ReplayWriter(path, fsync=False)
