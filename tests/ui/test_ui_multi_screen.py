"""The table games' real prompt-toolkit screen at 80×24 and 60×20, read back from ``pyte``.

For each preset: what is on screen during the bidding, in the middle of a
trick (the cards round the table with who played each) and when a hand
ends (the result and the score sheet, kept until Enter), plus the keys.
"""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from uikit import ASCII, choose
from vt import Terminal, until

from p2p66.bots.table.expert import TableExpert
from p2p66.engine.cards import Card
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.engine.table import TABLE_PRESETS, TablePhase, TableView, table_options
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.ui.cards_text import TextStyle, card_text
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.multi.terminal import MultiTerminal

SIZES = [(80, 24), (60, 20)]
SYMBOLS = TextStyle(color=False)


def my_move(table: LocalMultiTable) -> str:
    """What a sensible player types: the expert's choice, in the canonical notation."""
    v = table.view()
    if isinstance(v, TableView):
        return TABLE_NOTATION[TableExpert().choose(v)]
    assert v.hand is not None
    return MOVE_NOTATION[choose(v.hand)]


def written(card: Card) -> str:
    return card_text(card, SYMBOLS)


def shows(term: Terminal, text: str) -> bool:
    return any(text in row for row in term.rows())


async def turn_on_screen(table: LocalMultiTable, term: Terminal) -> None:
    await until(lambda: table.my_turn or table.hand_over or table.over is not None, "a turn")
    words = ("Your call", "Your turn", "You won the trick", "Hand over", "the match")
    await until(lambda: any(shows(term, w) for w in words), "the turn line")
    await asyncio.sleep(0.05)  # the last redraw of the same state


async def play_once(table: LocalMultiTable, pipe: PipeInput, term: Terminal) -> None:
    before = table.hand
    pipe.send_text("\x15" + my_move(table) + "\r")
    await until(lambda: table.hand is not before, "the move to be played")
    await turn_on_screen(table, term)


class Shots:
    """The screens the test looks at, taken as the match goes."""

    def __init__(self) -> None:
        self.bidding: list[str] = []
        self.partial: list[str] = []  # your turn with the others' cards on the table
        self.partial_view: TableView | None = None
        self.won: list[str] = []  # a whole trick round the table, its winner marked
        self.won_view: TableView | None = None
        self.first_turn: list[str] = []
        self.hand_end: list[str] = []
        self.next_hand: list[str] = []
        self.sheet: list[str] = []
        self.tricks: list[str] = []


async def watch(
    name: str, columns: int, rows: int, style: TextStyle = SYMBOLS
) -> tuple[Shots, LocalMultiTable]:
    term = Terminal(columns, rows)
    shots = Shots()
    with create_pipe_input() as pipe:
        term.keyboard = pipe
        table = LocalMultiTable(table_options(name, {"match_target": 3}), "expert", 5, style)
        ui = MultiTerminal(table, style, input=pipe, output=term.output())
        run = asyncio.create_task(ui.run())
        await turn_on_screen(table, term)
        shots.first_turn = term.rows()
        while not table.hand_over:
            v = table.view()
            if isinstance(v, TableView) and table.my_turn:
                if v.phase == TablePhase.BID and not shots.bidding:
                    shots.bidding = term.rows()
                elif v.phase != TablePhase.BID and len(v.trick) >= 2 and not shots.partial:
                    shots.partial, shots.partial_view = term.rows(), v
                elif v.phase != TablePhase.BID and not v.trick and v.tricks and not shots.won:
                    shots.won, shots.won_view = term.rows(), v
            if table.my_turn and not shots.tricks and table.view().hand is not None:
                pipe.send_text("l")  # the tricks of the hand, one key away
                await until(lambda: shows(term, "Tricks of this hand"), "the tricks")
                shots.tricks = term.rows()
                pipe.send_text("\x1b")
                await until(lambda: not shows(term, "Tricks of this hand"), "Esc to close")
            await play_once(table, pipe, term)
        await until(lambda: shows(term, "Score sheet"), "the sheet at the hand's end")
        await asyncio.sleep(0.3)  # nothing takes it away but a key
        shots.hand_end = term.rows()
        if table.over is None:
            pipe.send_text("\r")
            await until(lambda: not shows(term, "Score sheet"), "the next hand")
            await turn_on_screen(table, term)
            shots.next_hand = term.rows()
            pipe.send_text("\x15s")
            await until(lambda: shows(term, "Score sheet"), "the sheet on s")
            shots.sheet = term.rows()
        pipe.send_text("\x15q\r")
        await asyncio.wait_for(run, 10)
    return shots, table


