"""The lobby of a three- or four-player table: seat joiners, agree on the seating, hand over.

One join code for the whole table, seats in order of arrival: the host prints
one code, every joiner runs the ordinary join-code handshake
(``p2p66.net.handshake``: its own SPAKE2 exchange and identity) and takes the
next free seat. The code is armed for one attempt per free seat, so friends
joining at the same moment do not lock each other out; any wrong guess makes
the host draw a new code and show it (``on_code``), so a stranger still gets
at most one guess per free seat per code shown. Bot seats are filled first, in
this process, over memory channels. Once every seat is taken the host sends
the ``Seating`` (see ``p2p66.net.seating``); each player checks it names
itself and the host truly, and signs it or refuses. With every signature in,
the host sends them all (``start``) and each side gets a ``Table``: the host
one channel per joiner seat, a joiner its channel to the host.

What can go wrong and what it does: a joiner that never finishes the
handshake holds no seat (the handshake's own timeouts end it); a second
joiner with an identity already seated, or anyone once the table is full,
is turned away with a reason; a joiner that refuses, leaves, stays silent
past ``answer_timeout`` or sends a malformed message loses its seat, the
others are told the seating is void, and the seat is offered again. Every
error names whom it is about.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from p2p66.net.channel import DEFAULT_CONFIG, ChannelConfig, SecureChannel
from p2p66.net.discovery import Advertisement
from p2p66.net.errors import (
    AuthenticationError,
    BadSignature,
    PeerClosed,
    PeerTimeout,
    TransportError,
)
from p2p66.net.identity import Identity, KnownPeers, PeerIdentity
from p2p66.net.joincode import JoinCode
from p2p66.net.memory import memory_channel_pair
from p2p66.net.seating import (
    MAX_SEATS,
    MIN_SEATS,
    NONCE_SIZE,
    MalformedLobbyMessage,
    Seating,
    decode,
    encode,
    seating_from,
)
from p2p66.net.tcp import Listener, join

ANSWER_TIMEOUT: Final = 120.0
"""Seconds a seated player has to accept or refuse the seating (a person reads it)."""
TABLE_FULL: Final = "the table is full"
ALREADY_SEATED: Final = "this identity already sits at the table"


class SeatingRefused(AuthenticationError):
    """We refused the seating (joiner side): the match does not start for us."""


class TableFull(AuthenticationError):
    """The host turned us away: every seat is taken, or our identity already sits there."""


@dataclass(frozen=True, slots=True)
class LobbyEvent:
    """Something the host (or a joiner) should show: ``kind`` is stable, ``text`` is for people."""

    kind: str
    text: str
    seat: int | None = None
    peer: PeerIdentity | None = None


EventHandler = Callable[[LobbyEvent], None]
Decide = Callable[[Seating, int], Awaitable[str | None]]
"""A joiner's answer to a seating at its seat: ``None`` to accept, else the reason to refuse."""


async def accept_any(seating: Seating, seat: int) -> str | None:
    """Accept every seating (bots, and joiners started with ``--yes``)."""
    return None


@dataclass(frozen=True, slots=True)
class Table:
    """A seated table: the signed seating, our seat and channels ready for the session."""

    seating: Seating
    signatures: tuple[bytes, ...]
    seat: int
    channels: dict[int, SecureChannel]
    """Host: one channel per joiner seat (bots included); joiner: ``{0: host}``."""
    bots: dict[int, Table] = field(default_factory=dict)
    """Host only: the bot seats' own tables (their ends of the memory channels)."""

    @property
    def table_id(self) -> bytes:
        return self.seating.table_id


class SeatedPeers(KnownPeers):
    """The seated players' keys as known peers, for the known-peer handshake of a
    reconnection to the table; in memory only, never saved (``known_peers.json`` is the
    user's own list, and a seating does not pin anyone in it)."""

    def __init__(self, peers: list[PeerIdentity]) -> None:
        super().__init__(Path("seated-players"))
        for peer in peers:
            self._names[peer.public_key] = peer.name

    def _save(self) -> None:
        pass


