"""The games for three and four players (RULES.md "Games for three and four players").

Pure like the two-player engine, with N seats and hidden partners::

    from p2p66.engine.table import table_preset, new_bidding_hand, table_view
    hand = new_bidding_hand(table_preset("north-american"), deck, dealer=0)
    while not hand.is_over:
        hand = hand.apply(hand.legal_codes()[0])
    print(hand.result.describe(("North-South", "East-West"), ("N", "E", "S", "W")))

``three-handed`` reuses the two-player ``HandState`` for its hands
(``ThreeHandedHand``); the bidding games (``north-american``, ``south-bend``,
``cut-throat``) are ``BiddingHand``.
"""

from p2p66.engine.table.bidding import (
    BiddingHand,
    TablePhase,
    TableTrick,
    follow_allowed,
    new_bidding_hand,
)
from p2p66.engine.table.deal import TableLayout, build_table_deck, table_layout
from p2p66.engine.table.match import TableMatch, match_winner
from p2p66.engine.table.moves import (
    BID_BASE,
    TABLE_NOTATION,
    bid_code,
    bid_of,
    describe_table_move,
    parse_table_move,
)
from p2p66.engine.table.options import (
    TABLE_PRESETS,
    BiddingOptions,
    TableOptions,
    ThreeHandedOptions,
    any_preset,
    is_table_preset,
    table_label,
    table_options,
    table_options_from_wire,
    table_preset,
    table_preset_name,
)
from p2p66.engine.table.scoring import TableEnd, TableResult
from p2p66.engine.table.three import (
    PublicHand,
    ThreeHandedHand,
    ThreeHandedMatch,
    ThreeHandedResult,
    ThreeHandedView,
    hand_seats,
    three_handed_view,
)
from p2p66.engine.table.view import TableMarriage, TableView, table_view

__all__ = [
    "BID_BASE",
    "TABLE_NOTATION",
    "TABLE_PRESETS",
    "BiddingHand",
    "BiddingOptions",
    "PublicHand",
    "TableEnd",
    "TableLayout",
    "TableMarriage",
    "TableMatch",
    "TableOptions",
    "TablePhase",
    "TableResult",
    "TableTrick",
    "TableView",
    "ThreeHandedHand",
    "ThreeHandedMatch",
    "ThreeHandedOptions",
    "ThreeHandedResult",
    "ThreeHandedView",
    "any_preset",
    "bid_code",
    "bid_of",
    "build_table_deck",
    "describe_table_move",
    "follow_allowed",
    "hand_seats",
    "is_table_preset",
    "match_winner",
    "new_bidding_hand",
    "parse_table_move",
    "table_label",
    "table_layout",
    "table_options",
    "table_options_from_wire",
    "table_preset",
    "table_preset_name",
    "table_view",
    "three_handed_view",
]
