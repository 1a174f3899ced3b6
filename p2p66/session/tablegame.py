"""The games for three and four players as the session plays them, seat-agnostic.

The session machine is one for every game; what differs per game is here:
how a hand maps onto the table (which engine seat is which table seat, the
public judge, the deal plan), how the match counts a finished hand, and what
a seat may see. ``TableGame`` is the only thing ``Machine`` asks about a
table game, so ``three-handed`` (a two-player hand between the seats left
and right of the dealer, who sits out but keys every card) and the bidding
games (north-american, south-bend, cut-throat) share the rest of the
protocol with the two-player game.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.crypto.config import HandConfig
from p2p66.crypto.state import HandState as CryptoState
from p2p66.engine.errors import EngineError
from p2p66.engine.moves import MOVE_NOTATION, parse_move_code
from p2p66.engine.state import HandState
from p2p66.engine.table import (
    BiddingOptions,
    TableMatch,
    TableOptions,
    TableResult,
    TableView,
    ThreeHandedHand,
    ThreeHandedMatch,
    ThreeHandedResult,
    ThreeHandedView,
    hand_seats,
    table_view,
    three_handed_view,
)
from p2p66.engine.table.moves import TABLE_NOTATION, parse_table_move
from p2p66.engine.table.partial import PartialBidding
from p2p66.session.handplay import HandTable

TableMatchState = TableMatch | ThreeHandedMatch
TableHandResult = TableResult | ThreeHandedResult
TableSeatView = TableView | ThreeHandedView


@dataclass(frozen=True, slots=True)
class TableGame:
    """One game for three or four players: its options and the answers the machine needs."""

    options: TableOptions

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def three_handed(self) -> bool:
        return not isinstance(self.options, BiddingOptions)

    # ------------------------------------------------------------------ moves

    def notation(self, code: int) -> str:
        return MOVE_NOTATION[code] if self.three_handed else TABLE_NOTATION[code]

    def parse_move(self, text: str) -> int:
        """The code of a move in canonical notation; EngineError otherwise."""
        code = parse_move_code(text) if self.three_handed else parse_table_move(text)
        if self.notation(code) != text:
            raise EngineError("not canonical")
        return code

    # ------------------------------------------------------------------ hands

    def new_match(self, first_dealer: int) -> TableMatchState:
        options = self.options
        if isinstance(options, BiddingOptions):
            return TableMatch(options, first_dealer)
        return ThreeHandedMatch(options, first_dealer)

    def hand_table(self, match: TableMatchState, session_id: bytes, soundness: int) -> HandTable:
        """The next hand of ``match``: its deal plan, public judge and seat map."""
        number, dealer = match.hand_number, match.dealer
        config = HandConfig.for_game(self.options, session_id, number, dealer, soundness)
        crypto = CryptoState(config)
        options = self.options
        if isinstance(options, BiddingOptions):
            return HandTable(
                options,
                config,
                dealer,
                crypto,
                seats=tuple(range(options.players)),
                judge=lambda: PartialBidding(options, dealer),
            )
        # the two-player hand's dealer (seat 1) sits right of the table's dealer
        return HandTable(
            options.hand_rules, config, 1, crypto, seats=hand_seats(dealer), table_dealer=dealer
        )

    def record(self, match: TableMatchState, hand: HandTable) -> TableMatchState:
        """The match after ``hand``, audited (its ``final`` state is exact)."""
        if isinstance(match, TableMatch):
            return match.record(hand.result)
        assert isinstance(hand.final, HandState)
        return match.record(ThreeHandedHand(match.options, hand.table_dealer, hand.final))

    @staticmethod
    def last_result(match: TableMatchState) -> TableHandResult:
        return match.results[-1]

    @staticmethod
    def scores(match: TableMatchState) -> tuple[int, ...]:
        return tuple(match.scores)

    @staticmethod
    def winner(match: TableMatchState) -> int | None:
        """The winning side (a partnership, or a seat in the three-player games)."""
        return match.winner

    def describe(self, result: TableHandResult, names: tuple[str, ...]) -> str:
        """A hand's result in one sentence, with the players' names."""
        if isinstance(result, TableResult):
            sides: tuple[str, ...]
            if self.players == 4:
                sides = (f"{names[0]}-{names[2]}", f"{names[1]}-{names[3]}")
            else:
                sides = names
            return result.describe(sides, names)
        hand = result.hand
        seats = hand_seats(result.dealer)
        text = hand.describe((names[seats[0]], names[seats[1]]))
        return f"{text} ({names[result.dealer]} dealt and sat out)"

    def side_of(self, seat: int) -> int:
        options = self.options
        return options.side_of(seat) if isinstance(options, BiddingOptions) else seat

    # ------------------------------------------------------------------ views

    def view(self, hand: HandTable, seat: int, match: TableMatchState) -> TableSeatView:
        """What ``seat`` may know of ``hand`` (its judge's state: its own cards and the public)."""
        if isinstance(match, TableMatch):
            return table_view(hand.state, seat, match.scores)
        deal = ThreeHandedHand(match.options, hand.table_dealer, hand.state)
        return three_handed_view(deal, seat, match.scores)