def _ignore(event: LobbyEvent) -> None:
    pass


async def _recv(channel: SecureChannel, timeout: float | None, sender: str) -> dict[str, Any]:
    try:
        async with asyncio.timeout(timeout):
            data = await channel.recv()
    except TimeoutError:
        raise PeerTimeout(f"{sender} did not answer within {timeout:g} s") from None
    return decode(data, sender)


def _who(seat: int, peer: PeerIdentity) -> str:
    return f"seat {seat} ({peer.name}, {peer.fingerprint})"


class _HostLobby:
    def __init__(
        self,
        listener: Listener,
        identity: Identity,
        *,
        seats: int,
        preset: str,
        bots: Mapping[int, Identity],
        on_event: EventHandler,
        on_code: Callable[[Listener], None],
        answer_timeout: float,
        config: ChannelConfig,
        advertisement: Advertisement | None,
    ) -> None:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
        if any(not 1 <= s < seats for s in bots):
            raise ValueError(f"bot seats are 1 to {seats - 1} (seat 0 is the host)")
        self.listener = listener
        self.identity = identity
        self.seats = seats
        self.preset = preset
        self.bot_ids = dict(bots)
        self.event = on_event
        self.on_code = on_code
        self.answer_timeout = answer_timeout
        self.config = config
        self.advertisement = advertisement
        self.seated: dict[int, SecureChannel] = {}
        self.bot_tasks: dict[int, asyncio.Task[Table]] = {}

    @property
    def free(self) -> list[int]:
        """The seats still open to joiners (bot seats are never)."""
        return [s for s in range(1, self.seats) if s not in self.seated and s not in self.bot_ids]

    def _rearm(self) -> None:
        """One attempt per free seat, so joiners arriving together do not lock each other out."""
        if self.free:
            self.listener.keep_code(attempts=len(self.free))

    async def _seat_bots(self) -> None:
        for seat, bot in sorted(self.bot_ids.items()):
            host_end, bot_end = await memory_channel_pair(self.identity, bot, config=self.config)
            self.seated[seat] = host_end
            self.bot_tasks[seat] = asyncio.create_task(
                seat_joiner(bot_end, bot, decide=accept_any, answer_timeout=None)
            )
            await self._tell_seat(seat)

    async def _announce(self) -> None:
        if self.advertisement is not None:
            await self.advertisement.set_seats(len(self.free), self.seats)

    async def _tell_seat(self, seat: int) -> None:
        await self._announce()
        taken = len(self.seated) + 1
        with contextlib.suppress(TransportError):
            await self.seated[seat].send(encode("wait", seat=seat, seated=taken, of=self.seats))

    async def _admit(self, channel: SecureChannel) -> None:
        peer = channel.peer
        keys = {self.identity.public_key} | {c.peer.public_key for c in self.seated.values()}
        if peer.public_key in keys or not self.free:
            reason = ALREADY_SEATED if peer.public_key in keys else TABLE_FULL
            await channel.aclose(reason)
            self.event(LobbyEvent("turned-away", f"{peer.name} ({peer.fingerprint}): {reason}"))
            return
        seat = self.free[0]
        self.seated[seat] = channel
        self.event(LobbyEvent("seated", f"{_who(seat, peer)} sat down", seat, peer))
        await self._tell_seat(seat)

    async def _fill(self) -> None:
        while self.free:
            self._rearm()
            try:
                channel = await self.listener.accept()
            except TransportError as exc:  # a code attempt failed: the code is spent
                self.event(LobbyEvent("attempt-failed", f"a join attempt failed: {exc}"))
                self.listener.renew_code()
                self.on_code(self.listener)
                continue
            await self._admit(channel)

    async def _turn_away(self) -> None:
        """While the seating is out: anyone else who gets in hears that the table is full."""
        while True:
            self.listener.keep_code()  # one attempt at a time: it hears that the table is full
            try:
                channel = await self.listener.accept()
            except TransportError:
                self.listener.renew_code()
                self.on_code(self.listener)
                continue
            await self._admit(channel)

    def _seating(self) -> Seating:
        people = [self.identity.public] + [self.seated[s].peer for s in range(1, self.seats)]
        return Seating(os.urandom(NONCE_SIZE), self.preset, tuple(people))

    async def _ask(self, seat: int, seating: Seating) -> tuple[int, bytes | str]:
        """Seat ``seat``'s signature, or why it lost its seat."""
        channel = self.seated[seat]
        who = _who(seat, channel.peer)
        try:
            answer = await _recv(channel, self.answer_timeout, who)
        except (TransportError, MalformedLobbyMessage) as exc:
            return seat, f"{who} left: {exc}"
        if answer["t"] == "refuse":
            return seat, f"{who} refused the seating: {answer['reason']}"
        if answer["t"] != "accept":
            return seat, f"{who} sent {answer['t']!r} instead of its answer to the seating"
        try:
            channel.peer.verify(answer["sig"], seating.signing_input())
        except BadSignature as exc:
            return seat, f"{who}: {exc}"
        return seat, answer["sig"]

    async def _propose(self) -> Table | None:
        seating = self._seating()
        sig = self.identity.sign(seating.signing_input())
        message = encode("seating", **seating.body(), sig=sig)
        for channel in self.seated.values():
            with contextlib.suppress(TransportError):
                await channel.send(message)
        self.event(LobbyEvent("seating", f"seating sent, table {seating.table_id.hex()[:16]}"))
        turning = asyncio.create_task(self._turn_away())
        try:
            answers = await asyncio.gather(*(self._ask(s, seating) for s in sorted(self.seated)))
        finally:
            turning.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await turning
        lost = {seat: why for seat, why in answers if isinstance(why, str)}
        if lost:
            await self._void(lost)
            return None
        sigs = [sig] + [s for _, s in answers if isinstance(s, bytes)]
        start = encode("start", sigs=sigs)
        for seat, channel in self.seated.items():
            try:
                await channel.send(start)
            except TransportError as exc:
                await self._void({seat: f"{_who(seat, channel.peer)} left: {exc}"})
                return None
        bots = {seat: await task for seat, task in self.bot_tasks.items()}
        self.event(LobbyEvent("start", "every player signed the seating"))
        return Table(seating, tuple(sigs), 0, dict(self.seated), bots)

    async def _void(self, lost: dict[int, str]) -> None:
        for seat, why in sorted(lost.items()):
            channel = self.seated.pop(seat)
            self.event(LobbyEvent("unseated", why, seat, channel.peer))
            await channel.aclose(why[:150])
        await self._announce()
        reason = "; ".join(lost.values())[:200]
        for channel in self.seated.values():
            with contextlib.suppress(TransportError):
                await channel.send(encode("void", reason=reason))

    async def run(self) -> Table:
        try:
            self._rearm()  # before anything waits: joiners may be knocking already
            await self._seat_bots()
            while True:
                await self._fill()
                table = await self._propose()
                if table is not None:
                    return table
        except BaseException:
            for task in self.bot_tasks.values():
                task.cancel()
            for channel in self.seated.values():
                channel.close("the host stopped seating")
            raise


