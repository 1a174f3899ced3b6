"""JSON forms of a bidding game's view for the external bot protocol (``protocol/BOT.md``).

The same conventions as the two-player ``bots/wire.py``: cards and moves in
RULES.md notation, suits as one letter. A ``request`` of a bidding game
carries ``"game": "bidding"`` so that one bot program can play every game.
"""

from __future__ import annotations

from typing import Any

from p2p66.engine.cards import SUITS
from p2p66.engine.table import TablePhase, TableResult, TableView
from p2p66.engine.table.moves import TABLE_NOTATION

TABLE_PHASES = {
    TablePhase.BID: "bid",
    TablePhase.LEAD: "lead",
    TablePhase.FOLLOW: "follow",
    TablePhase.OVER: "over",
}
TABLE_NOTATION_TO_CODE = {n: i for i, n in enumerate(TABLE_NOTATION)}


def table_view_json(view: TableView) -> dict[str, Any]:
    """A seat's view of a bidding game as plain JSON values."""
    return {
        "seat": view.seat,
        "players": view.options.players,
        "dealer": view.dealer,
        "phase": TABLE_PHASES[view.phase],
        "to_act": view.to_act,
        "hand": [c.code for c in view.hand],
        "hand_sizes": list(view.hand_sizes),
        "calls": [{"seat": s, "call": f"bid:{b}" if b else "pass"} for s, b in view.calls],
        "bidder": view.bidder,
        "bid": view.bid,
        "moon": view.moon,
        "out_seat": view.out_seat,
        "trump_suit": SUITS[view.trump] if view.trump is not None else None,
        "trick": [{"seat": s, "card": c.code} for s, c in view.trick],
        "tricks": [
            {
                "leader": t.leader,
                "cards": [{"seat": s, "card": c.code} for s, c in t.plays],
                "winner": t.winner,
            }
            for t in view.tricks
        ],
        "tricks_won": list(view.tricks_won),
        "points": list(view.points),
        "marriages": [
            {"seat": m.seat, "suit": SUITS[m.suit], "points": m.points} for m in view.marriages
        ],
        "shown": [[c.code for c in cards] for cards in view.shown],
        "widow": [c.code for c in view.widow],
        "widow_taker": view.widow_taker,
        "scores": list(view.scores),
        "result": table_result_json(view.result) if view.result else None,
    }


def table_result_json(result: TableResult) -> dict[str, Any]:
    return {
        "how": result.how.value,
        "bidder": result.bidder,
        "bid": result.bid,
        "points": list(result.side_points),
        "tricks": list(result.side_tricks),
        "marks": list(result.marks),
    }


def table_request_json(
    view: TableView,
    request_id: int,
    move_time: float | None,
    margin: float,
    hand_number: int = 1,
) -> dict[str, Any]:
    """The ``request`` message of a bidding game; ``hand_number`` counts from 1 per match."""
    return {
        "type": "request",
        "game": "bidding",
        "id": request_id,
        "view": table_view_json(view),
        "moves": [{"seat": seat, "move": TABLE_NOTATION[code]} for seat, code in _movers(view)],
        "legal": [TABLE_NOTATION[c] for c in view.legal],
        "hand_number": hand_number,
        "clock": {"move_time": move_time, "margin": margin},
    }


def _movers(view: TableView) -> list[tuple[int, int]]:
    """Every public move of the hand with the seat that made it."""
    seats = [s for s, _ in view.calls]
    seats += [s for t in view.tricks for s, _ in t.plays]
    seats += [s for s, _ in view.trick]
    return list(zip(seats, view.moves, strict=True))
