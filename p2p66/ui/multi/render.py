"""The board of the games for three and four players as lines of text (at most 80 columns).

One function per kind of view: ``bidding_board`` (north-american, south-bend,
cut-throat) and ``three_board``; ``board`` picks. The log's last lines fill
what is left of a 24-line screen above the prompt.
"""

from __future__ import annotations

import textwrap

from p2p66.engine.cards import Card
from p2p66.engine.table import (
    TablePhase,
    TableView,
    ThreeHandedView,
    describe_table_move,
    table_label,
)
from p2p66.ui.cards_text import TextStyle, card_text, display_order, suit_name
from p2p66.ui.multi.local import LocalMultiTable, side_names

WIDTH = 80
HEIGHT = 24


def fit(line: str) -> str:
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def cards(cs: tuple[Card, ...] | list[Card], style: TextStyle) -> str:
    return " ".join(card_text(c, style) for c in cs) or "none"


def numbered(cs: tuple[Card, ...], style: TextStyle) -> str:
    """The hand with the numbers that pick a card: ``1:A♠ 2:10♠``."""
    return " ".join(f"{i}:{card_text(c, style)}" for i, c in enumerate(cs, 1)) or "none"


def call_text(names: tuple[str, ...], seat: int, bid: int) -> str:
    return f"{names[seat]} {'pass' if not bid else ('moon' if bid == 5 else bid)}"


def bidding_board(v: TableView, t: LocalMultiTable) -> list[str]:
    names, style = t.names, t.style
    opts = v.options
    sides = side_names(opts.players)
    head = (
        f"{table_label(opts)} · hand {t.match.hand_number} · dealer {names[v.dealer]} · "
        f"to {opts.match_target} marks"
    )
    marks = "Marks: " + "  ".join(f"{n} {s}" for n, s in zip(sides, v.scores, strict=True))
    lines = [head, marks]
    calls = ", ".join(call_text(names, s, b) for s, b in v.calls) or "-"
    lines.append(f"Bidding: {calls}")
    if v.bidder is not None:
        side = opts.side_of(v.bidder)
        need = "all six tricks" if v.moon else f"{33 * v.bid} points"
        trump = suit_name(v.trump) if v.trump is not None else "set by the first card led"
        got = _side_points(v, side)
        status = "made" if (not v.moon and got >= 33 * v.bid) else "so far"
        lines.append(
            f"Contract: {names[v.bidder]} {v.bid} ({need}); {sides[side]} {got} {status}; "
            f"trumps {trump}"
        )
        won = "  ".join(
            f"{sides[s]} {_side_tricks(v, s)} tr/{_side_points(v, s)} pts"
            for s in range(opts.sides)
        )
        lines.append(f"Tricks: {won}")
    else:
        lines.append(f"Your call: bids go from {v.bid + 1} up; 1 = 33 points.")
        lines.append("")
    others = ", ".join(
        f"{names[s]} {n}" + (" (laid down)" if s == v.out_seat else "")
        for s, n in enumerate(v.hand_sizes)
        if s != v.seat
    )
    widow = ""
    if opts.widow_size:
        widow = (
            f"; widow {cards(v.widow, style)} to {names[v.widow_taker]}"
            if v.widow_taker is not None
            else "; widow face down"
        )
    lines.append(f"Cards left: {others}{widow}")
    trick = ", ".join(f"{names[s]} {card_text(c, style)}" for s, c in v.trick)
    lines.append(f"Trick: {trick or '-'}")
    if v.tricks:
        last = v.tricks[-1]
        played = ", ".join(f"{names[s]} {card_text(c, style)}" for s, c in last.plays)
        lines.append(f"Last trick ({names[last.winner]} won): {played}")
    else:
        lines.append("Last trick: -")
    if v.marriages:
        lines.append(
            "Marriages: "
            + ", ".join(f"{names[m.seat]} {suit_name(m.suit)} {m.points}" for m in v.marriages)
        )
    order = v.trump if v.trump is not None else 0
    lines.append(f"Your hand: {numbered(display_order(v.hand, order), style)}")
    return lines


