"""The lobby over real loopback TCP: one code, seats by arrival, a seating everyone signs.

Every wait has a timeout: the whole test (``pytest.mark.timeout``) and each
``asyncio.timeout`` around the lobby.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netkit import OTHER_WORDS, WORDS

from p2p66.net.channel import ChannelConfig
from p2p66.net.errors import WrongJoinCode
from p2p66.net.identity import Identity
from p2p66.net.joincode import JoinCode
from p2p66.net.lobby import (
    LobbyEvent,
    SeatingRefused,
    Table,
    TableFull,
    host_table,
    join_table,
    seat_joiner,
)
from p2p66.net.memory import memory_channel_pair
from p2p66.net.seating import MalformedLobbyMessage, Seating, decode, encode
from p2p66.net.tcp import Listener, join

CONFIG = ChannelConfig(heartbeat_interval=None, idle_timeout=None, handshake_timeout=5)
LIMIT = 20.0


def player(name: str, n: int) -> Identity:
    return Identity.from_seed(name, bytes([100 + n]) * 32)


@contextlib.asynccontextmanager
async def open_listener(words: tuple[str, ...] = WORDS) -> AsyncIterator[Listener]:
    listener = await Listener.open(
        player("host", 0), words=words, bind="127.0.0.1", port=0, config=CONFIG
    )
    async with listener:
        yield listener


def code(listener: Listener, words: tuple[str, ...] | None = None) -> JoinCode:
    return JoinCode(words or listener.words or WORDS, "127.0.0.1", listener.port)


async def close_all(*tables: Table) -> None:
    for table in tables:
        for bot in table.bots.values():
            await close_all(bot)
        for channel in table.channels.values():
            await channel.aclose()


def start_host(listener: Listener, events: list[LobbyEvent], **options: Any) -> asyncio.Task[Table]:
    """The host's lobby as a task, reporting its events into ``events``."""
    return asyncio.create_task(
        host_table(
            listener,
            player("host", 0),
            preset="p",
            on_event=events.append,
            config=CONFIG,
            **options,
        )
    )


async def until(events: list[LobbyEvent], kind: str, count: int) -> None:
    """Wait (under the test's timeout) until the host has reported ``count`` ``kind`` events."""
    while sum(e.kind == kind for e in events) < count:
        await asyncio.sleep(0.01)


def check_same_table(host: Table, joiners: list[Table]) -> None:
    for table in joiners:
        assert table.table_id == host.table_id
        assert table.seating == host.seating
        assert table.signatures == host.signatures
        host.seating.check_signatures(list(table.signatures))
        assert table.seating.seats[table.seat] == table.channels[0].local


