"""The two ways to sit at the local table: ``--plain`` lines and the prompt-toolkit screen.

Both drive a ``LocalMultiTable``: the bots move, the story is told, and the
player is asked only on their own turn. ``q`` (or the end of input, or
Ctrl-D) leaves; ``?`` lists the legal moves with what they mean.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.document import Document
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.validation import ValidationError, Validator

from p2p66.engine import IllegalMoveError, NotationError
from p2p66.engine.moves import describe
from p2p66.engine.table import BiddingHand, describe_table_move, parse_table_move
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.multi.render import board, prompt_line, summary

LEAVE = frozenset({"q", "quit", "exit"})


def help_lines(table: LocalMultiTable) -> list[str]:
    """The legal moves, each with what it does."""
    out = ["Moves you can make now:"]
    for notation in table.legal_notation():
        code = parse_table_move(notation)
        text = describe_table_move(code) if isinstance(table.hand, BiddingHand) else describe(code)
        out.append(f"  {notation:10s} {text}")
    out.append(
        "Cards may be typed leniently (ah, 10h) or by number (1 = the first card shown); "
        "bids as bid:2 or 2; q leaves."
    )
    return out


def refusal(table: LocalMultiTable, text: str) -> str | None:
    """Why ``text`` cannot be played now (None: it can)."""
    entry = text.strip()
    if not entry:
        return None if table.default_move() is not None else "type a move (? lists them)"
    if entry.lower() in LEAVE or entry == "?":
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
            hand.apply(code, seat=0)
        except IllegalMoveError as exc:
            return exc.reason
        except NotationError as exc:
            return str(exc)
    return None


def run_plain(
    table: LocalMultiTable, read_line: Callable[[], str | None], write: Callable[[str], None]
) -> LocalMultiTable:
    """Tell the match as lines; read the player's moves on their turn."""
    told = 0
    summed = -1  # the log length when the situation was last summed up

    def flush() -> None:
        nonlocal told
        for line in table.log[told:]:
            write(line)
        told = len(table.log)

    while True:
        table.play_bots()
        flush()
        if table.over is not None:
            return table
        if table.hand_over:
            table.start_hand()
            continue
        if summed != len(table.log):
            for told_line in summary(table):
                write(told_line)
            summed = len(table.log)
        write(prompt_line(table))
        line = read_line()
        if line is None or line.strip().lower() in LEAVE:
            write("You leave the match.")
            return table
        if line.strip() in ("?", "help"):
            for h in help_lines(table):
                write(h)
            continue
        reason = refusal(table, line)
        if reason is not None:
            write(f"Not accepted: {reason}.")
            continue
        table.submit(line.strip())


class _Check(Validator):
    def __init__(self, table: LocalMultiTable) -> None:
        self.table = table

    def validate(self, document: Document) -> None:
        if not self.table.my_turn:
            return
        reason = refusal(self.table, document.text)
        if reason is not None:
            raise ValidationError(len(document.text), f"{reason} (Ctrl-U clears the line)")


def run_terminal(
    table: LocalMultiTable, *, input: Input | None = None, output: Output | None = None
) -> LocalMultiTable:
    """The full screen: the board and the story above the prompt, redrawn every move."""
    session: PromptSession[str] = PromptSession(
        validator=_Check(table),
        validate_while_typing=False,
        erase_when_done=True,
        input=input,
        output=output,
    )
    notes: list[str] = []
    while True:
        table.play_bots()
        if table.over is not None:
            for line in board(table):
                session.output.write(line + "\n")
            session.output.flush()
            return table
        message = "\n".join([*board(table), *notes[-3:]]) + "\n> "
        notes = []
        try:
            text = session.prompt(message)
        except (EOFError, KeyboardInterrupt):
            table.say("You leave the match.")
            return table
        entry = text.strip()
        if entry.lower() in LEAVE:
            table.say("You leave the match.")
            return table
        if table.hand_over:
            table.start_hand()
        elif entry in ("?", "help"):
            notes = help_lines(table)
        elif entry or table.default_move() is not None:
            table.submit(entry)
