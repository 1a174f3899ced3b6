"""A hint in a practice game: what the ``strong`` bot would play here, and why, in one line.

The move comes from the bot; the reason is read off the position, in the
words of the table ("leads A♠: 11 points, the highest spade still out").
Only ``p2p66 play`` offers hints: against a person it would be a second player.
"""

from __future__ import annotations

from p2p66.engine import Phase, PlayerView
from p2p66.engine.cards import CARDS, Card
from p2p66.engine.moves import MOVES
from p2p66.engine.tricks import beats
from p2p66.ui.bots import BotContext, TableBot
from p2p66.ui.cards_text import TextStyle, card_text, suit_name
from p2p66.ui.screen import Screen

NO_HINTS = "Hints are for practice games against a bot (p2p66 play)."


def hint_line(screen: Screen, bot: TableBot, style: TextStyle) -> str:
    """The hint for the screen's position: "Hint: play A♠ (leads the ace: ...)"."""
    view = screen.view
    if view is None or not view.my_turn or screen.first_trump is None:
        return "Hint: there is nothing to choose right now."
    context = BotContext(screen.moves, screen.first_trump, screen.hand_number, screen.game_points)
    code = bot.choose(view, context)
    return f"Hint: {reason(view, code, style)}."


def reason(view: PlayerView, code: int, style: TextStyle) -> str:
    """Move ``code`` at ``view`` and why it is good, in one clause."""
    move = MOVES[code]
    card = move.card
    if move.kind == "play" and card is not None:
        shown = card_text(card, style)
        if view.phase == Phase.FOLLOW and view.lead is not None:
            lead = view.lead
            if beats(card.id, lead.id, view.trump_suit):
                return f"play {shown}: it takes the trick, {lead.points + card.points} points"
            return f"play {shown}: it keeps your good cards and gives up only {card.points} points"
        top = highest_out(card, {*view.played, *view.hand})
        extra = f", the highest {suit_name(card.suit)[:-1]} still out" if top else ""
        trump = " and a trump" if card.suit == view.trump_suit else ""
        return f"lead {shown}: {card.points} points{trump}{extra}"
    if move.kind == "marry" and card is not None:
        worth = 40 if card.suit == view.trump_suit else 20
        return f"announce the marriage with {card_text(card, style)}: {worth} points"
    return {
        "close": "close the talon: from here your cards can reach 66",
        "exchange": "exchange the nine of trumps for the face-up trump card",
        "declare": f"declare 66: you have {view.my_points} card points",
        "draw": "draw a card",
        "pass": "go on playing",
    }.get(move.kind, move.notation)


def highest_out(card: Card, seen: set[Card]) -> bool:
    """No card of its suit that beats it is left but among ``seen`` (own hand, cards played).

    Shared with the hints of the games for three and four (``ui.multi.hint``).
    """
    higher = (c for c in CARDS if c.suit == card.suit and c.rank < card.rank)  # never a nine
    return all(other in seen for other in higher)
