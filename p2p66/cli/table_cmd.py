"""``p2p66 host --preset north-american ...`` and ``p2p66 join --table CODE``: the seating.

The typer layer of ``p2p66.live.tablelobby``: it prints, asks, and maps the
outcome to an exit code. Both commands stop once the table is seated and
signed, with ``NOT_YET`` and exit code 2, until the N-party session lands.
"""

from __future__ import annotations

import asyncio

import typer

from p2p66.cli.exits import EXIT_NETWORK, EXIT_REFUSED, EXIT_USAGE
from p2p66.live.tablelobby import (
    NOT_YET,
    TableHosting,
    close_table,
    host_seated_table,
    join_seated_table,
    seating_lines,
)
from p2p66.net.errors import TransportError
from p2p66.net.identity import load_or_create_identity
from p2p66.net.joincode import JoinCodeError
from p2p66.net.lobby import SeatingRefused, Table
from p2p66.net.seating import Seating


def _say(text: str) -> None:
    typer.echo(text, err=True)


def _show_code(code: str) -> None:
    print(code, flush=True)


async def _stop_at_the_seated_table(table: Table) -> int:
    for line in seating_lines(table):
        _say(line)
    _say(f"p2p66: {NOT_YET}.")
    await close_table(table, NOT_YET)
    return EXIT_USAGE


async def host_table_main(hosting: TableHosting, name: str | None, wait: float) -> int:
    """Host a table until it is seated (at most ``wait`` seconds)."""
    me = load_or_create_identity(name)
    _say(f"Hosting {hosting.preset} as {me.name} ({me.fingerprint}), seat 0.")
    try:
        async with asyncio.timeout(wait):
            table = await host_seated_table(hosting, me, _say, _show_code)
    except TimeoutError:
        _say(f"p2p66: the table was not seated within {wait:g} s")
        return EXIT_NETWORK
    except TransportError as exc:
        _say(f"p2p66: cannot host: {exc}")
        return EXIT_NETWORK
    return await _stop_at_the_seated_table(table)


async def join_table_main(code: str, name: str | None, *, accept: bool) -> int:
    """Join a table and answer its seating (asked unless ``accept``)."""
    me = load_or_create_identity(name)

    async def decide(seating: Seating, seat: int) -> str | None:
        _say(f"The host seats {len(seating.seats)} players for {seating.preset}:")
        for index, peer in enumerate(seating.seats):
            mark = "  <- you" if index == seat else ""
            _say(f"  seat {index}: {peer.name} ({peer.fingerprint}){mark}")
        if accept:
            return None
        ok = await asyncio.to_thread(typer.confirm, "Accept this seating?", default=True)
        return None if ok else "the player refused the seating"

    try:
        table = await join_seated_table(code, me, decide, _say)
    except JoinCodeError as exc:
        _say(f"p2p66: {exc}")
        return EXIT_USAGE
    except SeatingRefused as exc:
        _say(f"p2p66: {exc}")
        return EXIT_REFUSED
    except TransportError as exc:
        _say(f"p2p66: cannot join the table: {exc}")
        return EXIT_NETWORK
    return await _stop_at_the_seated_table(table)
