"""JSON forms of what a bot sees, for the external bot protocol (``protocol/BOT.md``).

Cards and moves are always in RULES.md notation (``TH``, ``play:TH``,
``marry:QS``), suits as one letter, phases as the words of RULES.md's
decision-point table, so a bot in any language needs no card-id table.
"""

from __future__ import annotations

from typing import Any

from p2p66 import __version__
from p2p66.bots.api import PublicMove, Turn
from p2p66.engine.cards import CARDS, SUITS, Card
from p2p66.engine.moves import MOVE_NOTATION, MOVES, Move
from p2p66.engine.options import RuleOptions
from p2p66.engine.scoring import HandResult, HowEnded
from p2p66.engine.state import Marriage, Phase, TrickRecord
from p2p66.engine.view import PlayerView

PROTOCOL = "p2p66-bot/1"
ENGINE = f"p2p66 {__version__}"
"""What the runner calls itself in ``hello`` (and what results files record)."""

PHASE_NAMES = {
    Phase.LEAD: "lead",
    Phase.FOLLOW: "follow",
    Phase.DRAW: "draw",
    Phase.MARRIAGE_DECLARE: "marriage-declare",
    Phase.FINAL_DECLARE: "final-declare",
    Phase.OVER: "over",
}
NOTATION_TO_CODE = {n: i for i, n in enumerate(MOVE_NOTATION)}
CARD_BY_CODE = {c.code: c for c in CARDS}


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
        "declarer": result.declarer,
        "closer": result.closer,
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


class WireError(ValueError):
    """A bot message that does not parse: which field, and what was there."""


def _card(text: Any) -> Card:
    if not isinstance(text, str) or text not in CARD_BY_CODE:
        raise WireError(f"{text!r} is not a card in RULES.md notation")
    return CARD_BY_CODE[text]


def _suit(text: Any) -> int:
    if not isinstance(text, str) or text not in SUITS:
        raise WireError(f"{text!r} is not a suit (C, D, H, S)")
    return SUITS.index(text)


def _move(text: Any) -> Move:
    if not isinstance(text, str) or text not in NOTATION_TO_CODE:
        raise WireError(f"{text!r} is not a move in RULES.md notation")
    return MOVES[NOTATION_TO_CODE[text]]


def _pair(value: Any) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise WireError(f"{value!r} is not a pair of numbers")
    return (int(value[0]), int(value[1]))


def result_from_json(data: dict[str, Any]) -> HandResult:
    """The inverse of ``result_json``."""
    return HandResult(
        winner=data["winner"],
        game_points=int(data["game_points"]),
        how=HowEnded(data["how"]),
        card_points=_pair(data["card_points"]),
        tricks=_pair(data["tricks"]),
        declarer=data.get("declarer"),
        closer=data.get("closer"),
    )


def view_from_json(data: Any, options: RuleOptions, legal: list[Any]) -> PlayerView:
    """The inverse of ``view_json``: a seat's view rebuilt from a request (``bot serve``)."""
    if not isinstance(data, dict):
        raise WireError("view must be an object")
    try:
        phase = {name: phase for phase, name in PHASE_NAMES.items()}[data["phase"]]
        snapshot = data["close_snapshot"]
        return PlayerView(
            seat=int(data["seat"]),
            options=options,
            dealer=int(data["dealer"]),
            phase=phase,
            to_act=int(data["to_act"]),
            hand=tuple(_card(c) for c in data["hand"]),
            trump_suit=_suit(data["trump_suit"]),
            trump_card=None if data["trump_card"] is None else _card(data["trump_card"]),
            talon_size=int(data["talon_size"]),
            closed=bool(data["closed"]),
            closer=data["closer"],
            lead=None if data["lead"] is None else _card(data["lead"]),
            lead_is_marriage=bool(data["lead_is_marriage"]),
            played=frozenset(_card(c) for c in data["played"]),
            tricks=tuple(
                TrickRecord(t["leader"], _card(t["lead"]), _card(t["follow"]), t["winner"])
                for t in data["tricks"]
            ),
            tricks_won=_pair(data["tricks_won"]),
            my_points=int(data["my_points"]),
            my_held_points=int(data["my_held_points"]),
            opponent_points=int(data["opponent_points"]),
            opponent_held_points=int(data["opponent_held_points"]),
            close_snapshot=None if snapshot is None else _pair(snapshot),
            opponent_hand_size=int(data["opponent_hand_size"]),
            opponent_shown=tuple(_card(c) for c in data["opponent_shown"]),
            marriages=tuple(
                Marriage(m["seat"], _suit(m["suit"]), m["points"]) for m in data["marriages"]
            ),
            legal=tuple(_move(m) for m in legal),
            result=None if data["result"] is None else result_from_json(data["result"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, WireError):
            raise
        raise WireError(f"malformed view: {exc!r}") from None


def turn_from_json(message: dict[str, Any], options: RuleOptions) -> Turn:
    """The inverse of ``request_json``: the ``Turn`` a request describes."""
    try:
        legal = message["legal"]
        if not isinstance(legal, list) or not legal:
            raise WireError("legal must be a non-empty list of moves")
        clock = message.get("clock") or {}
        limit = clock.get("move_time")
        return Turn(
            view=view_from_json(message["view"], options, legal),
            moves=tuple(PublicMove(int(m["seat"]), _move(m["move"])) for m in message["moves"]),
            first_trump=_card(message["first_trump"]),
            hand_number=int(message["hand_number"]),
            match_points=_pair(message["match_points"]),
            time_limit=None if limit is None else float(limit),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, WireError):
            raise
        raise WireError(f"malformed request: {exc!r}") from None
