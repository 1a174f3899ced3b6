"""A match ended by a resignation says so, and ``play`` exits 7 when you were the one to leave."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from test_ui_play_command import ScriptedTable, app_with
from typer.testing import CliRunner

from p2p66.ui.launch import PlaySettings
from p2p66.ui.narrate import Voice, narrate
from p2p66.ui.table import MatchOver, Table

VOICE = Voice(0, ("Ann", "Expert Bot"))


def test_a_resignation_is_told_as_one() -> None:
    assert narrate(MatchOver(1, (2, 3), resigned=0), None, VOICE) == (
        "You resigned, so Expert Bot wins the match (you 2, Expert Bot 3).",
    )
    assert narrate(MatchOver(0, (2, 3), resigned=1), None, VOICE) == (
        "Expert Bot resigned, so you win the match (you 2, Expert Bot 3).",
    )
    assert narrate(MatchOver(0, (7, 3)), None, VOICE) == ("You win the match 7 to 3.",)


@pytest.mark.parametrize(
    ("over", "code"), [(MatchOver(1, (0, 0), 0), 7), (MatchOver(1, (3, 7)), 0)]
)
def test_play_exits_7_after_resigning(
    over: MatchOver, code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))

    @asynccontextmanager
    async def factory(settings: PlaySettings) -> AsyncIterator[Table]:
        yield ScriptedTable([over])

    result = CliRunner().invoke(app_with(factory), ["play", "--plain", "--delay", "0"])
    assert result.exit_code == code, result.output
