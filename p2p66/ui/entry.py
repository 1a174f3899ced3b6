"""What the player typed, understood: a move to submit, a question, or a reason to refuse.

Pure, shared by the full UI and ``--plain``. Anything refused comes back as
``Rejected`` with a sentence saying why, so a typo or an illegal move never
costs the player anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p66.engine import NotationError, Phase, PlayerView
from p2p66.engine.moves import DECLARE, DRAW, PASS, describe, parse_move_code
from p2p66.ui.cards_text import DEFAULT_STYLE, TextStyle, card_text, display_order, no_such_card
from p2p66.ui.explain import ordered_legal, why_not

QUIT_WORDS = frozenset({"q", "quit", "exit", "resign"})
SHEET_WORDS = frozenset({"s", "score", "scores", "sheet"})
REPEAT_WORDS = frozenset({"r", "repeat", "again", "hand"})
HINT_WORDS = frozenset({"h", "hint"})
MARRY_WORDS = frozenset({"m", "marry", "marriage"})
FORCE_DECLARE = frozenset({"declare!", "d!", "66!"})


@dataclass(frozen=True, slots=True)
class Submit:
    code: int


@dataclass(frozen=True, slots=True)
class Help:
    """``?`` alone (code None) or about one move."""

    code: int | None


@dataclass(frozen=True, slots=True)
class Quit:
    pass


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str


@dataclass(frozen=True, slots=True)
class ShowSheet:
    """The match's score sheet, asked for with ``s`` or ``score`` (any time)."""


@dataclass(frozen=True, slots=True)
class Repeat:
    """Tell the position again (``r``, ``repeat``): in ``--plain`` it scrolled by as text."""


@dataclass(frozen=True, slots=True)
class AskHint:
    """``h`` or ``hint``: what the strong bot would play, in a practice game."""


Entry = Submit | Help | Quit | Rejected | ShowSheet | Repeat | AskHint


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One completion: the text to insert, how to show it, and what it does."""

    text: str
    display: str
    meta: str


def interpret(view: PlayerView | None, text: str, opponent: str = "the opponent") -> Entry:
    """Understand one line of input against the current view."""
    raw = " ".join(text.strip().split())
    low = raw.lower()
    if low in QUIT_WORDS:
        return Quit()
    if low in SHEET_WORDS:
        return ShowSheet()
    if low in REPEAT_WORDS:
        return Repeat()
    if low in HINT_WORDS:
        return AskHint()
    if low.startswith("?") or low.endswith("?") or low == "help":
        return _help(view, low.strip("?").strip())
    if view is None or view.phase == Phase.OVER:
        return Rejected("no hand is being played right now")
    if not view.my_turn:
        return Rejected(f"it is {opponent}'s turn: wait for their move")
    if not low:
        if view.phase == Phase.DRAW:
            return Submit(DRAW)
        if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
            return Submit(DECLARE if view.my_points >= 66 else PASS)  # the only sensible answer
        return Rejected("type a card, its number, or a move (? explains what you may do)")
    if low in FORCE_DECLARE:
        return _checked(view, DECLARE, opponent)
    if low in MARRY_WORDS:
        return Rejected(_marriage_hint(view))
    code = code_of(view, raw)
    if isinstance(code, Rejected):
        return code
    if code == DECLARE and view.my_points < 66 and any(m.code == DECLARE for m in view.legal):
        return Rejected(
            f"you have {view.my_points} card points, not 66: declaring now loses the hand "
            "(type declare! to declare anyway)"
        )
    return _checked(view, code, opponent)


def code_of(view: PlayerView, text: str) -> int | Rejected:
    """A move code from a card number, a card code or move notation."""
    low = text.strip().lower()
    if low.isdigit():
        order = display_order(view.hand, view.trump_suit)
        number = int(low)
        if not order:
            return Rejected("you have no cards left to play")
        if not 1 <= number <= len(order):
            return Rejected(no_such_card(number, len(order)))
        return order[number - 1].id
    try:
        return parse_move_code(text)
    except NotationError as exc:
        return Rejected(str(exc))


def _checked(view: PlayerView, code: int, opponent: str) -> Entry:
    reason = why_not(view, code, opponent)
    return Submit(code) if reason is None else Rejected(reason)


def _help(view: PlayerView | None, rest: str) -> Entry:
    if not rest or rest == "help" or view is None:
        return Help(None)
    code = code_of(view, rest)
    return code if isinstance(code, Rejected) else Help(code)


def _marriage_hint(view: PlayerView) -> str:
    marriages = [m for m in view.legal if m.kind == "marry" and m.card is not None]
    if not marriages:
        return "no marriage is possible now (? explains why)"
    options = " or ".join(f"m {m.card.code}" for m in marriages if m.card is not None)
    return f"say which card to lead: {options}"


def suggestions(
    view: PlayerView | None, text: str, style: TextStyle = DEFAULT_STYLE
) -> list[Suggestion]:
    """Legal moves matching what was typed so far (only legal moves are ever offered)."""
    if view is None or not view.my_turn:
        return []
    typed = " ".join(text.lower().split())
    order = display_order(view.hand, view.trump_suit)
    numbers = {card.id: str(i + 1) for i, card in enumerate(order)}
    out = []
    for move in ordered_legal(view):
        if move.kind == "declare" and view.my_points < 66:
            continue  # a sure loss: offered nowhere, typed only as "declare!"
        card = move.card
        if move.kind == "play" and card is not None:
            keys = [card.code.lower(), numbers[card.id], f"play:{card.code.lower()}"]
            shown = f"{numbers[card.id]} {card_text(card, style)}"
            suggestion = Suggestion(card.code, shown, describe(move.code))
        elif move.kind == "marry" and card is not None:
            code = card.code.lower()
            keys = [f"marry:{code}", f"m {code}", f"m{code}", "marriage"]
            shown = f"marry:{card_text(card, style)}"
            suggestion = Suggestion(move.notation, shown, describe(move.code))
        else:
            keys = [move.notation]
            suggestion = Suggestion(move.notation, move.notation, describe(move.code))
        if any(key.startswith(typed) for key in keys):
            out.append(suggestion)
    return out
