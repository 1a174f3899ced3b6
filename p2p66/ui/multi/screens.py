"""What both ways of sitting at the local table say, and the ``--plain`` way itself.

``--plain`` (``run_plain``) and the full screen (``ui.multi.terminal``) drive
a ``SeatModel``: the bots move, the story is told, and the player is
asked only on their own turn. ``q`` (or the end of input, or
Ctrl-D) leaves; ``?`` lists the legal moves with what they mean; the score
sheet (``s`` / ``score``), the tricks of the hand (``l`` / ``last``) and a
hint (``h`` / ``hint``) are one key or word away. A hand's result stays on
screen, with the sheet, until the player presses Enter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from p2p66.engine import IllegalMoveError, NotationError
from p2p66.engine.moves import describe
from p2p66.engine.table import (
    BiddingHand,
    TablePhase,
    TableView,
    ThreeHandedView,
    describe_table_move,
    parse_table_move,
)
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.ui.cards_text import card_text, cards_named, suit_name
from p2p66.ui.multi.hint import hint_line
from p2p66.ui.multi.render import call_choices, contract_text, move_text
from p2p66.ui.multi.seat import SeatModel
from p2p66.ui.multi.sheet import sheet_lines
from p2p66.ui.race import before
from p2p66.ui.render import tricks_text

LEAVE = frozenset({"q", "quit", "exit", "resign"})
SHEET_WORDS = frozenset({"s", "score", "sheet"})
TRICK_WORDS = frozenset({"l", "last", "tricks"})
HINT_WORDS = frozenset({"h", "hint"})
HELP_WORDS = frozenset({"?", "help"})
REPEAT_WORDS = frozenset({"r", "repeat", "again"})


def help_lines(table: SeatModel) -> list[str]:
    """The legal moves, each with what it does, and the keys."""
    out = ["Moves you can make now:"]
    for notation in table.legal_notation():
        code = parse_table_move(notation)
        text = describe_table_move(code) if isinstance(table.hand, BiddingHand) else describe(code)
        out.append(f"  {notation:10s} {text}")
    if len(out) == 1:
        out.append("  none: it is not your turn.")
    out.append(
        "Cards may be typed leniently (ah, 10h) or by number (1 = the first card shown); "
        "bids as 2 or bid:2. Keys on an empty line: s score sheet, l tricks of this hand, "
        "h hint, Esc closes this, q leaves."
    )
    return out


def tricks_lines(table: SeatModel) -> list[str]:
    """Every trick of this hand so far: who played which card, who won."""
    v = table.view()
    names, style = table.names, table.style
    if isinstance(v, TableView):
        plays = [
            (", ".join(f"{names[s]} {card_text(c, style)}" for s, c in t.plays), t.winner)
            for t in v.tricks
        ]
    else:
        a, b = v.players
        plays = [
            (
                f"{names[t.leader]} {card_text(t.lead, style)}, "
                f"{names[a if t.leader == b else b]} {card_text(t.follow, style)}",
                t.winner,
            )
            for t in v.public.tricks
        ]
    if not plays:
        return ["Tricks of this hand: none played yet."]
    return ["Tricks of this hand (the last one last):"] + [
        f"{n:>2}. {text}: {names[w]} won" for n, (text, w) in enumerate(plays, 1)
    ]


def score_lines(table: SeatModel, width: int = 80) -> list[str]:
    return sheet_lines(table.match, table.names, table.sides, width)


def result_lines(table: SeatModel, width: int = 80) -> list[str]:
    """A hand's (or the match's) end as it stays on screen: the result, then the sheet."""
    said = [x for x in table.hand_end if not x.startswith(("Marks:", "Game points:"))]
    return [*said, *score_lines(table, width)]


def refusal(table: SeatModel, text: str) -> str | None:
    """Why ``text`` cannot be played now (None: it can)."""
    entry = text.strip()
    if not entry:
        return None if table.default_move() is not None else "type a move (? lists them)"
    if entry.lower() in LEAVE | SHEET_WORDS | TRICK_WORDS | HINT_WORDS | HELP_WORDS | REPEAT_WORDS:
        return None
    hand = table.hand
    if hand is None or not table.my_turn:
        return "wait for your turn"
    try:
        code = table.resolve(entry)
    except NotationError as exc:
        return str(exc)
    if TABLE_NOTATION[code] not in table.legal_notation():
        try:
            hand.apply(code, seat=table.me)
        except IllegalMoveError as exc:
            return cards_named(exc.reason, table.style)
        except NotationError as exc:
            return str(exc)
    return None


def turn_sentences(table: SeatModel) -> list[str]:
    """What ``--plain`` tells on the player's turn, in whole sentences."""
    v = table.view()
    names, style = table.names, table.style
    out: list[str] = []
    if isinstance(v, TableView):
        if v.phase == TablePhase.BID:
            calls = ", ".join(
                f"{names[s]} {'passed' if not b else 'bid the moon' if b == 5 else f'bid {b}'}"
                for s, b in v.calls
            )
            out.append(f"The bidding so far: {calls}." if calls else "Nobody has called yet.")
        else:
            trumps = (
                f"trumps are {suit_name(v.trump)}"
                if v.trump is not None
                else "the first card led sets the trumps"
            )
            out.append(f"The contract: {contract_text(v, names)}; {trumps}.")
            sides = table.sides
            taken = "; ".join(
                f"{sides[side]} {_side(v.points, v, side)} points in "
                f"{tricks_text(_side(v.tricks_won, v, side))}"
                for side in range(v.options.sides)
            )
            out.append(f"Taken so far: {taken}.")
            if v.trick:
                played = ", then ".join(f"{names[s]} {card_text(c, style)}" for s, c in v.trick)
                out.append(f"On the table: {played}.")
        hand = table.shown_hand()
    else:
        out += _three_sentences(v, table)
        hand = table.shown_hand()
    listed = ", ".join(f"{i} {card_text(c, style)}" for i, c in enumerate(hand, 1))
    out.append(f"Your hand: {listed}." if hand else "You hold no cards.")
    if isinstance(v, TableView) and v.phase == TablePhase.BID:
        out.append(f"Your call: {call_choices(table.legal_notation())}.")
    elif table.default_move() is not None:
        out.append("You won the trick: press Enter to draw, or type close to close the talon.")
    else:
        legal = table.legal_notation()
        plays = ", ".join(move_text(m, style) for m in legal if m.startswith(("play:", "marry:")))
        words = [m for m in legal if not m.startswith(("play:", "marry:"))]
        extra = f", or type {' or '.join(words)}" if words else ""
        out.append(f"Your turn: play one of {plays} (by its name or number){extra}.")
    return out