def _common(shot: list[str], columns: int) -> None:
    """Every screen: the prompt, the status bar at the bottom, nothing cut or wrapped off."""
    assert any(row.startswith(">") for row in shot), shot
    assert "local table" in shot[-1] or "│" in shot[-1], shot
    assert all(len(row) <= columns for row in shot)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("columns", "rows"), SIZES)
@pytest.mark.parametrize("name", [n for n in TABLE_PRESETS if n != "three-handed"])
def test_a_bidding_game_on_screen(name: str, columns: int, rows: int) -> None:
    shots, table = asyncio.run(watch(name, columns, rows))
    names = table.names
    bidding = shots.bidding
    assert bidding, "the player was never asked to call"
    _common(bidding, columns)
    text = "\n".join(bidding)
    assert "Bidding:" in text and "High bid:" in text and " Your hand: 1:" in text
    assert any(r.startswith(" Your call: pass") for r in bidding), bidding
    assert "Marks: " in text and "marks to 3" in text

    v = shots.partial_view
    assert v is not None, "never a trick with the others' cards on it at the player's turn"
    _common(shots.partial, columns)
    partial = "\n".join(shots.partial)
    assert "Contract:" in partial and "Points:" in partial
    for seat, card in v.trick:  # each card next to who played it, the leader marked
        label = f"{names[seat]} ({v.hand_sizes[seat]}): {written(card)}"
        assert label in partial, (label, shots.partial)
    assert f"{names[v.trick[0][0]]} ({v.hand_sizes[v.trick[0][0]]}): " in partial
    assert "led" in partial and "You: ·" in partial
    assert any(r.startswith(" Your turn:") for r in shots.partial)

    w = shots.won_view
    if w is not None:  # the player won a trick and leads: the whole trick is still shown
        won = "\n".join(shots.won)
        last = w.tricks[-1]
        assert f"won by {names[last.winner]}" in won
        assert len(last.plays) == table.options.players
        for seat, card in last.plays:
            assert f"{written(card)}" in won and names[seat] in won

    end = "\n".join(shots.hand_end)
    _common(shots.hand_end, columns)
    assert "Score sheet" in end and "contract" in end and "result" in end
    assert any(w in end for w in ("made it", "was set", "passed", "moon"))
    assert any(r.lstrip().startswith("1 ") for r in shots.hand_end)  # hand 1 on the sheet
    assert "Hand over: Enter" in end or "the match" in end
    if shots.next_hand:
        assert not any("Score sheet" in r for r in shots.next_hand)
        assert any("Score sheet" in r for r in shots.sheet)
    assert any("Tricks of this hand" in r for r in shots.tricks)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("columns", "rows"), SIZES)
def test_three_handed_on_screen(columns: int, rows: int) -> None:
    shots, _table = asyncio.run(watch("three-handed", columns, rows))
    first = "\n".join(shots.first_turn)
    _common(shots.first_turn, columns)
    assert "Game points:" in first and "Playing:" in first
    assert "sits out" in first
    end = "\n".join(shots.hand_end)
    _common(shots.hand_end, columns)
    assert "Score sheet" in end and "won by" in end
    assert any(r.lstrip().startswith("1 ") for r in shots.hand_end)


@pytest.mark.timeout(60)
def test_h_shows_a_hint_and_a_move_clears_it() -> None:
    term = Terminal(80, 24)

    async def main() -> tuple[list[str], list[str]]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            options = table_options("north-american", {"match_target": 3})
            table = LocalMultiTable(options, "expert", 5, ASCII)
            ui = MultiTerminal(table, ASCII, input=pipe, output=term.output())
            run = asyncio.create_task(ui.run())
            await turn_on_screen(table, term)
            pipe.send_text("h")
            await until(lambda: shows(term, "Hint: ") and not shows(term, "thinking"), "a hint")
            hinted = term.rows()
            await play_once(table, pipe, term)
            after = term.rows()
            pipe.send_text("\x15q\r")
            await asyncio.wait_for(run, 10)
        return hinted, after

    hinted, after = asyncio.run(main())
    line = next(r for r in hinted if "Hint: " in r)
    assert line.strip().startswith(("Hint: pass", "Hint: bid", "Hint: shoot"))
    assert not any("Hint: " in r for r in after)


