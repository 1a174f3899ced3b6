"""A person at a network seat plays on the screens of ``play --preset``, to the end.

A real prompt-toolkit session (keys through a pipe, drawn into a fixed-size
``pyte`` terminal) at the host's seat with bots on in-memory spokes, and at
a joiner's seat over real loopback TCP; ``--plain`` lines at a seat; the
status bar with every other seat's link; the end told to this person.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from netseatkit import Seated, my_move, with_person
from prompt_toolkit.input import create_pipe_input
from vt import Terminal, until

from p2p66.engine.table import TablePhase, TableView
from p2p66.live.linkstate import LinkState, LinkStatus
from p2p66.live.netseat import NetSeatTable
from p2p66.live.tablenet import TableEnd
from p2p66.replay.fileio import read_replay
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_records
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.render import status_text
from p2p66.ui.multi.screens import play_plain
from p2p66.ui.multi.terminal import MultiTerminal

SYMBOLS = TextStyle(color=False)


def _shows(term: Terminal, text: str) -> bool:
    """``text`` on screen, if need be wrapped over rows."""
    return text in " ".join(row.strip() for row in term.rows())


class Shots:
    def __init__(self) -> None:
        self.trick: list[str] = []  # your turn with cards of others on the table
        self.trick_view: TableView | None = None
        self.first: list[str] = []  # the first turn
        self.end: list[str] = []


async def _play_on_screen(s: Seated, term: Terminal, shots: Shots) -> None:
    seat = s.seat
    with create_pipe_input() as pipe:
        term.keyboard = pipe
        ui = asyncio.create_task(
            MultiTerminal(seat, SYMBOLS, input=pipe, output=term.output()).run()
        )
        while seat.over is None:
            await until(lambda: seat.my_turn or seat.over is not None, "a turn or the end", 60)
            if seat.over is not None:
                break
            await until(lambda: _shows(term, "Your "), "the turn on screen")
            await asyncio.sleep(0.05)  # the last redraw of the same state
            shots.first = shots.first or term.rows()
            v = seat.view()
            playing = isinstance(v, TableView) and v.phase != TablePhase.BID
            if playing and len(v.trick) >= 2 and not shots.trick:
                shots.trick, shots.trick_view = term.rows(), v
            before = seat.version
            pipe.send_text("\x15" + my_move(seat) + "\r")
            await until(lambda v=before: seat.version > v, "the move to go out", 60)
        await until(lambda: _shows(term, "Press Enter to leave"), "the end on screen", 60)
        shots.end = term.rows()
        pipe.send_text("\r")
        await asyncio.wait_for(ui, 10)


def _fits(shot: list[str], columns: int) -> None:
    assert any(row.startswith(">") for row in shot), shot
    assert all(len(row) <= columns for row in shot), shot


def _whole_valid_replay(end: TableEnd, folder: Path) -> None:
    assert end.fault is None, end.fault
    records = read_replay(folder / f"p{end.seat}.p66").records
    assert tuple(records) == end.records
    assert verify_records(records).report.status is Status.VALID


@pytest.mark.timeout(240)
@pytest.mark.parametrize("preset", ["three-handed", "north-american", "cut-throat"])
def test_the_host_plays_its_seat_on_the_full_screen_to_the_end(preset: str, tmp_path: Path) -> None:
    term = Terminal(80, 24)
    shots = Shots()

    async def body(s: Seated) -> None:
        await _play_on_screen(s, term, shots)

    end = asyncio.run(with_person(preset, 0, SYMBOLS, tmp_path, body))
    _whole_valid_replay(end, tmp_path)
    _fits(shots.end, 80)
    text = "\n".join(shots.end)
    assert "the match" in text and "Press Enter to leave" in text
    status = shots.end[-1]
    assert "match over" in status, shots.end


@pytest.mark.timeout(240)
def test_a_joiner_over_tcp_sees_the_table_from_its_own_seat_at_60_columns(tmp_path: Path) -> None:
    term = Terminal(60, 20)
    shots = Shots()

    async def body(s: Seated) -> None:
        await _play_on_screen(s, term, shots)

    # to 2 marks one hand could end it (a march, a euchre, a loner) with seat 1 never third or
    # fourth to a trick (it led them, or sat out its partner's loner): CI saw that; to 8 marks
    # several hands are dealt and seat 1 is asked behind two cards in one of them
    end = asyncio.run(with_person("north-american", 1, SYMBOLS, tmp_path, body, target=8))
    _whole_valid_replay(end, tmp_path)
    assert shots.trick, "never asked with cards on the table"
    _fits(shots.trick, 60)
    rows = shots.trick
    # seat 1's table: p2 (next clockwise) on the left, p0 on the right, p3 on top
    side = next(r for r in rows if "p2 (" in r and "p0 (" in r)
    assert side.index("p2 (") < side.index("p0 ("), rows
    top = next(i for i, r in enumerate(rows) if r.strip().startswith("p3 ("))
    bottom = next(i for i, r in enumerate(rows) if r.strip().startswith("You:"))
    assert top < rows.index(side) < bottom, rows
    assert "You+p3" in "\n".join(rows), rows  # our partnership, by name
    status = shots.first[-1]
    assert "all linked" in status or "p0 linked" in status, shots.first  # the others' links
    _fits(shots.first, 60)


@pytest.mark.timeout(240)
def test_plain_lines_at_a_network_seat_then_the_links_and_the_verdicts(tmp_path: Path) -> None:
    said: list[str] = []
    moves: list[str] = []

    async def body(s: Seated) -> None:
        async def read() -> str | None:
            await asyncio.sleep(0)
            moves.append(my_move(s.seat))
            return moves[-1]

        await play_plain(s.seat, read, said.append)

    end = asyncio.run(with_person("cut-throat", 0, SYMBOLS, tmp_path, body))
    _whole_valid_replay(end, tmp_path)
    text = "\n".join(said)
    assert "Your call:" in text and "Your turn: play one of" in text
    assert "Marks: " in text and " the match (" in text
    assert moves


def _finished_seat(tmp_path: Path) -> NetSeatTable:
    async def body(s: Seated) -> None:
        async def read() -> str | None:
            await asyncio.sleep(0)
            return my_move(s.seat)

        await play_plain(s.seat, read, lambda _line: None)
        box.append(s.seat)

    box: list[NetSeatTable] = []
    asyncio.run(with_person("north-american", 0, SYMBOLS, tmp_path, body))
    return box[0]


@pytest.mark.timeout(240)
def test_the_status_bar_shows_a_link_gone_quiet_or_lost_and_the_end_names_the_culprit(
    tmp_path: Path,
) -> None:
    seat = _finished_seat(tmp_path)
    assert "links closed" in status_text(seat, 80)  # over for this seat: nothing more comes
    outcome, seat.outcome = seat.outcome, None  # as while the match went on
    seat.links = lambda: (
        LinkState(1, LinkStatus.QUIET, 12.4),
        LinkState(2, LinkStatus.LINKED),
        LinkState(3, LinkStatus.LOST),
    )
    wide = status_text(seat, 80)
    assert "p1 quiet 12 s, p2 linked, p3 lost" in wide, wide
    narrow = status_text(seat, 60)
    assert len(narrow) <= 60 and "p1 quiet 12 s" in narrow and "p3 lost" in narrow, narrow
    assert "p2 linked" not in narrow  # the compact form keeps only what is wrong
    seat.links = lambda: (LinkState(1, LinkStatus.RECONNECTING),)
    assert "p1 reconnecting" in status_text(seat, 80)

    seat.outcome = outcome
    played = seat.verdict()
    assert played.startswith(("You and p2 won the match", "You lost the match: p1+p3 won"))
    records = seat.outcome.records if seat.outcome is not None else ()
    lost = TableEnd(0, records, "v", fault="abandoned by seat 3: gone", culprit=3, lost=True)
    seat.ended(lost)
    assert seat.verdict() == "The match ended early, by p3 (seat 3): abandoned by seat 3: gone."
    cheat = TableEnd(0, records, "v", fault="a wrong key", culprit=1, cheat=True)
    seat.ended(cheat)
    assert seat.verdict().startswith("The match was stopped: p1 (seat 1) cheated")
    mine = TableEnd(0, records, "v", fault="the terminal closed", culprit=0)
    seat.ended(mine)
    assert seat.verdict() == "The match ended early, on this side: the terminal closed."
    disk = TableEnd(0, records, "v", fault="disk full", replay_failed=True)
    seat.ended(disk)
    assert "your replay could not be written (disk full)" in seat.verdict()
