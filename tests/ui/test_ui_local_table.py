"""LocalTable: the in-process Table runs a whole match against a bot, deterministically."""

from __future__ import annotations

import asyncio
import itertools
import threading

import pytest
from uikit import SIXTY_SIX, choose

from p2p66.engine import IllegalMoveError, PlayerView, preset
from p2p66.ui.bots import (
    BotContext,
    FirstLegalBot,
    TableBot,
    UnknownBotError,
    available_bots,
    make_table_bot,
)
from p2p66.ui.local_table import LocalTable
from p2p66.ui.table import (
    ConnectionStatus,
    HandOver,
    HandStarted,
    MatchOver,
    MovePlayed,
    Notice,
    PeerError,
    TableEvent,
    automatic,
)


async def play_out(table: LocalTable) -> list[TableEvent]:
    """Answer every turn with ``uikit.choose`` and collect the events to the end."""
    events: list[TableEvent] = []
    while True:
        event = await asyncio.wait_for(table.next_event(), 5)
        events.append(event)
        if isinstance(event, MatchOver):
            await table.close()
            return events
        mine = isinstance(event, HandStarted | MovePlayed) and event.view.my_turn
        if mine and automatic(event.view) is None:  # the table plays the others itself
            await table.submit(choose(event.view))


@pytest.mark.timeout(20)
def test_ui_local_table_plays_a_match_in_order() -> None:
    table = LocalTable(SIXTY_SIX.with_options(match_target=3), FirstLegalBot(), seed=11)
    events = asyncio.run(play_out(table))
    assert isinstance(events[0], ConnectionStatus) and events[0].state == "local"
    assert isinstance(events[1], Notice) and "seed 11" in events[1].text
    assert isinstance(events[2], HandStarted) and events[2].hand_number == 1
    over = events[-1]
    assert isinstance(over, MatchOver) and over.winner is not None
    assert max(over.game_points) >= 3
    hands = [e for e in events if isinstance(e, HandOver)]
    assert hands[-1].game_points == over.game_points
    starts = [e for e in events if isinstance(e, HandStarted)]
    assert [s.hand_number for s in starts] == list(range(1, len(hands) + 1))
    dealers = [s.view.dealer for s in starts]
    assert all(a != b for a, b in itertools.pairwise(dealers))  # alternates


@pytest.mark.timeout(20)
def test_ui_local_table_same_seed_same_match() -> None:
    def moves(seed: int) -> list[tuple[int, int]]:
        table = LocalTable(SIXTY_SIX.with_options(match_target=2), FirstLegalBot(), seed=seed)
        events = asyncio.run(play_out(table))
        return [(e.seat, e.code) for e in events if isinstance(e, MovePlayed)]

    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


class GatedBot(FirstLegalBot):
    """Moves only once the test opens the gate, so "not your turn" can be tested."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def choose(self, view: PlayerView, context: BotContext) -> int:
        assert self.gate.wait(5)
        return super().choose(view, context)


@pytest.mark.timeout(20)
def test_ui_local_table_illegal_submit_costs_nothing() -> None:
    async def main() -> None:
        bot = GatedBot()
        table = LocalTable(SIXTY_SIX, bot, seed=3)  # seed 3: the bot leads first
        view: PlayerView | None = None
        while view is None:
            event = await table.next_event()
            if isinstance(event, HandStarted):
                view = event.view
        assert not view.my_turn
        with pytest.raises(IllegalMoveError, match="not your turn"):
            await table.submit(view.hand[0].id)
        bot.gate.set()
        while not view.my_turn:
            event = await table.next_event()
            if isinstance(event, MovePlayed):
                view = event.view
        stranger = next(c for c in range(24) if c not in {card.id for card in view.hand})
        with pytest.raises(IllegalMoveError) as caught:
            await table.submit(stranger)
        assert caught.value.reason.endswith("is not in your hand")
        with pytest.raises(IllegalMoveError, match="not a move code"):
            await table.submit(99)
        await table.submit(view.legal[0].code)  # the turn was still ours
        event = await table.next_event()
        assert isinstance(event, MovePlayed) and event.seat == 0
        assert event.code == view.legal[0].code
        await table.close()
        await table.close()  # twice is harmless
        final = await table.next_event()
        while not isinstance(final, MatchOver):
            final = await table.next_event()
        assert final.winner is None

    asyncio.run(main())


class CheatingBot:
    """Plays a card it does not hold."""

    def choose(self, view: PlayerView, context: BotContext) -> int:
        held = {c.id for c in view.hand}
        return next(c for c in range(24) if c not in held)

    def end_hand(self, view: PlayerView) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.timeout(20)
def test_ui_local_table_bot_illegal_move_forfeits() -> None:
    async def main() -> list[TableEvent]:
        # seed 3: the bot leads first
        bot: TableBot = CheatingBot()
        table = LocalTable(SIXTY_SIX, bot, seed=3)
        events = [await table.next_event() for _ in range(5)]
        await table.close()
        with pytest.raises(TimeoutError):  # no second MatchOver after closing
            await asyncio.wait_for(table.next_event(), 0.05)
        return events

    events = asyncio.run(main())
    errors = [e for e in events if isinstance(e, PeerError)]
    assert errors and "made an illegal move and forfeits" in errors[0].text
    assert isinstance(events[-1], MatchOver) and events[-1].winner == 0


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", available_bots())
def test_ui_local_table_every_named_bot_plays_legal_moves(name: str) -> None:
    rules = preset("schnapsen").with_options(match_target=1)
    spec = f"{name}:ms=5" if name == "strong" else name
    events = asyncio.run(play_out(LocalTable(rules, make_table_bot(spec, 1, rules), seed=2)))
    assert isinstance(events[-1], MatchOver) and events[-1].winner is not None
    assert not any(isinstance(e, PeerError) for e in events)


def test_ui_local_table_unknown_bot_lists_the_bots() -> None:
    with pytest.raises(UnknownBotError, match="no bot named 'nobody'") as caught:
        make_table_bot("nobody", 0, SIXTY_SIX)
    # the bots of `p2p66 bot list`; the demo fallback "first" works but is not advertised
    assert "bots are random, greedy, expert, strong, or the command line" in str(caught.value)