async def host_table(
    listener: Listener,
    identity: Identity,
    *,
    seats: int,
    preset: str,
    bots: Mapping[int, Identity] | None = None,
    on_event: EventHandler | None = None,
    on_code: Callable[[Listener], None] | None = None,
    answer_timeout: float = ANSWER_TIMEOUT,
    config: ChannelConfig = DEFAULT_CONFIG,
    advertisement: Advertisement | None = None,
) -> Table:
    """Seat ``seats`` players (the host at 0, ``bots`` at their seats) through ``listener``.

    ``listener`` must be open with join-code words; ``on_code`` is called
    whenever a failed attempt made a new code, to show it; ``advertisement``
    (LAN discovery) is kept told how many seats are free. Waits until the
    table is seated and signed (wrap in ``asyncio.timeout`` to give up).
    """
    lobby = _HostLobby(
        listener,
        identity,
        seats=seats,
        preset=preset,
        bots=bots or {},
        on_event=on_event or _ignore,
        on_code=on_code or (lambda _listener: None),
        answer_timeout=answer_timeout,
        config=config,
        advertisement=advertisement,
    )
    return await lobby.run()


async def seat_joiner(
    channel: SecureChannel,
    identity: Identity,
    *,
    decide: Decide = accept_any,
    answer_timeout: float | None = None,
    on_event: EventHandler | None = None,
) -> Table:
    """A joiner's side of the lobby on its channel to the host, until the table starts.

    ``answer_timeout`` bounds each wait for the host (``None``: the channel's
    own liveness checks only, since filling a table can take a while).
    """
    event = on_event or _ignore
    host = channel.peer
    sender = f"the host {host.name} ({host.fingerprint})"
    seating: Seating | None = None
    my_seat: int | None = None
    try:
        while True:
            message = await _recv(channel, answer_timeout, sender)
            kind = message["t"]
            if kind == "wait":
                my_seat = message["seat"]
                text = f"seat {my_seat}: {message['seated']} of {message['of']} seats taken"
                event(LobbyEvent("wait", text, my_seat))
            elif kind == "seating":
                seating = _check_seating(message, sender, host, identity, my_seat)
                my_seat = seating.seats.index(identity.public)
                reason = await decide(seating, my_seat)
                if reason is not None:
                    await channel.send(encode("refuse", reason=reason[:200]))
                    await channel.aclose("refused the seating")
                    raise SeatingRefused(f"you refused the seating: {reason}")
                await channel.send(encode("accept", sig=identity.sign(seating.signing_input())))
            elif kind == "void":
                seating = None
                event(LobbyEvent("void", f"the seating is off: {message['reason']}"))
            elif kind == "start" and seating is not None and my_seat is not None:
                seating.check_signatures(message["sigs"])
                return Table(seating, tuple(message["sigs"]), my_seat, {0: channel})
            else:
                raise MalformedLobbyMessage(f"{sender} sent {kind!r} out of turn")
    except PeerClosed as exc:
        if exc.reason in (TABLE_FULL, ALREADY_SEATED):
            raise TableFull(f"{sender} turned us away: {exc.reason}") from None
        raise


