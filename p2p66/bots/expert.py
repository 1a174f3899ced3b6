"""``expert``: a strong rule-based player that tracks every card.

It plays the way a good club player describes the game: declare the moment
66 is counted; exchange whenever allowed; announce marriages and keep
marriage halves while their partner may still come; keep trumps for tricks
worth taking; lead cheap side cards while the talon is open; close the talon
when the sure tricks (a top sequence of trumps, then side-suit masters once
the opponent's trumps are drawn) count to 66; in the strict phase cash sure
winners, pull trumps first, and win tricks as cheaply as the rules allow.
It knows only what its seat knows: played cards, shown cards, and the voids
the strict phase reveals.
"""

from __future__ import annotations

from math import comb

from p2p66.bots.api import Action, Bot, Turn
from p2p66.bots.heuristics import keep_value as heuristic_keep
from p2p66.bots.knowledge import Knowledge, knowledge_of
from p2p66.bots.tricks import beats
from p2p66.engine.cards import CARD_POINTS, QUEEN, SUIT_MASKS
from p2p66.engine.moves import CLOSE, DECLARE, DRAW, EXCHANGE, MARRY_BASE, MOVES, PASS, Move
from p2p66.engine.state import Phase
from p2p66.engine.view import PlayerView

WIN_BONUS = 100.0  # a trick that decides the hand outweighs any card value


class ExpertBot(Bot):
    """Heuristic play with card tracking; deterministic (the seed is unused)."""

    name = "expert"

    def __init__(self, seed: int = 0) -> None:
        del seed

    def choose(self, turn: Turn) -> Move | Action:
        code, why = decide(turn)
        return Action(MOVES[code], {"why": why})


def decide(turn: Turn) -> tuple[int, str]:
    """The expert's move code for this turn and a one-word reason (for logs)."""
    view = turn.view
    legal = [m.code for m in view.legal]
    if len(legal) == 1:
        return legal[0], "forced"
    me_points = view.my_points
    if DECLARE in legal and me_points >= 66:
        return DECLARE, "66"
    if view.phase in (Phase.MARRIAGE_DECLARE, Phase.FINAL_DECLARE):
        return (DECLARE if me_points >= 66 else PASS), "count"
    know = knowledge_of(turn)
    if view.phase == Phase.DRAW:
        return (CLOSE if should_close(view, know) else DRAW), "close?"
    if view.phase == Phase.FOLLOW:
        cards = [c for c in legal if c < MARRY_BASE]
        if know.talon_open:
            return open_follow(view, know, cards), "follow"
        return strict_follow(view, know, cards), "strict-follow"
    if EXCHANGE in legal:
        return EXCHANGE, "exchange"
    if CLOSE in legal and should_close(view, know):
        return CLOSE, "close"
    marriages = [c for c in legal if MARRY_BASE <= c < 2 * MARRY_BASE]
    if marriages:
        return pick_marriage(view, marriages), "marriage"
    cards = [c for c in legal if c < MARRY_BASE]
    if know.talon_open:
        return open_lead(view, know, cards), "lead"
    return strict_lead(view, know, cards), "strict-lead"


# ------------------------------------------------------------------ values


def keep_value(card: int, view: PlayerView, know: Knowledge) -> float:
    """How much holding ``card`` is worth for later tricks (lost when it is played now)."""
    bonus = 0
    if (
        know.talon_open
        and know.trump_card >= 0
        and card == exchange_card(view)
        and know.talon_size >= view.options.exchange_min_talon
    ):
        bonus = CARD_POINTS[know.trump_card]
    return heuristic_keep(
        card, know.mine, know.out, know.trump, know.talon_open, exchange_bonus=bonus
    )


def exchange_card(view: PlayerView) -> int:
    rank = 5 if view.options.exchange_rank == "9" else 4
    return view.trump_suit * 6 + rank


def p_holds_any(know: Knowledge, cards: int) -> float:
    """Probability the opponent holds at least one of ``cards`` (uniform over hidden cards)."""
    if cards & know.opp_shown:
        return 1.0
    possible = know.possible_opp() & ~know.opp_shown
    n = possible.bit_count()
    k = know.opp_size - know.opp_shown.bit_count()
    b = (cards & possible).bit_count()
    if b == 0 or k <= 0:
        return 0.0
    if n - b < k:
        return 1.0
    return 1.0 - comb(n - b, k) / comb(n, k)


def beaters(card: int, know: Knowledge, as_lead: bool = True) -> int:
    """Cards out against me that beat ``card`` when it is led."""
    suit = card // 6
    higher = know.out & SUIT_MASKS[suit] & ((1 << card) - 1)
    if suit != know.trump and as_lead:
        higher |= know.out & SUIT_MASKS[know.trump]
    return higher


