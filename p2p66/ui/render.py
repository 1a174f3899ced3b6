"""The board, the turn line and the status bar, drawn from a ``Screen``.

Pure: a screen and a text style in, prompt-toolkit ``FormattedText`` out
(``plain`` turns it into a string). Every fact is written in words or
symbols; colour and bold only repeat what the text already says.
"""

from __future__ import annotations

import re

from prompt_toolkit.formatted_text import (
    FormattedText,
    OneStyleAndTextTuple,
    StyleAndTextTuples,
    fragment_list_to_text,
)
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from p2p66.engine import Phase, PlayerView
from p2p66.engine.cards import Card
from p2p66.ui.cards_text import (
    TextStyle,
    card_class,
    card_text,
    display_order,
    suit_name,
    suit_text,
)
from p2p66.ui.narrate import result_sentence
from p2p66.ui.pictures import ClickHandler, Picture, picture_rows, pictures_width
from p2p66.ui.screen import Screen

LOG_LINES = 5
Fragments = StyleAndTextTuples
CONTINUED = "    "  # the indent of a wrapped line's continuation
SIDE_GAP = "  "  # between the trump card and the card on the table
_TOKENS = re.compile(r"\S+\s*|\s+")


def wrap(fragments: Fragments, width: int) -> Fragments:
    """``fragments`` re-flowed to ``width`` columns at spaces, styles kept.

    prompt-toolkit cuts a prompt message's long lines at the terminal's edge
    instead of wrapping them, which lost the end of hand results and move
    hints on an 80-column terminal.
    """
    out: Fragments = []
    column = 0
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        for n, line in enumerate(text.split("\n")):
            if n:
                out.append((style, "\n"))
                column = 0
            for token in _TOKENS.findall(line):
                piece = token
                if column > len(CONTINUED) and column + get_cwidth(token.rstrip()) > width:
                    _drop_trailing_blanks(out)
                    out.append(("", "\n" + CONTINUED))
                    column = len(CONTINUED)
                    piece = token.lstrip()
                out.append(like(fragment, piece))
                column += get_cwidth(piece)
    return out


def like(fragment: OneStyleAndTextTuple, text: str) -> OneStyleAndTextTuple:
    """``fragment`` with other ``text``: its style and its mouse handler (if any) kept."""
    if len(fragment) == 3:
        return (fragment[0], text, fragment[2])
    return (fragment[0], text)


def _drop_trailing_blanks(out: Fragments) -> None:
    """Remove the blanks before a line break: they would make the line too wide."""
    while out:
        style, text, *_ = out[-1]
        stripped = text.rstrip(" ")
        if stripped:
            out[-1] = (style, stripped)
            return
        out.pop()


def ui_style(color: bool) -> Style:
    """Styles for the classes used below; without colour only bold and dim remain."""
    rules = {
        "title": "bold",
        "label": "bold",
        "card": "bold",
        "card.dim": "noinherit",
        "index": "",
        "turn": "bold",
        "log": "",
        "status": "reverse",
        "status.alert": "reverse bold",
    }
    if color:
        rules |= {
            "card.red": "bold ansired",
            "card.black": "bold",
            "card.green": "bold ansigreen",
            "card.blue": "bold ansiblue",
            "card.dim": "#888888",
            "index": "ansicyan",
            "turn": "bold ansigreen",
            "log": "#aaaaaa",
            "status.alert": "reverse bold ansiyellow",
        }
    return Style.from_dict(rules)


def plain(text: Fragments) -> str:
    """The text of formatted fragments, without any style."""
    return fragment_list_to_text(text)


def card(c: Card, style: TextStyle) -> tuple[str, str]:
    return (card_class(c, style), card_text(c, style))


def board(screen: Screen, style: TextStyle) -> FormattedText:
    """Everything above the input line."""
    return FormattedText([*_head(screen, style), *_log(screen), *_turn(screen, style)])


