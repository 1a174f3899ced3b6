"""NetworkTable turns how a live match ended into what the player is told."""

from __future__ import annotations

import asyncio

from p2p66.live.game import LiveGameError
from p2p66.live.loopback import signer_of
from p2p66.live.table import NetworkTable
from p2p66.net import Identity
from p2p66.net.errors import PeerClosed, PeerTimeout
from p2p66.session.peer import Peer
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