# ---------------------------------------------------------------- open phase


def open_follow(view: PlayerView, know: Knowledge, cards: list[int]) -> int:
    assert view.lead is not None
    lead = view.lead.id
    best, best_value = cards[0], -1e9
    for c in cards:
        wins = beats(c, lead, know.trump)
        pts = CARD_POINTS[lead] + CARD_POINTS[c]
        value = -keep_value(c, view, know)
        if wins:
            value += pts + 3.0
            if view.my_points + view.my_held_points + pts >= 66:
                value += WIN_BONUS
        else:
            value -= pts
            if view.opponent_points + view.opponent_held_points + pts >= 66:
                value -= WIN_BONUS
        if value > best_value:
            best, best_value = c, value
    return best


def open_lead(view: PlayerView, know: Knowledge, cards: list[int]) -> int:
    best, best_value = cards[0], -1e9
    for c in cards:
        p = p_holds_any(know, beaters(c, know))
        pts = CARD_POINTS[c]
        value = (1.0 - p) * (pts + 2.0) - p * (pts + 6.0) - keep_value(c, view, know)
        if value > best_value:
            best, best_value = c, value
    return best


def pick_marriage(view: PlayerView, codes: list[int]) -> int:
    """Trump marriage first; lead the queen (the cheaper half) when either may be led."""
    trump = view.trump_suit

    def key(code: int) -> tuple[bool, bool]:
        card = code - MARRY_BASE
        return (card // 6 == trump, card % 6 == QUEEN)

    return max(codes, key=key)


# ------------------------------------------------------------------- closing


def sure_points(know: Knowledge, opp_trumps: int) -> tuple[int, int]:
    """(points, tricks) I can count on after a close: top trumps, then side masters."""
    points = tricks = 0
    trump_tricks = 0
    for card in range(know.trump * 6, know.trump * 6 + 6):
        if know.mine >> card & 1:
            points += CARD_POINTS[card]
            trump_tricks += 1
        elif know.out >> card & 1:
            break
    tricks += trump_tricks
    if trump_tricks >= opp_trumps:
        for suit in range(4):
            if suit == know.trump:
                continue
            for card in range(suit * 6, suit * 6 + 6):
                if know.mine >> card & 1:
                    points += CARD_POINTS[card]
                    tricks += 1
                elif know.out >> card & 1:
                    break
    return points, tricks


def should_close(view: PlayerView, know: Knowledge) -> bool:
    """Close when the count of sure tricks reaches 66 (with a small safety margin)."""
    if not view.options.allow_close or not know.talon_open:
        return False
    out_trumps = know.out & SUIT_MASKS[know.trump]
    hidden_opp = know.opp_size - know.opp_shown.bit_count()
    pool = max(1, (know.out & ~know.opp_shown).bit_count())
    expected = (out_trumps & know.opp_shown).bit_count() + round(
        (out_trumps & ~know.opp_shown).bit_count() * hidden_opp / pool + 0.3
    )
    points, tricks = sure_points(know, expected)
    total = view.my_points + points + 3 * tricks
    if tricks and view.my_held_points:
        total += view.my_held_points
    return total >= 68


# ---------------------------------------------------------------- strict phase


def strict_follow(view: PlayerView, know: Knowledge, cards: list[int]) -> int:
    assert view.lead is not None
    lead = view.lead.id
    winners = [c for c in cards if beats(c, lead, know.trump)]
    if winners:
        return min(winners, key=lambda c: (c // 6 == know.trump, CARD_POINTS[c], -c))
    return min(cards, key=lambda c: (c // 6 == know.trump, CARD_POINTS[c], -c))


def strict_lead(view: PlayerView, know: Knowledge, cards: list[int]) -> int:
    possible = know.possible_opp()
    opp_trumps = possible & SUIT_MASKS[know.trump]
    sure = []
    for c in cards:
        suit = c // 6
        higher = possible & SUIT_MASKS[suit] & ((1 << c) - 1)
        if higher:
            continue
        if suit != know.trump and opp_trumps and not possible & SUIT_MASKS[suit]:
            continue  # the opponent is void here and can trump
        if suit != know.trump and opp_trumps and know.opp_exact is None:
            continue  # not sure while trumps may be out
        sure.append(c)
    if sure:
        trumps = [c for c in sure if c // 6 == know.trump]
        if trumps and opp_trumps:
            return max(trumps, key=lambda c: CARD_POINTS[c])
        return max(sure, key=lambda c: (CARD_POINTS[c], c // 6 != know.trump))
    side = [c for c in cards if c // 6 != know.trump] or cards
    return min(side, key=lambda c: (CARD_POINTS[c] + keep_value(c, view, know) * 0.2, c))


__all__ = ["ExpertBot", "decide"]
