"""The person at a network seat (``--plain`` without ``--bot``): the view and a legal move."""

from __future__ import annotations

import asyncio
import io

import pytest

from p2p66.live.tablenet import prompt_chooser
from p2p66.session.errors import LocalProtocolError
from p2p66.session.tableplay import run_table
from tests.session.tablekit import choosers, table_peers


@pytest.mark.parametrize("preset", ["north-american", "three-handed", "cut-throat"])
def test_the_prompt_lists_the_legal_moves_and_takes_only_one(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    peers = table_peers(preset)
    run_table(peers, choosers(peers), until=lambda relay: any(p.needs_move for p in peers))
    mover = next(p for p in peers if p.needs_move)
    said: list[str] = []
    asked = prompt_chooser(said.append)
    said_moves: list[str] = []

    def legal_line() -> str:
        line = next(s for s in said if s.startswith("Your move ("))
        said_moves.extend(line.removeprefix("Your move (").removesuffix("):").split(", "))
        return said_moves[0]

    monkeypatch.setattr("sys.stdin", io.StringIO("nonsense\n"))
    with pytest.raises(LocalProtocolError, match="terminal closed"):
        asyncio.run(asked(mover))
    assert said[0].startswith("Your hand: ")
    assert any("'nonsense' is not a legal move" in s for s in said)
    move = legal_line()
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{move}\n"))
    code = asyncio.run(asked(mover))
    mover.play(code)  # the peer takes it (an illegal move would raise) and signs it
    assert mover.data_to_send()
