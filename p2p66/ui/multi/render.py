"""The board of the games for three and four players, as styled lines for any width.

``head(t)`` is the board: the match, the bidding and the contract, the trick
laid out round the table with who played each card, and your hand.
``board_lines`` stacks it with the story (or a panel: help, the score sheet,
the tricks, a hand's result) and the turn line into the rows of a terminal;
``board`` is the same as plain text for a fixed 80×24 page. Cards carry the
classes of the two-player board (``ui.render``), so colour, the four-colour
deck and ``--ascii`` work the same; colour only repeats what the text says.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from p2p66.engine.cards import Card
from p2p66.engine.table import (
    TablePhase,
    TableTrick,
    TableView,
    ThreeHandedView,
    table_label,
)
from p2p66.ui.cards_text import TextStyle, card_text, display_order, suit_name, suit_text
from p2p66.ui.multi.seat import SeatModel
from p2p66.ui.render import card, lines_of, plain, wrap

WIDTH = 80
HEIGHT = 24
Fragments = StyleAndTextTuples


def fit(line: str, width: int = WIDTH) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def cards(cs: tuple[Card, ...] | list[Card], style: TextStyle) -> str:
    return " ".join(card_text(c, style) for c in cs) or "none"


def call_text(names: tuple[str, ...], seat: int, bid: int) -> str:
    return f"{names[seat]} {'pass' if not bid else ('moon' if bid == 5 else bid)}"


def contract_text(v: TableView, names: tuple[str, ...]) -> str:
    """ "East 3 (99 points)", "North: the moon (all six tricks)"; held dealers say so."""
    assert v.bidder is not None
    if v.moon:
        return f"{names[v.bidder]}, the moon (all {v.options.hand_size} tricks alone)"
    held = ", the dealer held to 1" if v.forced else ""
    return f"{names[v.bidder]} {v.bid} ({33 * v.bid} points{held})"


def _fragments_of_cards(cs: tuple[Card, ...], style: TextStyle) -> Fragments:
    out: Fragments = []
    for i, c in enumerate(cs):
        if i:
            out.append(("", " "))
        out.append(card(c, style))
    return out or [("", "none")]


def _hand(cs: tuple[Card, ...], playable: set[Card] | None, style: TextStyle) -> Fragments:
    """The hand numbered as typed (1 = first); unplayable cards in brackets on your turn."""
    out: Fragments = [("class:label", " Your hand:")]
    for i, c in enumerate(cs):
        out.append(("class:index", f" {i + 1}:"))
        if playable is not None and c not in playable:
            out.append(("class:card.dim", f"({card_text(c, style)})"))
        else:
            out.append(card(c, style))
    if not cs:
        out.append(("", " none"))
    out.append(("", "\n"))
    return out


def _cell(name: str, played: Card | None, note: str, style: TextStyle) -> Fragments:
    """One seat round the table: ``North (5): A♠ led``."""
    out: Fragments = [("class:label", name), ("", ": ")]
    out.append(card(played, style) if played is not None else ("", "·"))
    if note:
        out.append(("", f" {note}"))
    return out


def _width(fragments: Fragments) -> int:
    return get_cwidth(plain(fragments))


def _row(left: Fragments, right: Fragments, column: int) -> Fragments:
    gap = max(column - _width(left), 2)
    return [("", " "), *left, ("", " " * gap), *right, ("", "\n")]


def trick_rows(
    names: tuple[str, ...],
    plays: tuple[tuple[int, Card], ...],
    counts: tuple[int, ...] | None,
    winner: int | None,
    *,
    style: TextStyle,
    width: int,
    out: int | None = None,
    me: int = 0,
) -> Fragments:
    """The trick round the table: you (seat ``me``) at the bottom, the next seat clockwise
    on the left, the one after it on top (with four), the seat before you on the right.

    ``counts`` are the cards each seat holds; seat ``out`` sits this hand out.
    """
    played = dict(plays)
    leader = plays[0][0] if plays else None

    def cell(seat: int) -> Fragments:
        if seat == out:
            return [("class:label", names[seat]), ("", " sit out" if seat == me else " sits out")]
        name = names[seat] + (f" ({counts[seat]})" if counts is not None and seat != me else "")
        note = "won" if seat == winner else ("led" if seat == leader else "")
        return _cell(name, played.get(seat), note, style)

    column = max(min(width // 2, 34), 22)
    middle = (column + 1) // 2
    n = len(names)
    rows: Fragments = []
    if n == 4:
        rows += [("", " " * middle), *cell((me + 2) % n), ("", "\n")]
    rows += _row(cell((me + 1) % n), cell((me + n - 1) % n), column)
    rows += [("", " " * middle), *cell(me), ("", "\n")]
    return rows


def bidding_head(v: TableView, t: SeatModel, width: int) -> Fragments:
    """The board of north-american, south-bend and cut-throat."""
    names, style, opts = t.names, t.style, v.options
    sides = t.sides
    out: Fragments = [
        (
            "class:title",
            f" {table_label(opts)} · hand {t.hand_number} · {names[v.dealer]} "
            f"deal{'' if v.dealer == t.me else 's'} · marks to {opts.match_target}\n",
        ),
        ("class:label", " Marks: "),
        ("", " · ".join(f"{n} {s}" for n, s in zip(sides, v.scores, strict=True)) + "\n"),
    ]
    calls = ", ".join(call_text(names, s, b) for s, b in v.calls) or "no call yet"
    out += [("class:label", " Bidding: "), ("", calls + "\n")]
    if v.phase == TablePhase.BID:
        high = f"{names[v.bidder]} {v.bid}" if v.bidder is not None and v.bid else "none yet"
        moon = ", 5 = the moon" if opts.max_bid == 5 else ""
        out += [("class:label", " High bid: "), ("", f"{high} · 1 = 33 points{moon}\n")]
    elif v.bidder is not None:
        side = opts.side_of(v.bidder)
        trump: Fragments = (
            [("", f"trumps {suit_text(v.trump, style)} {suit_name(v.trump)}")]
            if v.trump is not None
            else [("", "trumps: the suit of the first card led")]
        )
        out += [("class:label", " Contract: "), ("", contract_text(v, names) + " · "), *trump]
        out.append(("", "\n"))
        need = opts.hand_size if v.moon else 33 * v.bid
        got = v.tricks_won[v.bidder] if v.moon else _side_points(v, side)
        unit = " tricks" if v.moon else ""
        if v.result is not None:
            status = "made" if v.result.made else ("moon failed" if v.moon else "set")
        elif v.moon and got < sum(v.tricks_won):
            status = "the moon has failed"
        elif got >= need and not v.moon:
            status = "made"
        else:
            needs = "need" if v.bidder == t.me else "needs"
            status = f"{names[v.bidder]} {needs} {need - got} more{unit}"
        taken = " · ".join(f"{sides[s]} {_side_points(v, s)}" for s in range(opts.sides))
        out += [("class:label", " Points: "), ("", f"{taken} · {status}\n")]
    if opts.widow_size:
        if v.widow_taker is not None:
            out += [("class:label", " Widow: "), *_fragments_of_cards(v.widow, style)]
            out.append(("", f", taken by {names[v.widow_taker]}\n"))
        else:
            out.append(("class:label", " Widow: "))
            out.append(("", f"{opts.widow_size} cards face down, to the first trick's winner\n"))
    if v.phase != TablePhase.BID:
        out += _trick_block(v, t, width)
    if v.marriages:
        told = ", ".join(f"{names[m.seat]} {suit_name(m.suit)} {m.points}" for m in v.marriages)
        out += [("class:label", " Marriages: "), ("", told + "\n")]
    if v.out_seat is not None:
        out.append(("", f" {names[v.out_seat]} has laid the hand down and sits out.\n"))
    order = v.trump if v.trump is not None else 0
    playing = v.my_turn and v.phase != TablePhase.BID and v.result is None
    playable = {c for c in v.hand if c.id in v.legal or c.id + 24 in v.legal} if playing else None
    out += _hand(display_order(v.hand, order), playable, style)
    return out


def _trick_block(v: TableView, t: SeatModel, width: int) -> Fragments:
    """The trick in progress round the table, or the one just won until the next card."""
    names, style = t.names, t.style
    counts = v.hand_sizes
    if v.trick or not v.tricks:
        number = len(v.tricks) + 1
        caption = f" Trick {number} of {v.options.hand_size}"
        plays, winner = v.trick, None
    else:
        last: TableTrick = v.tricks[-1]
        caption = f" Trick {len(v.tricks)} won by {names[last.winner]}"
        plays, winner = last.plays, last.winner
    if v.result is None and v.to_act >= 0:
        caption += f" · {names[v.to_act]} to play"
    return [
        ("class:label", caption + ":\n"),
        *trick_rows(
            names, plays, counts, winner, style=style, width=width, out=v.out_seat, me=t.me
        ),
    ]


def _side_points(v: TableView, side: int) -> int:
    return sum(p for s, p in enumerate(v.points) if v.options.side_of(s) == side)


def three_head(v: ThreeHandedView, t: SeatModel, width: int) -> Fragments:
    """The board of three-handed: two play a two-player hand, the dealer watches."""
    names, style = t.names, t.style
    p = v.public
    a, b = v.players
    out: Fragments = [
        (
            "class:title",
            f" {table_label(v.options)} · hand {t.hand_number} · {names[v.dealer]} "
            f"deal{'' if v.dealer == t.me else 's'} and sit{'' if v.dealer == t.me else 's'} out"
            f" · to {v.options.match_target}\n",
        ),
        ("class:label", " Game points: "),
        ("", " · ".join(f"{names[s]} {v.scores[s]}" for s in range(3)) + "\n"),
    ]
    talon = "closed" if p.closed else (str(p.talon_size) if p.talon_size else "empty")
    up: Fragments = [card(p.trump_card, style), ("", " up, ")] if p.trump_card is not None else []
    out += [
        ("class:label", " Playing: "),
        ("", f"{names[a]} v {names[b]} · trumps {suit_text(p.trump_suit, style)} "),
        ("", f"{suit_name(p.trump_suit)} ("),
        *up,
        ("", f"talon {talon})\n"),
    ]
    taken = " · ".join(
        f"{names[s]} {p.points[s]}" + (f" (+{p.held[s]} held)" if p.held[s] else "")
        for s in v.players
    )
    out += [("class:label", " Points: "), ("", taken + "\n")]
    counts = tuple(p.hand_sizes.get(s, 0) for s in range(3))
    plays: tuple[tuple[int, Card], ...]
    if p.lead is not None:
        leader = b if p.to_act == a else a
        plays = ((leader, p.lead),)
        caption = f" Trick {len(p.tricks) + 1}" + (
            " (a marriage led)" if p.lead_is_marriage else ""
        )
        winner = None
    elif p.tricks:
        last = p.tricks[-1]
        plays = ((last.leader, last.lead), (a if last.leader == b else b, last.follow))
        caption, winner = f" Trick {len(p.tricks)} won by {names[last.winner]}", last.winner
    else:
        plays, caption, winner = (), " Trick 1", None
    if p.result is None:
        caption += f" · {names[p.to_act]} to play"
    out.append(("class:label", caption + ":\n"))
    out += trick_rows(names, plays, counts, winner, style=style, width=width, out=v.dealer, me=t.me)
    for s in v.players:
        if s != v.seat and p.shown[s]:
            out += [("", f" {names[s]} is known to hold "), *_fragments_of_cards(p.shown[s], style)]
            out.append(("", "\n"))
    if v.hand is None:
        out.append(("", " You sit out this hand and see only what is played.\n"))
    else:
        hv = v.hand
        shown = display_order(hv.hand, p.trump_suit)
        playing = hv.my_turn and hv.phase.name in ("LEAD", "FOLLOW")
        playable = {m.card for m in hv.legal if m.card is not None} if playing else None
        out += _hand(shown, playable, style)
    return out


def head(t: SeatModel, width: int = WIDTH) -> Fragments:
    v = t.view()
    if isinstance(v, TableView):
        return bidding_head(v, t, width)
    return three_head(v, t, width)


def move_text(notation: str, style: TextStyle) -> str:
    """A legal move as the board writes cards: ``10♦``, ``m K♥``; words and bids as they are."""
    kind, _, code = notation.partition(":")
    if kind == "play":
        return card_text(Card.parse(code), style)
    if kind == "marry":
        return "m " + card_text(Card.parse(code), style)
    return notation


def call_choices(legal: list[str]) -> str:
    """ "pass or bid 2-5 (5 = the moon)": the calls you may make, in words."""
    bids = [int(n.partition(":")[2]) for n in legal if n.startswith("bid:")]
    parts = ["pass"] if "pass" in legal else []
    if bids:
        span = str(bids[0]) if len(bids) == 1 else f"{bids[0]}-{bids[-1]}"
        moon = " (5 = the moon)" if bids[-1] == 5 else ""
        parts.append(f"bid {span}{moon}")
    return " or ".join(parts)


def prompt_line(t: SeatModel) -> str:
    """What the player is expected to do now, with the keys that do it."""
    if t.over is not None:
        return f"{t.over.text} Press Enter to leave."
    if t.hand_over:
        if not t.deals_on_enter:
            return "Hand over: the next one is being dealt · s score sheet"
        return "Hand over: Enter deals the next one · s score sheet"
    if not t.my_turn:
        if t.to_act == t.me:  # a network seat: the keys of the move's cards are on their way
            return "Your turn is next: waiting for the other players' keys..."
        return f"{t.waiting_for} to play..."
    legal = t.legal_notation()
    v = t.view()
    if isinstance(v, TableView) and v.phase == TablePhase.BID:
        return f"Your call: {call_choices(legal)} · h hint · ? help"
    if t.default_move() is not None:
        return "You won the trick: Enter = draw, c then Enter = close the talon · ? help"
    others = [move_text(m, t.style) for m in legal if not m.startswith("play:")]
    extra = "".join(f" · {m}" for m in others)
    return f"Your turn: a card, by name or number{extra} · h hint · ? help"


def status_text(t: SeatModel, width: int = WIDTH) -> str:
    """The bottom bar: the score, the table (or every other seat's link), whose turn; the
    longest wording that fits (the links go before the turn does)."""
    total = "marks" if isinstance(t.view(), TableView) else "game points"
    target = t.options.match_target
    if t.over is not None:
        turn = "match over"
    elif t.hand_over:
        turn = "between hands"
    else:
        turn = "your turn" if t.my_turn else f"{t.waiting_for}'s turn"
        if t.to_act == t.me and not t.my_turn:
            turn = "your turn next"
    links = [t.link_text(), t.link_text(compact=True)]
    scores = [f"{t.scores_text()} ({total} to {target})", t.scores_text()]
    if links[0]:
        tries = [f" {s} │ {link} │ {turn} " for link in links for s in scores]
        tries += [f" {link} │ {turn} " for link in links]
    else:
        tries = [f" {s}{m}{turn} " for s in scores for m in (" │ local table │ ", " │ ")]
    for text in tries:
        if get_cwidth(text) <= width:
            return text
    return fit(tries[-1], width)


def board_lines(
    t: SeatModel,
    *,
    width: int,
    rows: int,
    panel: tuple[str, ...] = (),
    panel_head: int = 1,
) -> Fragments:
    """The board for ``rows`` lines of ``width`` columns, one line per row.

    The turn line and the newest story lines are kept whatever the size; a
    ``panel`` takes the story's place: its first ``panel_head`` lines (a
    result, a title, a header) always show, then as many of its last lines
    (the newest hands of a sheet) as fit; on a short terminal the top of the
    board goes first.
    """
    top = lines_of(wrap(head(t, width), width))
    turn = lines_of(wrap([("class:turn", f" {prompt_line(t)}\n")], width))
    room = max(rows - len(turn), 1)
    if panel:
        pieces = [lines_of(wrap([("class:panel", f" {line}\n")], width)) for line in panel]
        fixed = [x for p in pieces[:panel_head] for x in p]
        rest = [x for p in pieces[panel_head:] for x in p]
        keep = max(room - len(top), len(fixed) + 1, 2)
        middle = [*fixed, *rest[max(len(rest) - (keep - len(fixed)), 0) :]][:keep]
    else:
        story: Fragments = [("class:log", f"  · {line}\n") for line in t.log[-12:]]
        middle = lines_of(wrap(story, width))
        middle = middle[-min(len(middle), max(room - len(top), 2)) :] if middle else []
    top = top[max(len(top) - (room - len(middle)), 0) :]
    out: Fragments = []
    for line in [*top, *middle, *turn]:
        out += [*line, ("", "\n")]
    return out


def board(t: SeatModel) -> list[str]:
    """The board as plain lines of a fixed 80×24 page (the prompt line left free)."""
    text = plain(board_lines(t, width=WIDTH, rows=HEIGHT - 2))
    return [fit(line) for line in text.rstrip("\n").split("\n")]
