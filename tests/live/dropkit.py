"""A seated table in memory whose joiners' links the test can cut, refuse or let come back."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from p2p66.cli.table_bots import bot_chooser
from p2p66.live.tableleave import Leaving
from p2p66.live.tablenet import (
    Attach,
    Chooser,
    Dropouts,
    Heard,
    TableEnd,
    options_of,
    play_hosted,
    play_joined,
)
from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.net.identity import Identity
from p2p66.net.lobby import Table
from p2p66.net.memory import memory_channel_pair
from p2p66.net.seating import NONCE_SIZE, Seating
from p2p66.session.peer import Peer

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)
BOT = "greedy"


def table_ids(players: int) -> list[Identity]:
    return [Identity.from_seed(f"p{i}", bytes([120 + i]) * 32) for i in range(players)]


@dataclass
class MemoryTable:
    """Host at seat 0, every other seat a joiner over a memory channel (no bots)."""

    ids: list[Identity]
    host: Table
    joiners: dict[int, Table]
    rejoins: asyncio.Queue[SecureChannel] = field(default_factory=asyncio.Queue)
    links: dict[int, SecureChannel] = field(default_factory=dict)
    """Each joiner's current channel (its end), to cut."""
    notices: list[tuple[int, int, str]] = field(default_factory=list)
    """``(observer seat, seat, state)`` of every link notice heard."""
    refuse_redial: set[int] = field(default_factory=set)
    cuts: list[int] = field(default_factory=list)
    """Every link the test cut, in order."""

    @classmethod
    async def seat(cls, preset: str, players: int) -> MemoryTable:
        ids = table_ids(players)
        seating = Seating(os.urandom(NONCE_SIZE), preset, tuple(i.public for i in ids))
        sigs = tuple(i.sign(seating.signing_input()) for i in ids)
        host_ends: dict[int, SecureChannel] = {}
        joiners: dict[int, Table] = {}
        links: dict[int, SecureChannel] = {}
        for seat in range(1, players):
            host_end, joiner_end = await memory_channel_pair(ids[0], ids[seat], config=CONFIG)
            host_ends[seat] = host_end
            links[seat] = joiner_end
            joiners[seat] = Table(seating, sigs, seat, {0: joiner_end})
        table = cls(ids, Table(seating, sigs, 0, host_ends), joiners)
        table.links = links
        return table

    def cut(self, seat: int) -> None:
        """Seat ``seat``'s link ends (as a dropped connection does, on both sides)."""
        self.links[seat].close("the test cut the link")

    def redial(
        self, seat: int, identity: Identity | None = None
    ) -> Callable[[], Awaitable[SecureChannel]]:
        """The joiner's redial: a new channel whose host end goes to the host's listener."""

        async def dial() -> SecureChannel:
            if seat in self.refuse_redial:
                from p2p66.net.errors import ConnectFailed

                await asyncio.sleep(0.05)
                raise ConnectFailed("the test refuses the connection")
            who = identity or self.ids[seat]
            host_end, joiner_end = await memory_channel_pair(self.ids[0], who, config=CONFIG)
            self.rejoins.put_nowait(host_end)
            self.links[seat] = joiner_end
            return joiner_end

        return dial

    def heard(self, observer: int) -> Callable[[int, str], None]:
        return lambda seat, state: self.notices.append((observer, seat, state))

    def chooser(self, seat: int) -> Chooser:
        return bot_chooser(BOT, seat, options_of(self.host))

    async def play(
        self,
        folder: Path,
        *,
        grace: float = 20.0,
        target: int = 2,
        choosers: dict[int, Chooser] | None = None,
        peers: dict[int, Peer] | None = None,
        leavings: dict[int, Leaving] | None = None,
        attach: Callable[[int], Attach] | None = None,
        on_events: Heard | None = None,
    ) -> list[TableEnd]:
        """Play the match, every seat's replay in ``folder/p<seat>.p66``; ends by seat.
        ``leavings``: a seat's wish to leave; ``attach(seat)``: told its peer and link."""
        choose = choosers or {}
        leave = leavings or {}
        host_drops = Dropouts(grace, rejoins=self.rejoins.get, on_notice=self.heard(0))
        seen = attach or (lambda seat: None)
        plays = [
            play_hosted(
                self.host, self.ids[0], choose.get(0) or self.chooser(0), {},
                replay=folder / "p0.p66", target=target, dropouts=host_drops,
                leaving=leave.get(0), attach=seen(0), on_events=on_events,
            ),
            *(
                play_joined(
                    t, self.ids[s], choose.get(s) or self.chooser(s), replay=folder / f"p{s}.p66",
                    dropouts=Dropouts(grace, redial=self.redial(s), on_notice=self.heard(s)),
                    leaving=leave.get(s), attach=seen(s), on_events=on_events,
                )
                for s, t in sorted(self.joiners.items())
            ),
        ]  # fmt: skip
        async with asyncio.timeout(120):
            results = await asyncio.gather(*plays)
        first = results[0]
        assert isinstance(first, list)
        ends: list[TableEnd] = [first[0]]
        ends += [r for r in results[1:] if isinstance(r, TableEnd)]
        return ends


def cutting_chooser(
    table: MemoryTable, seat: int, at_moves: set[int], then: Callable[[], None] | None = None
) -> Chooser:
    """Seat ``seat``'s bot, whose link is cut just before its moves number ``at_moves``."""
    inner = table.chooser(seat)
    count = 0

    async def choose(peer: Peer) -> int | str:
        nonlocal count
        count += 1
        if count in at_moves:
            table.cuts.append(seat)
            table.cut(seat)
            if then is not None:
                then()
        return await inner(peer)

    return choose


def first_move_sets_off(
    table: MemoryTable, action: Callable[[], None], base: dict[int, Chooser] | None = None
) -> dict[int, Chooser]:
    """Every seat's bot (``base``'s where given); the match's first move, whoever makes it,
    runs ``action`` once, just before (so it happens whatever the deal and the dealer)."""
    fired: list[bool] = []

    def wrap(seat: int) -> Chooser:
        inner = (base or {}).get(seat) or table.chooser(seat)

        async def choose(peer: Peer) -> int | str:
            if not fired:
                fired.append(True)
                action()
            return await inner(peer)

        return choose

    return {seat: wrap(seat) for seat in range(len(table.ids))}


def cut_for_good(table: MemoryTable, *seats: int) -> Callable[[], None]:
    """An action: ``seats``' links end and they cannot dial back."""

    def act() -> None:
        table.refuse_redial.update(seats)
        for seat in seats:
            table.cuts.append(seat)
            table.cut(seat)

    return act