async def join_table(
    code: JoinCode | str,
    identity: Identity,
    *,
    decide: Decide = accept_any,
    known_peers: KnownPeers | None = None,
    answer_timeout: float | None = None,
    on_event: EventHandler | None = None,
    config: ChannelConfig = DEFAULT_CONFIG,
) -> Table:
    """Join the table named in ``code`` (the ordinary join-code handshake), then be seated."""
    channel = await join(code, identity, known_peers=known_peers, config=config)
    try:
        return await seat_joiner(
            channel, identity, decide=decide, answer_timeout=answer_timeout, on_event=on_event
        )
    except BaseException:
        channel.close("the joiner stopped")
        raise


def _check_seating(
    message: dict[str, Any],
    sender: str,
    host: PeerIdentity,
    identity: Identity,
    announced: int | None,
) -> Seating:
    seating = seating_from(message, sender)
    if seating.seats[0] != host:
        raise MalformedLobbyMessage(f"{sender}'s seating puts someone else at the host's seat 0")
    me = identity.public
    if me not in seating.seats:
        raise MalformedLobbyMessage(f"{sender}'s seating leaves us out (or renames us)")
    if announced is not None and seating.seats.index(me) != announced:
        raise MalformedLobbyMessage(
            f"{sender}'s seating moves us from seat {announced} to {seating.seats.index(me)}"
        )
    host.verify(message["sig"], seating.signing_input())
    return seating