@pytest.mark.timeout(30)
@pytest.mark.parametrize("seats", [3, 4])
def test_joiners_are_seated_in_order_of_arrival_and_all_sign(seats: int) -> None:
    async def main() -> None:
        events: list[LobbyEvent] = []
        async with open_listener() as listener, asyncio.timeout(LIMIT):
            host = start_host(listener, events, seats=seats)
            joined = []
            for n in range(1, seats):  # one after the other: arrival order is seat order
                joined.append(
                    asyncio.create_task(
                        join_table(code(listener), player(f"j{n}", n), config=CONFIG)
                    )
                )
                await until(events, "seated", n)
            tables = [await t for t in joined]
            hosted = await host
        check_same_table(hosted, tables)
        assert [t.seat for t in tables] == list(range(1, seats))
        assert [p.name for p in hosted.seating.seats] == ["host"] + [
            f"j{n}" for n in range(1, seats)
        ]
        assert hosted.seating.preset == "p"
        for table in tables:  # the channels are ready for the session
            await hosted.channels[table.seat].send(b"hello seat %d" % table.seat)
            assert await table.channels[0].recv() == b"hello seat %d" % table.seat
        await close_all(hosted, *tables)

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_joiners_arriving_at_once_all_get_a_seat_with_the_one_code() -> None:
    async def main() -> None:
        async with open_listener() as listener, asyncio.timeout(LIMIT):
            host = asyncio.create_task(
                host_table(listener, player("host", 0), seats=4, preset="p", config=CONFIG)
            )
            tables = await asyncio.gather(
                *(join_table(code(listener), player(f"j{n}", n), config=CONFIG) for n in (1, 2, 3))
            )
            hosted = await host
        check_same_table(hosted, list(tables))
        assert sorted(t.seat for t in tables) == [1, 2, 3]
        await close_all(hosted, *tables)

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_bots_fill_their_seats_in_the_hosts_process() -> None:
    async def main() -> None:
        bots = {1: player("bot1", 11), 3: player("bot3", 13)}
        async with open_listener() as listener, asyncio.timeout(LIMIT):
            host = asyncio.create_task(
                host_table(
                    listener, player("host", 0), seats=4, preset="p", bots=bots, config=CONFIG
                )
            )
            human = await join_table(code(listener), player("human", 2), config=CONFIG)
            hosted = await host
        assert human.seat == 2
        assert set(hosted.bots) == {1, 3}
        check_same_table(hosted, [human, *hosted.bots.values()])
        await hosted.bots[3].channels[0].send(b"bot move")
        assert await hosted.channels[3].recv() == b"bot move"
        await close_all(hosted, human)

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_second_joiner_with_a_seated_identity_and_one_too_many_are_turned_away() -> None:
    async def main() -> None:
        gate = asyncio.Event()

        async def slow(seating: Seating, seat: int) -> str | None:
            await gate.wait()
            return None

        events: list[LobbyEvent] = []
        async with open_listener() as listener, asyncio.timeout(LIMIT):
            host = start_host(listener, events, seats=3)
            first = asyncio.create_task(
                join_table(code(listener), player("a", 1), decide=slow, config=CONFIG)
            )
            await until(events, "seated", 1)
            with pytest.raises(TableFull, match="already sits"):
                await join_table(code(listener), player("a", 1), config=CONFIG)
            second = asyncio.create_task(
                join_table(code(listener), player("b", 2), decide=slow, config=CONFIG)
            )
            await until(events, "seating", 1)
            with pytest.raises(TableFull, match="full"):
                await join_table(code(listener), player("c", 3), config=CONFIG)
            gate.set()
            tables = [await first, await second]
            hosted = await host
        check_same_table(hosted, tables)
        assert [p.name for p in hosted.seating.seats] == ["host", "a", "b"]
        await close_all(hosted, *tables)

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_refusal_frees_the_seat_voids_the_seating_and_the_next_joiner_takes_it() -> None:
    async def main() -> None:
        events: list[LobbyEvent] = []

        async def refuse(seating: Seating, seat: int) -> str | None:
            return "I wanted south-bend"

        async with open_listener() as listener, asyncio.timeout(LIMIT):
            host = start_host(listener, events, seats=3)
            stays = asyncio.create_task(join_table(code(listener), player("a", 1), config=CONFIG))
            await until(events, "seated", 1)
            with pytest.raises(SeatingRefused, match="south-bend"):
                await join_table(code(listener), player("b", 2), decide=refuse, config=CONFIG)
            late = await join_table(code(listener), player("c", 3), config=CONFIG)
            hosted = await host
            first = await stays
        check_same_table(hosted, [first, late])
        assert [p.name for p in hosted.seating.seats] == ["host", "a", "c"]
        unseated = [e for e in events if e.kind == "unseated"]
        assert [e.seat for e in unseated] == [2]
        assert "refused the seating: I wanted south-bend" in unseated[0].text
        await close_all(hosted, first, late)

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_wrong_code_makes_a_new_one_and_a_silent_connection_takes_no_seat() -> None:
    async def main() -> None:
        events: list[LobbyEvent] = []
        codes: list[tuple[str, ...]] = []

        def shown(listener: Listener) -> None:
            assert listener.words is not None
            codes.append(listener.words)

        async with open_listener() as listener, asyncio.timeout(LIMIT):
            silent = socket.create_connection(("127.0.0.1", listener.port))
            host = start_host(listener, events, seats=3, on_code=shown)
            with pytest.raises(WrongJoinCode):
                await join_table(code(listener, OTHER_WORDS), player("x", 9), config=CONFIG)
            while not codes:
                await asyncio.sleep(0.01)
            assert codes[0] != WORDS
            a = asyncio.create_task(join_table(code(listener), player("a", 1), config=CONFIG))
            await until(events, "seated", 1)
            b = await join_table(code(listener), player("b", 2), config=CONFIG)
            hosted = await host
            joined = [await a, b]
            check_same_table(hosted, joined)
            await close_all(hosted, *joined)
            silent.close()

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_malformed_answer_or_a_joiner_leaving_costs_that_joiner_its_seat() -> None:
    async def main() -> None:
        events: list[LobbyEvent] = []
        async with open_listener() as listener, asyncio.timeout(LIMIT):
            host = start_host(listener, events, seats=3)
            rude = await join(code(listener), player("rude", 1), config=CONFIG)
            assert decode(await rude.recv(), "host")["t"] == "wait"
            leaver = await join(code(listener), player("gone", 2), config=CONFIG)
            assert decode(await leaver.recv(), "host")["t"] == "wait"
            assert decode(await rude.recv(), "host")["t"] == "seating"
            await rude.send(b"\x93junk")
            await leaver.aclose("bye")
            a = asyncio.create_task(join_table(code(listener), player("a", 3), config=CONFIG))
            await until(events, "seated", 3)
            b = await join_table(code(listener), player("b", 4), config=CONFIG)
            hosted = await host
            joined = [await a, b]
            check_same_table(hosted, joined)
            await close_all(hosted, *joined)
            await rude.aclose()
        texts = {e.seat: e.text for e in events if e.kind == "unseated"}
        assert "seat 1 (rude" in texts[1] and "not msgpack" in texts[1]
        assert "seat 2 (gone" in texts[2] and "left" in texts[2]

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_joiner_refuses_a_seating_that_leaves_it_out_naming_the_host() -> None:
    async def main() -> None:
        host, me = player("host", 0), player("me", 1)
        host_end, my_end = await memory_channel_pair(host, me, config=CONFIG)
        others = Seating(
            bytes(32), "p", (host.public, player("x", 2).public, player("y", 3).public)
        )
        sig = host.sign(others.signing_input())
        await host_end.send(encode("seating", **others.body(), sig=sig))
        with pytest.raises(MalformedLobbyMessage, match=r"the host host .* leaves us out"):
            async with asyncio.timeout(LIMIT):
                await seat_joiner(my_end, me)
        await host_end.aclose()
        await my_end.aclose()

    asyncio.run(main())