def _head(
    screen: Screen, style: TextStyle, width: int = 0, on_click: ClickHandler | None = None
) -> Fragments:
    """The board above the log: the hand, the table, the talon, both players.

    With a ``width`` the terminal can fit, the hand, the trump card and the
    card led are drawn as pictures (clickable with ``on_click``); else as text.
    """
    view = screen.view
    out: Fragments = []
    if view is None:
        return [("class:title", " Waiting for the first hand to be dealt...\n")]
    voice = screen.voice
    opponent = voice.opponent
    dealer = "you deal" if view.dealer == view.seat else f"{opponent} deals"
    trump = f"trumps {suit_text(view.trump_suit, style)} {suit_name(view.trump_suit)}"
    out.append(("class:title", f" Hand {screen.hand_number} · {dealer} · {trump}\n"))
    out += [("class:label", " Talon: "), *talon_fragments(view, opponent, style), ("", "\n")]
    out += [("class:label", f" {opponent}: ")]
    their_tricks = tricks_text(view.tricks_won[1 - view.seat])
    out.append(("", f"{view.opponent_hand_size} cards, {their_tricks}"))
    if view.opponent_shown:
        out.append(("", ", has shown "))
        out += _cards(view.opponent_shown, style)
    out.append(("", "\n"))
    pictures = _pictures(view, opponent, style, width, on_click)
    if pictures is None:
        out += [("class:label", " Table: "), *_table(view, opponent, style), ("", "\n")]
    out += [("class:label", " Last trick: "), *_last_trick(view, opponent, style), ("", "\n")]
    mine = f"{view.my_points} card points"
    if view.my_held_points:
        mine += f" (+{view.my_held_points} held until you win a trick)"
    out += [("class:label", " You: "), ("", f"{mine}, {tricks_text(view.tricks_won[view.seat])}\n")]
    if pictures is None:
        out += [("class:label", " Your hand: "), *_hand(view, style), ("", "\n")]
    else:
        for row in pictures:
            out += [("", " "), *row, ("", "\n")]
    return out


def _pictures(
    view: PlayerView, opponent: str, style: TextStyle, width: int, on_click: ClickHandler | None
) -> list[Fragments] | None:
    """The hand, the trump card and the card led as pictures, or None if they do not fit."""
    if style.ascii or width <= 0:
        return None
    playable = {m.card for m in view.legal if m.kind in ("play", "marry") and m.card is not None}
    restricted = view.my_turn and view.phase in (Phase.LEAD, Phase.FOLLOW)
    hand = [
        Picture(c, number=str(i + 1), dim=restricted and c not in playable)
        for i, c in enumerate(display_order(view.hand, view.trump_suit))
    ]
    trump_caption = "Trump" + (", closed" if view.closed else "")
    trump = Picture(view.trump_card, trump_caption if view.trump_card else "No talon")
    leader = view.to_act if view.phase == Phase.MARRIAGE_DECLARE else 1 - view.to_act
    who = "you" if leader == view.seat else opponent
    for caption in (f"{who} led" + (" (marriage)" if view.lead_is_marriage else ""), "Led"):
        table = Picture(view.lead, caption if view.lead is not None else "Table")
        side = [trump, table]
        if pictures_width(hand) + 4 + pictures_width(side, SIDE_GAP) + 1 <= width:
            break
    else:
        return None
    hand_rows = picture_rows(hand, style, on_click=on_click)
    hand_rows[0] = [("class:label", "Your hand".ljust(pictures_width(hand)))]
    side_rows = picture_rows(side, style, gap=SIDE_GAP)
    return [
        [*mine, ("", "    "), *theirs] for mine, theirs in zip(hand_rows, side_rows, strict=True)
    ]


def _turn(screen: Screen, style: TextStyle) -> Fragments:
    if screen.view is None:
        return []
    return [("class:turn", f" {turn_line(screen, style)}\n")]


def board_lines(
    screen: Screen,
    style: TextStyle,
    *,
    width: int,
    rows: int,
    panel: tuple[str, ...] = (),
    on_click: ClickHandler | None = None,
) -> Fragments:
    """The board laid out for ``rows`` lines of ``width`` columns, one line per row.

    The turn line (what to do now) and the newest message are what a player
    needs most, so they are kept whatever the size: on a short terminal the
    oldest log lines go first, then the top of the board. ``panel`` (help, a
    warning, a refusal) takes the log's place until it is dismissed, so it can
    never scroll the board away.
    """
    head = lines_of(wrap(_head(screen, style, width, on_click), width))
    turn = lines_of(wrap(_turn(screen, style), width))
    if panel:
        middle = lines_of(wrap([("class:panel", f" {line}\n") for line in panel], width))
    else:
        middle = lines_of(wrap(_log(screen), width))
    room = max(rows - len(turn), 1)
    if panel and len(head) + len(middle) > room:  # the panel first: cards as text, not pictures
        head = lines_of(wrap(_head(screen, style), width))
    keep = min(len(middle), max(room - len(head), 1))
    if panel and keep < len(middle):
        middle = [*middle[: keep - 1], [("class:panel", " ... (Esc closes this)")]]
    else:
        middle = middle[len(middle) - keep :]
    head = head[max(len(head) - (room - len(middle)), 0) :]
    out: Fragments = []
    for line in [*head, *middle, *turn]:
        out += [*line, ("", "\n")]
    return out


