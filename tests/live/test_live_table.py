"""NetworkTable turns how a live match ended into what the player is told."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

from p2p66.engine import IllegalMoveError, PlayerView, preset, view_of
from p2p66.engine.match import Match
from p2p66.engine.moves import PASS
from p2p66.live import table as live_table
from p2p66.live.game import LiveGameError
from p2p66.live.loopback import signer_of
from p2p66.live.table import NetworkTable
from p2p66.net import Identity
from p2p66.net.errors import PeerClosed, PeerTimeout
from p2p66.session.peer import Peer
from p2p66.ui.bots import BotContext
from p2p66.ui.table import MatchOver, Notice, PeerError, TableEvent


class EndingGame:
    """A stand-in LiveGame whose run ends at once with ``error``."""

    channel = None

    def __init__(self, error: LiveGameError) -> None:
        self.error = error

    async def run(self, channel: object) -> None:
        raise self.error


def told(error: LiveGameError) -> tuple[list[TableEvent], str | None]:
    async def main() -> tuple[list[TableEvent], str | None]:
        peer = Peer(1, signer_of(Identity.from_seed("bob", b"b" * 32)))
        table = NetworkTable(peer, ("ann", "bob"), None)

        async def opening() -> object:
            return object()

        await table.run(EndingGame(error), opening)  # type: ignore[arg-type]
        events = [await asyncio.wait_for(table.next_event(), 5)]
        while not isinstance(events[-1], MatchOver):
            events.append(await asyncio.wait_for(table.next_event(), 5))
        return events, table.failure

    return asyncio.run(main())


def test_the_other_player_leaving_is_told_as_news_not_as_a_problem() -> None:
    error = LiveGameError("closed", "the other player left the match (they chose to leave)")
    error.__cause__ = PeerClosed("they chose to leave")
    events, failure = told(error)
    assert events[0] == Notice("ann left the match (they chose to leave).")
    assert isinstance(events[-1], MatchOver) and failure == "closed"


def test_a_lost_link_is_told_as_a_problem_naming_what_happened() -> None:
    error = LiveGameError("disconnected", "the connection was lost: silence")
    error.__cause__ = PeerTimeout("silence")
    events, failure = told(error)
    assert events[0] == PeerError("the connection was lost: silence")
    assert failure == "disconnected"


class SlowBot:
    """A bot that thinks until released, counting questions and how many overlap."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked = 0
        self.thinking = 0
        self.most_at_once = 0
        self.lock = threading.Lock()

    def choose(self, view: PlayerView, context: BotContext) -> int:
        with self.lock:
            self.asked += 1
            self.thinking += 1
            self.most_at_once = max(self.most_at_once, self.thinking)
        self.release.wait(5)
        with self.lock:
            self.thinking -= 1
        return view.legal[-1].code

    def end_hand(self, view: PlayerView) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_bot_cut_short_is_never_asked_twice_at_once_nor_twice_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A drop while the bot thinks cancels the decision, not the bot's thread."""
    state = Match(preset("sixty-six"), first_dealer=0).new_hand(list(range(24)))
    view = view_of(state, state.to_act)
    state.apply_code_unchecked(view.legal[0].code)
    later = view_of(state, state.to_act)
    bot = SlowBot()
    peer = Peer(1, signer_of(Identity.from_seed("ann", b"a" * 32)))
    monkeypatch.setattr(live_table, "context_of", lambda peer: None)  # no hand in this peer

    async def main() -> tuple[int, int]:
        decide = live_table.bot_decider(peer, bot)
        first = asyncio.create_task(decide(view))
        await asyncio.sleep(0.05)
        first.cancel()  # the link dropped while the bot was thinking
        again = asyncio.create_task(decide(view))  # the same position after a reconnect
        other = asyncio.create_task(decide(later))  # must wait for the first answer
        await asyncio.sleep(0.05)
        bot.release.set()
        return await again, await other

    same, _ = asyncio.run(main())
    assert same == view.legal[-1].code
    assert bot.asked == 2 and bot.most_at_once == 1


def test_a_move_typed_while_the_link_is_down_is_refused_with_that_reason() -> None:
    state = Match(preset("sixty-six"), first_dealer=0).new_hand(list(range(24)))
    view = view_of(state, state.to_act)

    async def main() -> str:
        table = NetworkTable(
            Peer(1, signer_of(Identity.from_seed("b", b"b" * 32))), ("a", "b"), None
        )
        deciding = asyncio.create_task(table.decide(view))
        await asyncio.sleep(0)
        deciding.cancel()  # what LiveGame does when the channel ends during our turn
        await asyncio.sleep(0)
        try:
            await table.submit(view.legal[0].code)
        except IllegalMoveError as exc:
            return exc.reason
        raise AssertionError("the move was taken")

    assert asyncio.run(main()) == "the connection is down: wait until it is back"


def test_the_network_table_goes_on_after_a_marriage_short_of_66_without_asking() -> None:
    for seed in range(100):  # the first deal that gives the leader a marriage
        deck = list(range(24))
        random.Random(seed).shuffle(deck)
        state = Match(preset("sixty-six"), first_dealer=1).new_hand(deck)
        marriages = [m for m in state.legal_moves() if m.kind == "marry"]
        if marriages:
            break
    seat = state.to_act
    state = state.apply(marriages[0])
    view = view_of(state, seat)
    assert view.my_turn and view.phase.name == "MARRIAGE_DECLARE" and view.my_points < 66

    async def main() -> tuple[int, bool]:
        table = NetworkTable(
            Peer(1, signer_of(Identity.from_seed("b", b"b" * 32))), ("a", "b"), None
        )
        code = await asyncio.wait_for(table.decide(view), 1)  # nobody is asked
        return code, table._events.empty()

    code, nothing_shown = asyncio.run(main())
    assert code == PASS and nothing_shown