def _side(values: tuple[int, ...], v: TableView, side: int) -> int:
    return sum(x for s, x in enumerate(values) if v.options.side_of(s) == side)


def _three_sentences(v: ThreeHandedView, table: SeatModel) -> list[str]:
    names, style = table.names, table.style
    p = v.public
    a, b = v.players
    talon = "closed" if p.closed else (f"{p.talon_size} cards" if p.talon_size else "empty")
    up = f", the trump card {card_text(p.trump_card, style)} face up" if p.trump_card else ""
    out = [
        f"Trumps are {suit_name(p.trump_suit)}; the talon is {talon}{up}.",
        "Card points so far: " + "; ".join(f"{names[s]} {p.points[s]}" for s in v.players) + ".",
    ]
    if p.lead is not None:
        leader = b if p.to_act == a else a
        out.append(f"On the table: {names[leader]} led {card_text(p.lead, style)}.")
    return out


def run_plain(
    table: SeatModel, read_line: Callable[[], str | None], write: Callable[[str], None]
) -> SeatModel:
    """Tell the match in sentences; read the player's moves on their turn (a local table)."""

    async def read() -> str | None:
        return read_line()

    return asyncio.run(play_plain(table, read, write))


async def play_plain(
    table: SeatModel,
    read_line: Callable[[], Awaitable[str | None]],
    write: Callable[[str], None],
    *,
    waiting: Callable[[], Awaitable[str | None]] | None = None,
) -> SeatModel:
    """``--plain`` at any table: the story as it comes, the situation and a question on
    your turn. The end of input or ``q`` leaves (returns before the match is over).
    ``waiting``: input read while it is not our turn (a network seat's ``TypeAhead``):
    ``q`` leaves at once, a look at the sheet is shown, anything else is refused."""
    told = 0
    summed: tuple[int, int] = (-1, 0)  # the story's length and the hand when last summed up

    def flush() -> None:
        nonlocal told
        for line in table.log[told:]:
            write(line)
        told = len(table.log)

    while True:
        typed = await _settle_or_typed(table, waiting)
        flush()
        if typed is not None:
            entry = typed[0]
            if entry is None or entry.strip().lower() in LEAVE:
                write("You leave the match.")
                return table
            extra = _word_lines(table, entry.strip().lower())
            for line in extra or [f"Not your turn: it is {table.waiting_for}'s turn."]:
                write(line)
            continue
        if table.over is not None:
            return table
        if table.hand_over:
            table.next_hand()
            continue
        if not table.my_turn:
            continue
        if summed != (len(table.log), id(table.hand)):  # a new turn (a draw tells nothing)
            for line in turn_sentences(table):
                write(line)
            summed = (len(table.log), id(table.hand))
        reading = asyncio.ensure_future(read_line())
        ending = asyncio.ensure_future(table.wait_over())
        await asyncio.wait({reading, ending}, return_when=asyncio.FIRST_COMPLETED)
        ending.cancel()
        if not reading.done():  # a network table ended while the question was open
            reading.cancel()
            flush()
            return table
        entry = reading.result()
        if table.over is not None:
            flush()
            return table
        if entry is None or entry.strip().lower() in LEAVE:
            write("You leave the match.")
            return table
        line = entry
        word = line.strip().lower()
        extra = _word_lines(table, word)
        if extra is not None:
            for e in extra:
                write(e)
            continue
        reason = refusal(table, line)
        if reason is not None:
            write(f"Not accepted: {reason}.")
            continue
        table.submit(line.strip())


async def _settle_or_typed(
    table: SeatModel, waiting: Callable[[], Awaitable[str | None]] | None
) -> tuple[str | None] | None:
    """Until something is to be told or asked; or ``(line,)`` typed meanwhile."""
    if waiting is None or table.my_turn or table.over is not None:
        await table.settle()
        return None
    return await before(waiting(), table.settle())


def position_lines(table: SeatModel) -> list[str]:
    """``r``: the situation again, with the question if it is our turn, else whose it is."""
    if table.hand is None or table.hand_over:
        return ["No hand is being played at the moment."]
    told = turn_sentences(table)
    return told if table.my_turn else [*told[:-1], f"It is {table.waiting_for}'s turn."]


def _word_lines(table: SeatModel, word: str, width: int = 80) -> list[str] | None:
    if word in REPEAT_WORDS:
        return position_lines(table)
    if word in HELP_WORDS:
        return help_lines(table)
    if word in SHEET_WORDS:
        return score_lines(table, width)
    if word in TRICK_WORDS:
        return tricks_lines(table)
    if word in HINT_WORDS:
        return [hint_line(table)]
    return None
