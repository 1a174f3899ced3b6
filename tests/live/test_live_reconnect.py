"""Reconnecting over loopback TCP: only the opponent may resume; a second drop is survived."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from livekit import CuttableProxy

from p2p66.engine import PlayerView, preset
from p2p66.live.game import LiveGame
from p2p66.live.loopback import seeded_rng, signer_of
from p2p66.live.table import bot_decider
from p2p66.net import Identity, KnownPeers, Listener, NotThisMatch, PeerClosed, join, join_known
from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer
from p2p66.ui.bots import make_table_bot

FAST = ChannelConfig(heartbeat_interval=0.2, idle_timeout=5.0)
ALICE = Identity.from_seed("alice", b"a" * 32)
BOB = Identity.from_seed("bob", b"b" * 32)
CAROL = Identity.from_seed("carol", b"c" * 32)  # alice's opponent in an earlier match


@dataclass
class Link:
    """What a rejoin hook may use: the cuttable link, its port, the pins, what happened."""

    proxy: CuttableProxy
    port: int
    listener: Listener
    tmp_path: Path
    bob_pins: KnownPeers
    notes: list[object] = field(default_factory=list)

    async def bob_rejoins(self) -> SecureChannel:
        return await join_known(
            "127.0.0.1", self.port, BOB, self.bob_pins, config=FAST, expect_key=ALICE.public
        )

    async def carol_rejoins(self) -> SecureChannel:
        pins = KnownPeers(self.tmp_path / "carol.json", {"alice": ALICE.public_key})
        return await join_known("127.0.0.1", self.port, CAROL, pins, config=FAST)


Rejoin = Callable[[int, Link], Awaitable[SecureChannel]]


async def _dropped_match(
    tmp_path: Path, rejoin: Rejoin, *, only_opponent: bool
) -> tuple[LiveGame, LiveGame, Link]:
    """Alice hosts Bob over a link cut at her third move; ``rejoin`` brings Bob back."""
    options = preset("schnapsen").with_options(match_target=2)
    host_pins = KnownPeers.load(tmp_path / "a")
    host_pins.pin(CAROL.public)
    bob_pins = KnownPeers.load(tmp_path / "b")
    listener = await Listener.open(
        ALICE, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0,
        known_peers=host_pins, config=FAST,
    )  # fmt: skip
    proxy = CuttableProxy(listener.port)
    link = Link(proxy, await proxy.start(), listener, tmp_path, bob_pins)
    host = Peer(0, signer_of(ALICE), options=options, soundness=0, rng=seeded_rng(4, 0))
    guest = Peer(1, signer_of(BOB), rng=seeded_rng(4, 1))
    bots = (make_table_bot("random", 1, options), make_table_bot("random", 2, options))
    host_decide = bot_decider(host, bots[0])
    moves = 0

    async def decide_and_cut(view: PlayerView) -> int:
        nonlocal moves
        moves += 1
        if moves == 3:
            proxy.cut()
            await asyncio.sleep(0.1)
        return await host_decide(view)

    rejoins = 0

    async def guest_reconnect() -> SecureChannel:
        nonlocal rejoins
        rejoins += 1
        return await rejoin(rejoins, link)

    async def host_reconnect() -> SecureChannel:
        return await listener.accept()

    host_game = LiveGame(host, decide_and_cut, reconnect=host_reconnect, grace=15)
    guest_game = LiveGame(guest, bot_decider(guest, bots[1]), reconnect=guest_reconnect, grace=15)

    async def run_guest() -> None:
        code = f"fox-lamp-river@127.0.0.1:{link.port}"
        await guest_game.run(await join(code, BOB, known_peers=bob_pins, config=FAST))

    guest_task = asyncio.create_task(run_guest())
    try:
        first = await listener.accept(timeout=10)
        if only_opponent:
            listener.only_for(first.peer)
        await host_game.run(first)
        await asyncio.wait_for(guest_task, 30)
    finally:
        guest_task.cancel()
        proxy.close()
        listener.close()
    return host_game, guest_game, link


def _assert_same_finished_match(host: LiveGame, guest: LiveGame) -> None:
    assert host.records == guest.records
    machine = Machine()
    for record in host.records:
        machine.receive(record)
    assert machine.match is not None and machine.match.winner is not None


@pytest.mark.timeout(90)
def test_a_second_drop_during_the_resync_goes_back_to_waiting(tmp_path: Path) -> None:
    async def rejoin(attempt: int, link: Link) -> SecureChannel:
        channel = await link.bob_rejoins()
        if attempt == 1:
            link.proxy.cut()  # the link fails again while both resynchronise
        return channel

    host, guest, _ = asyncio.run(_dropped_match(tmp_path, rejoin, only_opponent=True))
    _assert_same_finished_match(host, guest)
    assert host.resumes >= 1 and guest.resumes >= 1


@pytest.mark.timeout(90)
def test_an_earlier_opponent_cannot_take_the_place_of_the_one_who_dropped(
    tmp_path: Path,
) -> None:
    async def rejoin(attempt: int, link: Link) -> SecureChannel:
        if attempt == 1:
            try:
                await link.carol_rejoins()  # `join --rematch` by alice's earlier opponent
            except NotThisMatch as exc:
                link.notes.append(exc)
        return await link.bob_rejoins()

    host, guest, link = asyncio.run(_dropped_match(tmp_path, rejoin, only_opponent=True))
    _assert_same_finished_match(host, guest)
    (refusal,) = link.notes
    assert "waiting for the opponent of its match in progress" in str(refusal)
    assert any(isinstance(exc, NotThisMatch) for _, exc in link.listener.rejected)


@pytest.mark.timeout(90)
def test_the_game_itself_sends_away_a_reconnection_by_another_key(tmp_path: Path) -> None:
    async def rejoin(attempt: int, link: Link) -> SecureChannel:
        if attempt == 1:
            stranger = await link.carol_rejoins()  # the listener lets her in; the game must not
            try:
                await asyncio.wait_for(stranger.recv(), 10)
            except PeerClosed as exc:
                link.notes.append(exc.reason)
        return await link.bob_rejoins()

    host, guest, link = asyncio.run(_dropped_match(tmp_path, rejoin, only_opponent=False))
    _assert_same_finished_match(host, guest)
    (reason,) = link.notes
    assert "carol" in str(reason) and "refused" in str(reason)


@pytest.mark.timeout(30)
def test_giving_up_on_a_silent_reconnection_says_why_in_words(tmp_path: Path) -> None:
    from p2p66.live.game import LiveGameError
    from p2p66.net.errors import ConnectionLost

    async def never() -> SecureChannel:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def main() -> LiveGameError:
        host = Peer(0, signer_of(ALICE), options=preset("schnapsen"), soundness=0)

        async def unused(view: PlayerView) -> int:
            raise AssertionError("no move expected")

        game = LiveGame(host, unused, reconnect=never, grace=0.3)
        with pytest.raises(LiveGameError) as info:
            await game._resume(ConnectionLost("the link dropped"))
        return info.value

    error = asyncio.run(main())
    assert error.kind == "disconnected" and "()" not in str(error)
    assert "(last: no answer in time)" in str(error)