@pytest.mark.timeout(120)
def test_a_whole_match_on_the_screen_ends_with_the_winner_until_enter() -> None:
    term = Terminal(80, 24)

    async def main() -> tuple[list[str], LocalMultiTable, bool]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            table = LocalMultiTable(
                table_options("cut-throat", {"match_target": 2}), "expert", 3, ASCII
            )
            ui = MultiTerminal(table, ASCII, input=pipe, output=term.output())
            run = asyncio.create_task(ui.run())
            await turn_on_screen(table, term)
            while table.over is None:
                if table.hand_over:
                    before = table.hand
                    pipe.send_text("\r")
                    await until(lambda b=before: table.hand is not b, "the next deal")
                    await turn_on_screen(table, term)
                else:
                    await play_once(table, pipe, term)
            await until(lambda: shows(term, "Press Enter to leave"), "the end of the match")
            await asyncio.sleep(0.3)
            still = not run.done()  # the result waits for the player
            end = term.rows()
            pipe.send_text("\r")
            await asyncio.wait_for(run, 10)
        return end, table, still

    end, table, still = asyncio.run(main())
    assert still and table.over is not None
    text = "\n".join(end)
    assert table.over.text in text.replace("\n", " ") or "the match" in text
    assert "Score sheet" in text


def _colours_of_suits(term: Terminal, row: int) -> dict[str, set[str]]:
    """The foreground colours the suit symbols of screen row ``row`` are drawn in."""
    line = term.screen.buffer[row]
    out: dict[str, set[str]] = {}
    for x in range(term.screen.columns):
        char = line[x]
        if char.data in "♣♦♥♠":
            out.setdefault(char.data, set()).add(char.fg)
    return out


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("style", "expected"),
    [
        (TextStyle(), {"♥": "red", "♦": "red", "♠": "default", "♣": "default"}),
        (
            TextStyle(four_colour=True),
            {"♥": "red", "♦": "blue", "♠": "default", "♣": "green"},
        ),
        (TextStyle(color=False), {"♥": "default", "♦": "default", "♠": "default", "♣": "default"}),
    ],
)
def test_the_hand_is_coloured_as_on_the_two_player_board(
    style: TextStyle, expected: dict[str, str]
) -> None:
    term = Terminal(80, 24)

    async def main() -> dict[str, set[str]]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            options = table_options("cut-throat", {"match_target": 3})
            table = LocalMultiTable(options, "expert", 1, style)
            ui = MultiTerminal(table, style, input=pipe, output=term.output())
            run = asyncio.create_task(ui.run())
            await turn_on_screen(table, term)
            row = next(i for i, r in enumerate(term.rows()) if r.startswith(" Your hand:"))
            colours = _colours_of_suits(term, row)
            pipe.send_text("\x15q\r")
            await asyncio.wait_for(run, 10)
        return colours

    colours = asyncio.run(main())
    assert colours, "no suit on the hand's row"
    for suit, seen in colours.items():
        assert seen == {expected[suit]}, (suit, seen)


@pytest.mark.timeout(60)
def test_ascii_keeps_every_character_on_screen_ascii() -> None:
    shots, _table = asyncio.run(watch("three-handed", 60, 20, ASCII))
    for shot in (shots.first_turn, shots.hand_end):
        assert all(row.isascii() for row in shot), shot


@pytest.mark.timeout(60)
def test_h_when_it_is_not_your_turn_says_so_at_once() -> None:
    term = Terminal(80, 24)

    async def main() -> list[str]:
        with create_pipe_input() as pipe:
            term.keyboard = pipe
            options = table_options("three-handed", {"match_target": 3})
            table = LocalMultiTable(options, "expert", 8, ASCII)  # seed 8: you deal, sit out
            assert table.match.dealer == 0
            ui = MultiTerminal(table, ASCII, delay=0.2, input=pipe, output=term.output())
            run = asyncio.create_task(ui.run())
            await until(lambda: shows(term, "to play..."), "the bots playing")
            assert not table.my_turn
            pipe.send_text("h")
            await until(lambda: shows(term, "No hint: it is "), "the answer")
            moved = table.hand
            await until(lambda: table.hand is not moved, "a bot's next card")
            await asyncio.sleep(0.1)
            assert shows(term, "No hint: it is ")  # it stays while they play on
            shot = term.rows()
            pipe.send_text("\x15q\r")
            await asyncio.wait_for(run, 10)
        return shot

    shot = asyncio.run(main())
    assert not any("thinking" in r for r in shot)