def lines_of(fragments: Fragments) -> list[Fragments]:
    """``fragments`` cut at each newline into one fragment list per line (newlines dropped)."""
    lines: list[Fragments] = [[]]
    for fragment in fragments:
        for n, piece in enumerate(fragment[1].split("\n")):
            if n:
                lines.append([])
            if piece:
                lines[-1].append(like(fragment, piece))
    if not lines[-1]:
        lines.pop()
    return lines


def tricks_text(n: int) -> str:
    return f"{n} trick{'s' if n != 1 else ''}"


def _cards(cards: tuple[Card, ...], style: TextStyle) -> Fragments:
    out: Fragments = []
    for i, c in enumerate(cards):
        if i:
            out.append(("", " "))
        out.append(card(c, style))
    return out


def talon_fragments(view: PlayerView, opponent: str, style: TextStyle) -> Fragments:
    if view.talon_size == 0:
        return [("", "exhausted (follow suit and win if you can)")]
    trump = [card(view.trump_card, style)] if view.trump_card is not None else [("", "?")]
    if view.closed:
        closer = "you" if view.closer == view.seat else opponent
        return [
            ("", f"closed by {closer} ({view.talon_size} cards; trump card "),
            *trump,
            ("", " face down): follow suit and win if you can"),
        ]
    return [("", f"{view.talon_size} cards, trump card "), *trump, ("", " face up")]


def _table(view: PlayerView, opponent: str, style: TextStyle) -> Fragments:
    if view.lead is None:
        return [("", "empty")]
    leader = view.to_act if view.phase == Phase.MARRIAGE_DECLARE else 1 - view.to_act
    who = "you" if leader == view.seat else opponent
    marriage = " announcing a marriage" if view.lead_is_marriage else ""
    return [("", f"{who} led "), card(view.lead, style), ("", marriage)]


def _last_trick(view: PlayerView, opponent: str, style: TextStyle) -> Fragments:
    if not view.tricks:
        return [("", "none yet")]
    t = view.tricks[-1]

    def who(seat: int) -> str:
        return "you" if seat == view.seat else opponent

    return [
        ("", f"{who(t.leader)} "),
        card(t.lead, style),
        ("", f", {who(1 - t.leader)} "),
        card(t.follow, style),
        ("", f" → won by {who(t.winner)}"),
    ]


def _hand(view: PlayerView, style: TextStyle) -> Fragments:
    playable = {m.card for m in view.legal if m.kind in ("play", "marry") and m.card is not None}
    restricted = view.my_turn and view.phase in (Phase.LEAD, Phase.FOLLOW)
    out: Fragments = []
    for i, c in enumerate(display_order(view.hand, view.trump_suit)):
        out.append(("class:index", f" {i + 1}:"))
        if restricted and c not in playable:
            out.append(("class:card.dim", f"({card_text(c, style)})"))
        else:
            out.append(card(c, style))
    if restricted and len(playable) < len(view.hand):
        out.append(("", "  (cards in brackets may not be played now)"))
    return out


def _log(screen: Screen) -> Fragments:
    return [("class:log", f"  · {line}\n") for line in screen.log[-LOG_LINES:]]