def _side_points(v: TableView, side: int) -> int:
    return sum(p for s, p in enumerate(v.points) if v.options.side_of(s) == side)


def _side_tricks(v: TableView, side: int) -> int:
    return sum(n for s, n in enumerate(v.tricks_won) if v.options.side_of(s) == side)


def three_board(v: ThreeHandedView, t: LocalMultiTable) -> list[str]:
    names, style = t.names, t.style
    p = v.public
    head = (
        f"{table_label(v.options)} · hand {t.match.hand_number} · dealer {names[v.dealer]} "
        f"(sits out) · to {v.options.match_target}"
    )
    scores = "Game points: " + "  ".join(f"{names[s]} {v.scores[s]}" for s in range(3))
    face_up = card_text(p.trump_card, style) if p.trump_card is not None else "taken"
    talon = "closed" if p.closed else (f"{p.talon_size} cards" if p.talon_size else "empty")
    a, b = v.players
    lines = [
        head,
        scores,
        f"Playing: {names[a]} and {names[b]}; trumps {suit_name(p.trump_suit)}, trump card "
        f"{face_up}, talon {talon}",
        "Points: "
        + "  ".join(
            f"{names[s]} {p.points[s]} pts"
            + (f" (+{p.held[s]} held)" if p.held[s] else "")
            + f", {sum(1 for x in p.tricks if x.winner == s)} tricks"
            for s in v.players
        ),
    ]
    lead = card_text(p.lead, style) if p.lead is not None else "-"
    led_by = f" led by {names[3 - p.to_act - v.dealer]}" if p.lead else ""
    lines.append(f"Trick: {lead}{led_by}")
    if p.tricks:
        last = p.tricks[-1]
        lines.append(
            f"Last trick ({names[last.winner]} won): {names[last.leader]} "
            f"{card_text(last.lead, style)}, {card_text(last.follow, style)}"
        )
    for s in v.players:
        if s != v.seat and p.shown[s]:
            lines.append(f"{names[s]} is known to hold {cards(p.shown[s], style)}")
    if v.hand is None:
        lines.append("You sit out this hand and see only what is played.")
    else:
        lines.append(f"Your hand: {numbered(display_order(v.hand.hand, p.trump_suit), style)}")
    return lines


def board(t: LocalMultiTable) -> list[str]:
    """Everything on screen above the prompt: the board, then as much log as fits."""
    v = t.view()
    top = bidding_board(v, t) if isinstance(v, TableView) else three_board(v, t)
    top = [fit(x) for x in top]
    prompt = [fit(prompt_line(t))]
    room = HEIGHT - 2 - len(top) - len(prompt)  # the input line and the status line
    wrapped = [part for x in t.log[-room:] for part in textwrap.wrap(x, WIDTH) or [""]]
    log = wrapped[-room:] if room > 0 else []
    return [*top, "─" * WIDTH, *log, *prompt][: HEIGHT - 1]


def summary(t: LocalMultiTable) -> list[str]:
    """The few lines ``--plain`` tells on the player's turn: contract, trick, hand."""
    v = t.view()
    top = bidding_board(v, t) if isinstance(v, TableView) else three_board(v, t)
    keep = ("Contract:", "Playing:", "Points:", "Trick:", "Your hand:", "Marks:", "Game points:")
    return [fit(x) for x in top if x.startswith(keep)]


def prompt_line(t: LocalMultiTable) -> str:
    if t.over is not None:
        return t.over.text
    if t.hand_over:
        return "The hand is over: press Enter for the next one."
    if not t.my_turn:
        return f"{t.names[t.to_act]} to play."
    legal = t.legal_notation()
    v = t.view()
    if isinstance(v, TableView) and v.phase == TablePhase.BID:
        return "Your call: " + ", ".join(legal) + f" ({describe_table_move(52)} or a bid)"
    return "Your turn: " + " ".join(legal)
