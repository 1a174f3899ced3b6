"""Hints at the local table of the games for three and four: the strong bot's move, and why.

As in the two-player game (``ui.hint``) the move comes from the ``strong``
bot seeing only your seat's view, and the reason is read off the position:
what a card does to the trick, whether your partner already holds it, what
a call promises. Three-handed hands are two-player hands, so their hints
are the two-player ones.
"""

from __future__ import annotations

from p2p66.bots.api import BotError, Turn, as_action
from p2p66.bots.registry import make_bot, parse_bot_spec
from p2p66.bots.table import make_table_bot
from p2p66.engine.cards import CARDS
from p2p66.engine.moves import MARRY_BASE
from p2p66.engine.table import TablePhase, TableView, bid_of
from p2p66.engine.tricks import beats
from p2p66.engine.view import view_of
from p2p66.ui.cards_text import TextStyle, card_text, suit_name
from p2p66.ui.hint import highest_out, reason
from p2p66.ui.multi.seat import SeatModel

HINT_BOT = "strong"


def hint_line(t: SeatModel, seed: int = 0) -> str:
    """ "Hint: lead A♠: 11 points, the highest spade still out." for your turn now."""
    if not t.my_turn:
        return "Hint: there is nothing to choose right now."
    v = t.view()
    try:
        if isinstance(v, TableView):
            code = make_table_bot(HINT_BOT, seed).choose(v)
            return f"Hint: {table_reason(v, code, t.style)}."
        hand = t.hand
        assert v.hand is not None and hand is not None
        rules = v.options.hand_rules
        bot = make_bot(parse_bot_spec(HINT_BOT), seed, rules)
        bot.start_game(v.hand.seat, rules)
        state = hand.state  # type: ignore[union-attr]
        turn = Turn(view_of(state, state.to_act), tuple(t.public), t.first_trump)
        code = as_action(bot.choose(turn)).move.code
    except BotError as exc:
        return f"No hint: {exc}"
    return f"Hint: {reason(v.hand, code, t.style)}."


def table_reason(v: TableView, code: int, style: TextStyle) -> str:
    """Move ``code`` at bidding-game view ``v`` and why, in one clause."""
    if v.phase == TablePhase.BID:
        bid = bid_of(code)
        if bid == 5:
            return "shoot the moon: your hand can take every trick alone"
        if bid:
            return f"bid {bid}: your hand, its trumps and marriages should bring {33 * bid} points"
        return f"pass: your hand does not promise {33 * (v.bid + 1)} points"
    card = CARDS[code - MARRY_BASE if code >= MARRY_BASE else code]
    shown = card_text(card, style)
    if code >= MARRY_BASE:
        worth = 40 if v.trump in (None, card.suit) else 20
        return f"announce the marriage in {suit_name(card.suit)} and lead {shown}: {worth} points"
    if not v.trick:
        played = {c for t in v.tricks for _s, c in t.plays}
        top = highest_out(card, {*played, *v.hand})
        extra = f", the highest {suit_name(card.suit)[:-1]} still out" if top else ""
        a_trump = " and a trump" if card.suit == v.trump else ""
        sets = " (it sets the trumps)" if v.trump is None else ""
        return f"lead {shown}: {card.points} points{a_trump}{extra}{sets}"
    best_seat, best = v.trick[0]
    trump = v.trump if v.trump is not None else -1
    for seat, c in v.trick[1:]:
        if beats(c.id, best.id, trump):
            best_seat, best = seat, c
    on_table = sum(c.points for _s, c in v.trick)
    if beats(card.id, best.id, trump):
        return f"play {shown}: it takes the trick so far, {on_table + card.points} points"
    if best_seat == v.partner:
        return f"play {shown}: your partner is winning the trick, and it adds {card.points} points"
    return f"play {shown}: it keeps your good cards and gives up only {card.points} points"
