"""Cards drawn as small pictures: rank and suit in a box, numbered for typing.

Card players look rather than read, so the full screen draws the hand, the
card led and the trump card as pictures. Each picture is four rows of five
columns; ``--ascii`` and ``--plain`` keep the text forms (``cards_text``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from p2p66.engine.cards import RANKS, SUIT_SYMBOLS, Card
from p2p66.ui.cards_text import TextStyle, card_class

CARD_WIDTH = 5
GAP = " "
PICTURE_ROWS = 6  # caption, four rows of the card, the number under it

Fragments = StyleAndTextTuples
ClickHandler = Callable[[Card], None]


@dataclass(frozen=True, slots=True)
class Picture:
    """One card to draw: the card (None: an empty place), its caption and its number."""

    card: Card | None
    caption: str = ""
    number: str = ""
    dim: bool = False  # may not be played now


def picture_rows(
    pictures: Sequence[Picture],
    style: TextStyle,
    *,
    gap: str = GAP,
    on_click: ClickHandler | None = None,
) -> list[Fragments]:
    """The pictures side by side: six rows of fragments (caption, card, number)."""
    rows: list[Fragments] = [[] for _ in range(PICTURE_ROWS)]
    for n, picture in enumerate(pictures):
        if n:
            for row in rows:
                row.append(("", gap))
        width = max(CARD_WIDTH, len(picture.caption))
        rows[0].append(("class:label", picture.caption.ljust(width)))
        for i, (cls, text) in enumerate(_card_box(picture, style)):
            fragment: OneStyleAndTextTuple = (cls, text.ljust(width))
            if on_click is not None and picture.card is not None:
                fragment = (cls, text.ljust(width), _clicker(on_click, picture.card))
            rows[1 + i].append(fragment)
        rows[5].append(("class:index", picture.number.center(CARD_WIDTH).ljust(width)))
    return rows


def pictures_width(pictures: Sequence[Picture], gap: str = GAP) -> int:
    """How many columns ``picture_rows`` takes for these pictures."""
    widths = [max(CARD_WIDTH, len(p.caption)) for p in pictures]
    return sum(widths) + len(gap) * max(len(widths) - 1, 0)


def _card_box(picture: Picture, style: TextStyle) -> list[tuple[str, str]]:
    card = picture.card
    if card is None:
        return [("class:card.dim", row) for row in ("┌ ─ ┐", "     ", "     ", "└ ─ ┘")]
    cls = "class:card.dim" if picture.dim else card_class(card, style)
    rank = "10" if RANKS[card.rank] == "T" else RANKS[card.rank]
    suit = SUIT_SYMBOLS[card.suit]
    return [
        (cls, "┌───┐"),
        (cls, f"│{rank:<3}│"),
        (cls, f"│{suit:>3}│"),
        (cls, "└───┘"),
    ]


def _clicker(on_click: ClickHandler, card: Card) -> Callable[[MouseEvent], None]:
    def handler(event: MouseEvent) -> None:
        if event.event_type == MouseEventType.MOUSE_UP:
            on_click(card)

    return handler
