"""JSON forms of what a bot sees, for the external bot protocol (``protocol/BOT.md``).

Cards and moves are always in RULES.md notation (``TH``, ``play:TH``,
``marry:QS``), suits as one letter, phases as the words of RULES.md's
decision-point table, so a bot in any language needs no card-id table.
"""

from __future__ import annotations

from typing import Any

from p2p66.bots.api import Turn
from p2p66.engine.cards import SUITS
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.engine.scoring import HandResult
from p2p66.engine.state import Phase
from p2p66.engine.view import PlayerView

PROTOCOL = "p2p66-bot/1"

PHASE_NAMES = {
    Phase.LEAD: "lead",
    Phase.FOLLOW: "follow",
    Phase.DRAW: "draw",
    Phase.MARRIAGE_DECLARE: "marriage-declare",
    Phase.FINAL_DECLARE: "final-declare",
    Phase.OVER: "over",
}
NOTATION_TO_CODE = {n: i for i, n in enumerate(MOVE_NOTATION)}


def view_json(view: PlayerView) -> dict[str, Any]:
    """A seat's view as plain JSON values."""
    return {
        "seat": view.seat,
        "dealer": view.dealer,
        "phase": PHASE_NAMES[view.phase],
        "to_act": view.to_act,
        "hand": [c.code for c in view.hand],
        "trump_suit": SUITS[view.trump_suit],
        "trump_card": view.trump_card.code if view.trump_card else None,
        "talon_size": view.talon_size,
        "closed": view.closed,
        "closer": view.closer,
        "lead": view.lead.code if view.lead else None,
        "lead_is_marriage": view.lead_is_marriage,
        "played": sorted(c.code for c in view.played),
        "tricks": [
            {"leader": t.leader, "lead": t.lead.code, "follow": t.follow.code, "winner": t.winner}
            for t in view.tricks
        ],
        "tricks_won": list(view.tricks_won),
        "my_points": view.my_points,
        "my_held_points": view.my_held_points,
        "opponent_points": view.opponent_points,
        "opponent_held_points": view.opponent_held_points,
        "close_snapshot": list(view.close_snapshot) if view.close_snapshot else None,
        "opponent_hand_size": view.opponent_hand_size,
        "opponent_shown": [c.code for c in view.opponent_shown],
        "marriages": [
            {"seat": m.seat, "suit": SUITS[m.suit], "points": m.points} for m in view.marriages
        ],
        "result": result_json(view.result) if view.result else None,
    }


def result_json(result: HandResult) -> dict[str, Any]:
    return {
        "winner": result.winner,
        "game_points": result.game_points,
        "how": result.how.value,
        "card_points": list(result.card_points),
        "tricks": list(result.tricks),
    }


def request_json(turn: Turn, request_id: int, margin: float) -> dict[str, Any]:
    """The ``request`` message: full view, public moves, legal moves, clock."""
    return {
        "type": "request",
        "id": request_id,
        "view": view_json(turn.view),
        "moves": [{"seat": m.seat, "move": m.move.notation} for m in turn.moves],
        "first_trump": turn.first_trump.code,
        "hand_number": turn.hand_number,
        "match_points": list(turn.match_points),
        "legal": [m.notation for m in turn.legal],
        "clock": {"move_time": turn.time_limit, "margin": margin},
    }