def turn_line(screen: Screen, style: TextStyle) -> str:
    """What the player is expected to do now, with the keys that do it."""
    view, opponent = screen.view, screen.voice.opponent
    if screen.match_over is not None:
        return "The match is over: press Enter (or q) to leave."
    if view is None:
        return "Waiting..."
    if view.phase == Phase.OVER:
        if screen.result is not None:
            return result_sentence(screen.result, screen.voice) + "."
        return "The hand is over."
    if not view.my_turn:
        return f"Waiting for {opponent} to play. (? explains the rules now)"
    keys = _keys(view)
    if view.phase == Phase.LEAD:
        return f"Your lead: type a card or its number{keys}"
    if view.phase == Phase.FOLLOW and view.lead is not None:
        duty = "" if view.talon_open else " (follow suit and win if you can)"
        return f"Your turn: answer {card_text(view.lead, style)}{duty}{keys}"
    if view.phase == Phase.DRAW:
        return "You won the trick: Enter = draw, c then Enter = close the talon · ? help"
    points = view.my_points
    if view.phase == Phase.MARRIAGE_DECLARE:
        if points >= 66:
            return f"You have {points} card points: Enter = declare 66, p = go on · ? help"
        return f"Marriage announced ({points} card points, not 66): Enter = go on · ? help"
    if points >= 66:
        return f"Last trick of a closed hand: Enter = declare 66 ({points} card points), p = pass"
    return f"Last trick of a closed hand: {points} card points, not 66: Enter = pass"


def _keys(view: PlayerView) -> str:
    kinds = {m.kind for m in view.legal}
    if view.my_points < 66:
        kinds.discard("declare")  # legal but a sure loss; entry wants "declare!" for it
    keys = [
        label
        for kind, label in (
            ("marry", "m marriage"),
            ("exchange", "x exchange"),
            ("close", "c close"),
            ("declare", "d declare 66"),
        )
        if kind in kinds
    ]
    return " · " + " · ".join([*keys, "? help"])


def status_bar(screen: Screen, width: int = 200, clock: list[str] | None = None) -> FormattedText:
    """Match score, opponent, connection, whose turn: the bottom toolbar, within ``width``.

    Each part has shorter wordings; the longest combination that fits is shown,
    so "Expert Bot's turn" survives on 80 columns and the bar is never cut.
    ``clock`` (``play --clock``) adds the move clock's wordings, longest first.
    """
    voice = screen.voice
    me, other = voice.seat, 1 - voice.seat
    gp = screen.game_points
    who = voice.opponent
    target = screen.match_target
    scores = [
        f"Match: you {gp[me]}, {who} {gp[other]}" + (f" (to {target})" if target else ""),
        f"you {gp[me]}, {who} {gp[other]}" + (f" (to {target})" if target else ""),
        f"{gp[me]}-{gp[other]}" + (f" of {target}" if target else ""),
    ]
    links = [_connection(screen), _connection(screen).split(",")[0]]
    turns = _turn_words(screen)
    alert = screen.connection.state in ("reconnecting", "closed")
    parts = (scores, [f"vs {who}", ""], links, turns)
    # the clock was asked for: it goes only when nothing else can give way
    combos = (
        [*_wordings(*parts, clock), *_wordings(*parts, [""])] if clock else _wordings(*parts, [""])
    )
    fragments: Fragments = []
    for score, opponent, link, turn, timed in combos:
        fragments = [("class:status", f" {score} ")]
        if opponent:
            fragments.append(("class:status", f"│ {opponent} "))
        fragments.append(("class:status.alert" if alert else "class:status", f"│ {link} "))
        fragments.append(("class:status", f"│ {turn} "))
        if timed:
            fragments.append(("class:status", f"│ {timed} "))
        if get_cwidth(plain(fragments)) <= width:
            break
    return FormattedText(fragments)


def _turn_words(screen: Screen) -> list[str]:
    if screen.match_over is not None:
        return ["match over"]
    if screen.view is None or screen.view.phase == Phase.OVER:
        return ["between hands"]
    if screen.my_turn:
        return ["your turn"]
    return [f"{screen.voice.opponent}'s turn", "their turn"]


def _wordings(*choices: list[str]) -> list[tuple[str, ...]]:
    """Every combination of the parts' wordings, longest first (ties: earlier parts longer)."""
    combos: list[tuple[str, ...]] = [()]
    for options in choices:
        combos = [(*combo, option) for combo in combos for option in options]
    return sorted(combos, key=lambda combo: -sum(get_cwidth(part) for part in combo))


def _connection(screen: Screen) -> str:
    status = screen.connection
    if status.state == "connected" and status.latency_ms is not None:
        return f"connected, {status.latency_ms:.0f} ms"
    return {
        "local": "local game",
        "connecting": "connecting...",
        "connected": "connected",
        "reconnecting": "reconnecting...",
        "waiting": "waiting for the opponent...",
        "closed": "connection closed",
    }[status.state]
