"""Answers to ``?``: which rules apply right now, and why a move is not allowed.

The reasons are the engine's own (``IllegalMoveError.reason``), obtained by
asking the engine about any full state consistent with the view: whether a
move is legal never depends on the hidden cards, so any guess gives the same
answer, and the UI never needs to repeat a rule.
"""

from __future__ import annotations

from p2p66.engine import EngineError, IllegalMoveError, Phase, PlayerView
from p2p66.engine.cards import KING, QUEEN
from p2p66.engine.determinize import determinize
from p2p66.engine.moves import MOVES, Move, describe
from p2p66.ui.cards_text import DEFAULT_STYLE, TextStyle, card_text, display_order, suit_name


def why_not(view: PlayerView, code: int, opponent: str = "the opponent") -> str | None:
    """None if ``code`` is legal for this seat now, else the reason in plain words."""
    if any(m.code == code for m in view.legal):
        return None
    if view.phase == Phase.OVER:
        return "the hand is over"
    if not view.my_turn:
        return f"it is {opponent}'s turn: wait for their move"
    hidden = sorted(view.unseen, key=lambda c: c.id)
    need = view.opponent_hand_size - len(view.opponent_shown)
    guess = [*view.opponent_shown, *hidden[:need]]
    try:
        state = determinize(view, [c.id for c in guess], [c.id for c in hidden[need:]])
        state.check_legal(code)
    except IllegalMoveError as exc:
        return exc.reason
    except EngineError:
        pass
    return "that move is not possible now"


def talon_rules(view: PlayerView, opponent: str) -> str:
    """The duty that applies to following in this hand's current stage."""
    if view.closed:
        closer = "you" if view.closer == view.seat else opponent
        return (
            f"The talon was closed by {closer}: no more drawing; follow suit and win the "
            "trick if you can, otherwise play a trump if you have one."
        )
    if view.talon_size == 0:
        return (
            "The talon is exhausted: follow suit and win the trick if you can, otherwise "
            "play a trump if you have one."
        )
    return (
        f"The talon is open ({view.talon_size} cards, the last one face up): you may play any "
        "card, and after each trick the winner draws first."
    )


def rules_now(view: PlayerView, opponent: str, style: TextStyle = DEFAULT_STYLE) -> list[str]:
    """A short explanation of what this seat may do now and why, one sentence a line."""
    lines = [talon_rules(view, opponent)]
    trump = suit_name(view.trump_suit)
    points = f"You have {view.my_points} card points"
    if view.my_held_points:
        points += f" and {view.my_held_points} marriage points that count once you win a trick"
    if view.options.declare == "automatic":
        lines.append(points + "; the hand ends as soon as a trick brings you to 66.")
    else:
        lines.append(points + "; 66 wins the hand if you declare it.")
    if view.phase == Phase.OVER:
        lines.append("The hand is over.")
        return lines
    if not view.my_turn:
        lines.append(f"It is {opponent}'s turn.")
        return lines
    lines.extend(_phase_rules(view, opponent, trump, style))
    lines.append("Now you may: " + "; ".join(_legal_words(view, style)) + ".")
    return lines


def _phase_rules(view: PlayerView, opponent: str, trump: str, style: TextStyle) -> list[str]:
    phase = view.phase
    if phase == Phase.LEAD:
        lead = "the king" if view.options.marriage_lead == "king" else "either"
        out = [
            "You lead: play any card.",
            f"Holding king and queen of a suit, lead {lead} and announce a marriage: "
            f"20 points, 40 in trumps ({trump}).",
        ]
        if view.options.allow_close and view.talon_open:
            out.append("Closing the talon ends drawing; you then need 66 before the cards run out.")
        if view.talon_open:
            rank = "nine" if view.options.exchange_rank == "9" else "jack"
            needs_trick = view.options.exchange_requires_trick and not view.tricks_won[view.seat]
            when = " once you have won a trick" if needs_trick else ""
            out.append(
                f"Holding the {rank} of trumps, you may exchange it for the face-up trump card"
                f"{when}."
            )
        return out
    if phase == Phase.FOLLOW and view.lead is not None:
        led = card_text(view.lead, style)
        if view.talon_open:
            return [
                f"{opponent} led {led}: play any card; the higher card of the suit or a trump wins."
            ]
        return [f"{opponent} led {led}: you must follow suit and win if you can."]
    if phase == Phase.DRAW:
        return ["You won the trick: draw from the talon (Enter), or close it first (c)."]
    if phase == Phase.MARRIAGE_DECLARE:
        return [
            "You announced a marriage: declare 66 now (d) if your card points reach 66, "
            f"or go on (p); {opponent} then plays to your card."
        ]
    return ["You won the last trick of a closed hand: declare 66 (d) if you have it, or pass (p)."]


def ordered_legal(view: PlayerView) -> list[Move]:
    """The legal moves in the order the hand is shown: cards as numbered, then marriages, words."""
    order = {card.id: i for i, card in enumerate(display_order(view.hand, view.trump_suit))}
    kinds = {"play": 0, "marry": 1}

    def key(move: Move) -> tuple[int, int]:
        place = order.get(move.card.id, len(order)) if move.card is not None else len(order)
        return (kinds.get(move.kind, 2), place)

    return sorted(view.legal, key=key)


def _legal_words(view: PlayerView, style: TextStyle) -> list[str]:
    words = []
    legal = ordered_legal(view)
    plays = [m.card for m in legal if m.kind == "play" and m.card is not None]
    if plays:
        words.append("play " + ", ".join(card_text(c, style) for c in plays))
    for move in legal:
        if move.kind == "marry" and move.card is not None and move.card.rank in (KING, QUEEN):
            words.append(f"m {card_text(move.card, style)} ({describe(move.code)})")
        elif move.kind not in ("play", "marry"):
            words.append(describe(move.code))
    return words


def move_help(view: PlayerView, code: int, opponent: str) -> str:
    """One sentence on a specific move: what it does, or why it is not allowed."""
    reason = why_not(view, code, opponent)
    if reason is None:
        return f"{MOVES[code].notation} is allowed: {describe(code)}."
    return f"{MOVES[code].notation} is not allowed: {reason}."


def help_lines(
    view: PlayerView | None, code: int | None, opponent: str, style: TextStyle = DEFAULT_STYLE
) -> list[str]:
    """What ``?`` answers: about one move when given, else the rules that apply now."""
    if view is None:
        return ["No hand is being played yet."]
    if code is not None:
        return [move_help(view, code, opponent)]
    return [*rules_now(view, opponent, style), "Type s (or score) for the score sheet."]
