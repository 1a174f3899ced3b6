"""How cards look on screen: suit symbols or letters, with or without colour.

Colour is never the only signal: every card always shows its suit symbol or
letter, so a monochrome terminal, ``NO_COLOR`` or a screen reader loses nothing.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from p2p66.engine.cards import RANKS, SUIT_NAMES, SUIT_SYMBOLS, SUITS, Card
from p2p66.engine.errors import NotationError

RED_SUITS = frozenset({1, 2})  # diamonds, hearts
FOUR_COLOURS = ("class:card.green", "class:card.blue", "class:card.red", "class:card.black")
"""The four-colour deck's classes, by suit: clubs, diamonds, hearts, spades."""


@dataclass(frozen=True, slots=True)
class TextStyle:
    """``ascii``: suit letters instead of symbols; ``color``: red suits in red."""

    ascii: bool = False
    color: bool = True
    four_colour: bool = False  # clubs green, diamonds blue: every suit its own colour
    words: bool = False  # cards as words, "the ace of spades": for screen readers


DEFAULT_STYLE = TextStyle()

_ASCII_PUNCTUATION = str.maketrans(
    {
        "·": "-",
        "│": "|",
        "→": "->",
        "←": "<-",
        "…": "...",
        "—": "-",
        "–": "-",
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "×": "x",
        **dict(zip(SUIT_SYMBOLS, SUITS, strict=True)),
    }
)


def ascii_only(text: str) -> str:
    """``text`` in ASCII: the board's punctuation spelled out, accents dropped, the rest ``?``.

    ``--ascii`` promises every character is ASCII, so even a peer's name such as
    "José" or "李" reaches the screen as "Jose" or "?".
    """
    text = text.translate(_ASCII_PUNCTUATION)
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(
        ch if ch.isascii() else "?" for ch in decomposed if not unicodedata.combining(ch)
    )


def shown(text: str, style: TextStyle) -> str:
    """``text`` as this style may show it: ASCII only under ``--ascii``."""
    return ascii_only(text) if style.ascii else text


def suit_text(suit: int, style: TextStyle) -> str:
    return SUITS[suit] if style.ascii else SUIT_SYMBOLS[suit]


def card_text(card: Card, style: TextStyle) -> str:
    """``AH`` in ASCII (the move notation), ``A♥`` otherwise; a ten is ``10♥``; or words."""
    if style.words:
        return f"the {card.name()}"
    if style.ascii:
        return card.code
    rank = "10" if RANKS[card.rank] == "T" else RANKS[card.rank]
    return rank + SUIT_SYMBOLS[card.suit]


def card_class(card: Card, style: TextStyle) -> str:
    """The prompt-toolkit style class of a card: red for hearts and diamonds."""
    if not style.color:
        return "class:card"
    if style.four_colour:
        return FOUR_COLOURS[card.suit]
    return "class:card.red" if card.suit in RED_SUITS else "class:card.black"


def suit_name(suit: int) -> str:
    return SUIT_NAMES[suit]


def cards_text(cards: tuple[Card, ...] | list[Card], style: TextStyle) -> str:
    """Cards separated by spaces, or "none"."""
    joint = ", " if style.words else " "
    return joint.join(card_text(c, style) for c in cards) if cards else "none"


def display_order(hand: tuple[Card, ...], trump_suit: int) -> tuple[Card, ...]:
    """The hand as shown and numbered: by suit, alternating colours, trumps last; high first."""
    order = [3, 2, 0, 1]  # spades, hearts, clubs, diamonds
    order.remove(trump_suit)
    order.append(trump_suit)
    rank_of_suit = {s: i for i, s in enumerate(order)}
    return tuple(sorted(hand, key=lambda c: (rank_of_suit[c.suit], c.rank)))


_CARD_CODE = re.compile(r"(?<![\w'\":])([AKQJT9])([CDHS])(?![\w'\"])")
"""A card code standing alone in a sentence: not inside a quoted example or ``marry:QH``."""


def speak(text: str, style: TextStyle) -> str:
    """``text`` with the engine's card codes written as the board writes cards ("TC": "10♣").

    Refusals and notices come from the engine in its notation; the player
    should read the same words everywhere. Quoted examples of what to type stay.
    """
    if style.ascii:
        return text
    return _CARD_CODE.sub(lambda m: card_text(Card.parse(m[0]), style), text)


_CODE_IN_TEXT = re.compile(r"\b[AKQJT9][CDHS]\b")


def cards_named(text: str, style: TextStyle) -> str:
    """The engine's sentence with each card code in it (``QD``) written as the board writes
    cards (``Q♦``, or the code again with ``--ascii``): its refusals name cards by code."""

    def named(found: re.Match[str]) -> str:
        try:
            return card_text(Card.parse(found.group()), style)
        except NotationError:
            return found.group()

    return _CODE_IN_TEXT.sub(named, text)


def no_such_card(number: int, held: int) -> str:
    """Why card ``number`` is refused when ``held`` cards are shown (at least one)."""
    if held == 1:
        return f"there is no card {number}: your one card is number 1"
    return f"there is no card {number}: your cards are numbered 1 to {held}"