@settings(max_examples=300, derandomize=True)
@given(st.binary(max_size=600))
def test_lobby_messages_decode_or_fail_naming_the_sender(data: bytes) -> None:
    try:
        message = decode(data, "seat 2 (bob)")
    except MalformedLobbyMessage as exc:
        assert "seat 2 (bob)" in str(exc)
        return
    assert encode(message["t"], **{k: v for k, v in message.items() if k not in "tv"}) == data


def test_a_huge_lobby_message_is_refused_before_parsing() -> None:
    with pytest.raises(MalformedLobbyMessage, match="bob sent a 5000-byte"):
        decode(b"\x00" * 5000, "bob")


@pytest.mark.timeout(30)
def test_a_table_of_bots_only_is_seated_without_anyone_joining() -> None:
    async def main() -> None:
        bots = {1: player("b1", 11), 2: player("b2", 12)}
        async with open_listener() as listener, asyncio.timeout(LIMIT):
            hosted = await host_table(
                listener, player("host", 0), seats=3, preset="p", bots=bots, config=CONFIG
            )
        check_same_table(hosted, list(hosted.bots.values()))
        await close_all(hosted)

    asyncio.run(main())


def test_a_lobby_message_with_true_for_its_version_is_refused() -> None:
    data = encode("refuse", reason="x").replace(b"\xa1v\x01", b"\xa1v\xc3")
    with pytest.raises(MalformedLobbyMessage, match="needs exactly t, v 1"):
        decode(data, "bob")
