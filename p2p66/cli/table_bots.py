"""The built-in bots as players of a network table seat (``--bot``), each from its own peer."""

from __future__ import annotations

import asyncio

from p2p66.bots.api import PublicMove, Turn, as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.table import make_table_bot
from p2p66.engine.cards import CARDS
from p2p66.engine.moves import MOVES
from p2p66.engine.table import BiddingOptions, TableOptions, TableView
from p2p66.live.tablenet import Chooser
from p2p66.session.errors import LocalProtocolError
from p2p66.session.peer import Peer


class SeatBot:
    """A built-in bot deciding for one seat from its own peer's view only."""

    def __init__(self, spec: str, seed: int, options: TableOptions) -> None:
        self.spec = spec
        self.seed = seed
        self.options = options
        self._bidding = make_table_bot(spec, seed) if isinstance(options, BiddingOptions) else None
        self._hand: tuple[int, object] | None = None

    def choose(self, peer: Peer) -> int | str:
        view = peer.table_view()
        if view is None:
            raise LocalProtocolError("asked for a move with nothing to see")
        if isinstance(view, TableView):
            assert self._bidding is not None
            return self._bidding.choose(view)
        table = peer.machine.hand
        assert table is not None and view.hand is not None
        hand_seat = table.seats.index(peer.seat)
        if self._hand is None or self._hand[0] != table.number:
            rules = self.options.hand_rules  # type: ignore[union-attr]
            bot = make_bot(parse_bot_spec(self.spec), self.seed * 100 + table.number, rules)
            bot.start_game(hand_seat, rules)
            self._hand = (table.number, bot)
        moves = tuple(
            PublicMove(table.seats.index(author), MOVES[code])
            for code, author in zip(table.public.moves, table.authors, strict=True)
        )
        face_up = table.config.face_up
        card = peer.known_cards().get(face_up) if face_up is not None else None
        turn = Turn(view.hand, moves, CARDS[card if card is not None else 0], table.number)
        return as_action(self._hand[1].choose(turn)).move.code  # type: ignore[attr-defined]


def bot_chooser(spec: str, seed: int, options: TableOptions) -> Chooser:
    """A ``Chooser`` for a bot: it thinks in a thread so the links keep being answered."""
    bot = SeatBot(spec, seed, options)

    async def choose(peer: Peer) -> int | str:
        return await asyncio.to_thread(bot.choose, peer)

    return choose
