"""A seated network table with one person's seat (``NetSeatTable``) and bots everywhere else.

The person sits at the host's seat (its bots over in-memory spokes, no TCP
but the lobby's listener) or at a joiner's seat over real loopback TCP with
the host a bot. ``my_move`` is what a sensible person types.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from p2p66.bots.table.expert import TableExpert
from p2p66.cli.table_bots import bot_chooser
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.engine.table import TableView, table_options
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.live.netseat import NetSeatTable
from p2p66.live.tableleave import Leaving
from p2p66.live.tablenet import TableEnd, options_of, play_hosted, play_joined
from p2p66.net.channel import ChannelConfig
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode, generate_words
from p2p66.net.lobby import Table, host_table, join_table
from p2p66.net.tcp import Listener
from p2p66.ui.cards_text import TextStyle

sys.path.insert(0, str(Path(__file__).parent.parent / "ui"))
from uikit import choose

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)
BOT = "greedy"
TARGET = 2


def players_of(preset: str) -> int:
    return table_options(preset, {}).players


def my_move(seat: NetSeatTable) -> str:
    """The expert's call or card, or the two-player kit's move, in the canonical notation."""
    v = seat.view()
    if isinstance(v, TableView):
        return TABLE_NOTATION[TableExpert().choose(v)]
    assert v.hand is not None
    return MOVE_NOTATION[choose(v.hand)]


@asynccontextmanager
async def lobby(
    ids: list[Identity], preset: str, bot_seats: Collection[int], timeout: float
) -> AsyncIterator[tuple[JoinCode, asyncio.Task[Table]]]:
    """A host's lobby on 127.0.0.1 for ``len(ids)`` seats, bots in ``bot_seats``: the code to
    join it and its seating; all of it within ``timeout`` seconds."""
    words = generate_words()
    listener = await Listener.open(ids[0], words=words, bind="127.0.0.1", port=0, config=CONFIG)
    async with listener, asyncio.timeout(timeout):
        code = JoinCode(words, "127.0.0.1", listener.port)
        yield code, asyncio.create_task(
            host_table(
                listener, ids[0], seats=len(ids), preset=preset,
                bots={s: ids[s] for s in bot_seats}, config=CONFIG,
            )
        )  # fmt: skip


@dataclass
class Seated:
    """The person's seat and how to play the whole table (``play(seat.choose)``)."""

    seat: NetSeatTable
    play: Callable[[], Awaitable[TableEnd]]


async def with_person(
    preset: str,
    human: int,
    style: TextStyle,
    folder: Path,
    body: Callable[[Seated], Awaitable[None]],
    *,
    target: int = TARGET,
    leaving: Leaving | None = None,
) -> TableEnd:
    """Seat the table, run ``body`` (the person's screen) beside the match to ``target``; the
    person's end. ``leaving``: the person's wish to leave (a resignation)."""
    players = players_of(preset)
    ids = [Identity.from_seed(f"p{i}", bytes([70 + i]) * 32) for i in range(players)]
    bot_seats = [s for s in range(1, players) if s != human]
    async with lobby(ids, preset, bot_seats, 240) as (code, hosting):
        joined: list[Table] = []
        if human:
            joined.append(await join_table(code, ids[human], config=CONFIG))
        hosted = await hosting
        options = options_of(hosted, target)
        bots = {s: (ids[s], bot_chooser(BOT, s, options)) for s in bot_seats}
        replay = folder / f"p{human}.p66"
        if human == 0:
            seat = NetSeatTable(hosted, style, target=target)
            match = play_hosted(
                hosted, ids[0], seat.choose, bots, replay=replay, on_events=seat.heard,
                target=target, attach=seat.bind, leaving=leaving,
            )  # fmt: skip
            task = asyncio.ensure_future(match)
            others: list[asyncio.Future[object]] = []
        else:
            seat = NetSeatTable(joined[0], style)
            task = asyncio.ensure_future(
                play_joined(
                    joined[0], ids[human], seat.choose, replay=replay, on_events=seat.heard,
                    attach=seat.bind, leaving=leaving,
                )
            )  # fmt: skip
            host_bot = bot_chooser(BOT, 0, options)
            others = [
                asyncio.ensure_future(play_hosted(hosted, ids[0], host_bot, bots, target=target))
            ]

        async def ends() -> TableEnd:
            result = await task
            return result if isinstance(result, TableEnd) else result[0]

        await seat.first_hand()
        await body(Seated(seat, ends))
        end = await ends()
        await asyncio.gather(*others)
        seat.ended(end)
        return end
