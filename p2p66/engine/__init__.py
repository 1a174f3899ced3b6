"""Pure rules engine: no I/O, no randomness, no clocks.

Everything a caller needs is re-exported here::

    from p2p66.engine import preset, new_hand, view_of
    state = new_hand(preset("sixty-six"), deck, dealer=0)
    while not state.is_over:
        state = state.apply(state.legal_moves()[0])
    print(state.result.describe())
"""

from p2p66.engine.cards import CARDS, Card, parse_card_id
from p2p66.engine.deal import DealLayout, deal_layout
from p2p66.engine.errors import (
    DealError,
    EngineError,
    EngineInputError,
    IllegalMoveError,
    NotationError,
    RuleOptionError,
)
from p2p66.engine.match import Match
from p2p66.engine.moves import MOVES, Move, parse_move_code
from p2p66.engine.options import PRESETS, RuleOptions, preset, preset_name
from p2p66.engine.scoring import HandResult, HowEnded
from p2p66.engine.state import HandState, Marriage, Phase, TrickRecord, new_hand
from p2p66.engine.view import PlayerView, view_of

__all__ = [
    "CARDS",
    "MOVES",
    "PRESETS",
    "Card",
    "DealError",
    "DealLayout",
    "EngineError",
    "EngineInputError",
    "HandResult",
    "HandState",
    "HowEnded",
    "IllegalMoveError",
    "Marriage",
    "Match",
    "Move",
    "NotationError",
    "Phase",
    "PlayerView",
    "RuleOptionError",
    "RuleOptions",
    "TrickRecord",
    "deal_layout",
    "new_hand",
    "parse_card_id",
    "parse_move_code",
    "preset",
    "preset_name",
    "view_of",
]
