"""``--plain`` never asks in silence: every read follows a question (a draw tells no story)."""

from __future__ import annotations

import asyncio

import pytest
from uikit import table_move

from p2p66.engine.table import TABLE_PRESETS, table_options
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.multi.screens import play_plain, run_plain
from p2p66.ui.multi.seat import MatchEnd

QUESTIONS = ("Your call:", "Your turn:", "You won the trick:")


@pytest.mark.parametrize("name", list(TABLE_PRESETS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_move_is_asked_for_with_the_situation(name: str, seed: int) -> None:
    table = LocalMultiTable(
        table_options(name, {"match_target": 5}), "expert", seed, TextStyle(color=False)
    )
    out: list[str] = []
    asked_after: list[str] = []
    told = [0]

    def read() -> str:
        asked_after.append(out[-1] if len(out) > told[0] else "(nothing new)")
        told[0] = len(out)
        return table_move(table)

    run_plain(table, read, out.append)
    assert table.over is not None
    assert asked_after
    silent = [line for line in asked_after if not line.startswith(QUESTIONS)]
    assert not silent, silent


def test_a_table_that_ends_while_the_question_is_open_is_told_at_once() -> None:
    """A network seat's match may end (a seat lost) while its person thinks."""
    table = LocalMultiTable(
        table_options("cut-throat", {"match_target": 5}), "expert", 1, TextStyle(color=False)
    )
    out: list[str] = []

    async def never() -> str | None:
        await asyncio.Event().wait()
        return None

    async def main() -> None:
        def end() -> None:
            table.over = MatchEnd(None, "The match ended early, by East (seat 2): gone.")
            table.say(table.over.text)
            table.changed()

        asyncio.get_running_loop().call_later(0.05, end)
        await asyncio.wait_for(play_plain(table, never, out.append), 10)

    asyncio.run(main())
    assert out[-1] == "The match ended early, by East (seat 2): gone."
