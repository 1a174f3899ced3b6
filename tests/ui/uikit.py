"""Shared by the UI tests: a simple deterministic player policy and its keystrokes."""

from __future__ import annotations

from dataclasses import replace

from p2p66.bots.table.expert import TableExpert
from p2p66.engine import HandState, Phase, PlayerView, RuleOptions, new_hand, preset, view_of
from p2p66.engine.cards import Card
from p2p66.engine.deckbuild import build_deck
from p2p66.engine.moves import DECLARE, DRAW, MOVE_NOTATION, MOVES, PASS
from p2p66.engine.table import TableView
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.ui.cards_text import TextStyle, display_order
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.narrate import Voice
from p2p66.ui.screen import Screen

ASCII = TextStyle(ascii=True, color=False)


def _beats(card: Card, lead: Card, trump: int) -> bool:
    if card.suit == lead.suit:
        return card.rank < lead.rank
    return card.suit == trump


def choose(view: PlayerView) -> int:
    """A plain, greedy human: marries, declares at 66, wins tricks cheaply."""
    legal = view.legal
    codes = {m.code for m in legal}
    if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
        return DECLARE if view.my_points >= 66 else PASS
    if view.phase == Phase.DRAW:
        return DRAW
    if DECLARE in codes and view.my_points >= 66:
        return DECLARE
    marriages = [m for m in legal if m.kind == "marry" and m.card is not None and m.card.rank == 3]
    if marriages:
        marriages.sort(key=lambda m: m.card is not None and m.card.suit != view.trump_suit)
        return marriages[0].code
    plays = [m.card for m in legal if m.kind == "play" and m.card is not None]
    if view.phase == Phase.FOLLOW and view.lead is not None:
        lead = view.lead
        winners = [c for c in plays if _beats(c, lead, view.trump_suit)]
        if winners:
            return min(winners, key=lambda c: (c.suit == view.trump_suit, c.points)).id
        return min(plays, key=lambda c: (c.points, c.suit == view.trump_suit)).id
    return min(plays, key=lambda c: (c.suit == view.trump_suit, c.points)).id


def keystrokes(view: PlayerView, code: int, turn: int) -> str:
    """How a player types ``code`` at the prompt; card plays alternate code and number."""
    move = MOVES[code]
    if code == DRAW:
        return "\r"  # Enter alone draws
    if code == DECLARE:
        return "d"  # key binding: submits at once
    if code == PASS:
        return "p"
    card = move.card
    assert card is not None
    if move.kind == "marry":
        return "m" + card.code.lower() + "\r"  # the 'm' key writes "m ": "m kh"
    if turn % 2:
        return str(display_order(view.hand, view.trump_suit).index(card) + 1) + "\r"
    return card.code.lower() + "\r"


SIXTY_SIX = preset("sixty-six")
BOT = "Bot"


def dealt(
    me: str = "KH QH 9H AS TC JD",
    other: str = "AC KC QC AD TD 9S",
    trump: str = "JH",
    talon: str = "TS KS",
    options: RuleOptions = SIXTY_SIX,
) -> HandState:
    """A hand where seat 0 (the non-dealer, on lead) holds ``me``."""
    deck = build_deck(options, non_dealer=me, dealer=other, trump=trump, talon=talon)
    return new_hand(options, deck, dealer=1)


def play(state: HandState, *moves: str) -> HandState:
    for move in moves:
        state = state.apply(move)
    return state


def voice(style: TextStyle = ASCII) -> Voice:
    return Voice(0, ("Ann", BOT), style)


def screen_of(state: HandState, style: TextStyle = ASCII, **changes: object) -> Screen:
    """Seat 0's screen at ``state``."""
    return replace(Screen(voice(style), view=view_of(state, 0), hand_number=1), **changes)  # type: ignore[arg-type]


def table_move(table: LocalMultiTable) -> str:
    """What a good player types at ``table`` now: the table expert's call or card, or a
    three-handed player's move."""
    v = table.view()
    if isinstance(v, TableView):
        return TABLE_NOTATION[TableExpert().choose(v)]
    assert v.hand is not None
    return MOVE_NOTATION[choose(v.hand)]
