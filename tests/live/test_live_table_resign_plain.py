"""``--plain`` at a network seat reads its input all the time: ``q`` while waiting leaves.

The person at seat 1 (a joiner over loopback TCP, bots elsewhere) types
``q`` while another seat is to act: the seat resigns at once with a signed
record (not at its next turn), the match ends resigned by it and its replay
verifies as such. On a terminal, a move typed out of turn is answered
"Not your turn"; piped lines wait for the turn, in order.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from netseatkit import Seated, my_move, with_person

from p2p66.live.tableleave import Leaving
from p2p66.replay.report import Ending, Status
from p2p66.replay.verify import verify_file
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.screens import play_plain
from p2p66.ui.multi.typeahead import TypeAhead

HUMAN = 1


class Typing:
    """The person: a move on its turn; while another seat acts (after its own first move),
    ``early`` (if any) and then ``q``."""

    def __init__(self, seated: Seated, early: str | None) -> None:
        self.seat = seated.seat
        self.early = early
        self.moves: list[str] = []
        self.quit_waiting_for: str | None = None

    async def readline(self) -> str | None:
        s = self.seat
        while True:
            if s.my_turn:
                self.moves.append(my_move(s))
                return self.moves[-1]
            if self.moves and s.over is None and not s.hand_over and s.to_act != s.me:
                if self.early is not None:
                    early, self.early = self.early, None
                    return early
                self.quit_waiting_for = s.waiting_for
                return "q"
            await asyncio.sleep(0.01)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("interactive", [False, True])
def test_q_typed_while_another_seat_acts_resigns_at_once(tmp_path: Path, interactive: bool) -> None:
    said: list[str] = []
    leaving = Leaving()
    typing: list[Typing] = []

    async def body(s: Seated) -> None:
        person = Typing(s, "kq" if interactive else None)
        typing.append(person)
        typed = TypeAhead(person, interactive=interactive)
        await play_plain(s.seat, typed.on_turn, said.append, waiting=typed.while_waiting)
        assert s.seat.over is None  # it left while the match went on
        leaving.leave("left the match")  # as table_cmd does when the screen returns

    end = asyncio.run(
        with_person("three-handed", HUMAN, TextStyle(), tmp_path, body, target=4, leaving=leaving)
    )
    person = typing[0]
    assert person.quit_waiting_for is not None and person.moves
    assert end.resigned == HUMAN and end.left, end.fault
    assert said[-1] == "You leave the match.", said[-5:]
    if interactive:
        assert any(line.startswith("Not your turn: it is ") for line in said), said
    report = verify_file(tmp_path / f"p{HUMAN}.p66").report
    assert report.status is Status.VALID and report.ending is Ending.RESIGNED, report.headline()
    assert "resigned (left the match)" in report.headline()
