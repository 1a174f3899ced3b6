"""``p2p66 host`` / ``join --table`` for three and four players, up to the seated table.

Orchestration of the lobby (``p2p66.net.lobby``) for the command line: open
the listener, show the table's code (and advertise its free seats with
``--lan``), seat bots in this process, print what happens, and hand back the
signed ``Table``, which ``p2p66.live.tablenet`` then plays to the end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from p2p66.net.addresses import join_addresses
from p2p66.net.channel import SecureChannel
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode, generate_words
from p2p66.net.lobby import Decide, LobbyEvent, SeatedPeers, Table, host_table, join_table
from p2p66.net.seating import Seating
from p2p66.net.tcp import Listener

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TableHosting:
    """What ``p2p66 host`` was asked for, for a game of ``players``."""

    preset: str
    players: int
    bind: str | None
    port: int
    lan: bool
    bot_seats: tuple[int, ...]
    bot: str


def parse_bot_seats(text: str | None, players: int) -> tuple[int, ...]:
    """``"1,3"`` -> ``(1, 3)``; ``ValueError`` saying what is wrong (seat 0 is the host's)."""
    if not text:
        return ()
    seats: list[int] = []
    for part in text.split(","):
        item = part.strip()
        if not item.isdigit() or not 1 <= int(item) < players:
            raise ValueError(f"bot seats are numbers from 1 to {players - 1}, not {item!r}")
        if int(item) in seats:
            raise ValueError(f"seat {item} is listed twice")
        seats.append(int(item))
    if len(seats) == players - 1:
        raise ValueError("at least one seat must be left for a person who joins")
    return tuple(sorted(seats))


def seating_lines(table: Table) -> list[str]:
    """Who sits where, one line per seat, ours marked."""
    return lines_of_seating(table.seating, table.seat)


def lines_of_seating(seating: Seating, ours: int) -> list[str]:
    """``seating_lines`` before the table is seated (a joiner asked to accept it)."""
    lines = [f"Table {seating.table_id.hex()[:16]} ({seating.preset}):"]
    for seat, peer in enumerate(seating.seats):
        mark = "  <- you" if seat == ours else ""
        lines.append(f"  seat {seat}: {peer.name} ({peer.fingerprint}){mark}")
    return lines


def _event_printer(say: Say) -> Callable[[LobbyEvent], None]:
    def show(event: LobbyEvent) -> None:
        if event.kind != "wait":
            say(event.text[:300])

    return show


def bot_identities(hosting: TableHosting) -> dict[int, Identity]:
    """A fresh identity for each bot seat (bots sit in the host's process)."""
    return {seat: Identity.generate(f"{hosting.bot}-{seat}"[:32]) for seat in hosting.bot_seats}


async def open_table_listener(hosting: TableHosting, identity: Identity) -> Listener:
    """The host's listener, with the table's join code: it seats the table, then stays open
    for the seated joiners' reconnections (``take_back_only_seated``)."""
    return await Listener.open(
        identity, words=generate_words(), bind=hosting.bind, port=hosting.port
    )


def take_back_only_seated(listener: Listener, table: Table) -> None:
    """Once the table is seated: no more join codes, and only a seated joiner's identity gets
    through (the known-peer handshake), to take its seat back after a dropped link."""
    joiners = [table.seating.seats[s] for s in range(1, len(table.seating.seats))]
    listener.take_no_codes()
    listener.known_peers = SeatedPeers(joiners)
    listener.only_for(joiners)


async def host_seated_table(
    listener: Listener,
    hosting: TableHosting,
    identity: Identity,
    say: Say,
    show_code: Callable[[str], None],
    *,
    bots: Mapping[int, Identity] | None = None,
) -> Table:
    """Show the code, seat everyone (bots included) and return the signed table."""
    async with contextlib.AsyncExitStack() as stack:
        bots = bot_identities(hosting) if bots is None else bots

        def codes(current: Listener) -> None:
            say(f"Give the other players this join code ({hosting.players} seats, one code):")
            for code in current.join_codes():
                show_code(f"{code}")

        codes(listener)
        advertisement = None
        if hosting.lan:
            from p2p66.net.discovery import advertise  # zeroconf only for --lan

            advertisement = await stack.enter_async_context(
                await advertise(
                    identity.name,
                    listener.port,
                    fingerprint=identity.fingerprint,
                    preset=hosting.preset,
                    addresses=[b.address for b in join_addresses(listener.bound)],
                    seats=(hosting.players - 1, hosting.players),
                )
            )
            say("Advertised on the local network.")
        return await host_table(
            listener,
            identity,
            seats=hosting.players,
            preset=hosting.preset,
            bots=bots,
            on_event=_event_printer(say),
            on_code=codes,
            advertisement=advertisement,
        )


async def join_seated_table(
    code: JoinCode | str, identity: Identity, decide: Decide, say: Say
) -> Table:
    """Join a table with its code and take part in the seating."""
    return await join_table(code, identity, decide=decide, on_event=_event_printer(say))


async def close_table(table: Table, reason: str, also: Sequence[object] = ()) -> None:
    """Close every channel of ``table`` (and of its bots) with ``reason``, and ``also`` the
    channels that replaced them after a reconnection."""
    for bot in table.bots.values():
        await close_table(bot, reason)
    channels = list(table.channels.values())
    channels += [c for c in also if isinstance(c, SecureChannel) and c not in channels]
    for channel in channels:
        await channel.aclose(reason[:200])
