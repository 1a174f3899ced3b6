"""A table joiner's resume state: private, checked on load, and refused when it is not ours."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import msgpack
import pytest
from dropkit import MemoryTable

from p2p66.cli.exits import EXIT_USAGE
from p2p66.cli.table_cmd import TablePlayer, join_table_resume
from p2p66.live.resume import ResumeError, resume_path
from p2p66.live.tableresume import ROLE, TableMatch, fresh_secrets, stored_secrets, table_match_kept


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _match(tmp_path: Path) -> TableMatch:
    async def seat() -> MemoryTable:
        return await MemoryTable.seat("north-american", 4)

    table = asyncio.run(seat())
    return TableMatch.of(table.joiners[2], "127.0.0.1", 6666, tmp_path / "r.p66")


def test_the_match_file_round_trips_and_only_the_user_can_read_it(
    home: Path, tmp_path: Path
) -> None:
    match = _match(tmp_path)
    assert not table_match_kept()
    match.save()
    assert table_match_kept()
    assert TableMatch.load() == match
    path = resume_path(ROLE, "match")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    store = fresh_secrets()
    draw = store.rng()(32)
    assert stored_secrets().draws == [draw]
    assert stat.S_IMODE(os.stat(resume_path(ROLE, "secrets")).st_mode) == 0o600


def test_a_damaged_or_unsigned_match_file_is_refused(home: Path, tmp_path: Path) -> None:
    match = _match(tmp_path)
    match.save()
    path = resume_path(ROLE, "match")
    fields = msgpack.unpackb(path.read_bytes())
    fields["signatures"][1] = bytes(64)  # not the seating everybody signed
    path.write_bytes(msgpack.packb(fields))
    with pytest.raises(ResumeError, match="signed seating"):
        TableMatch.load()
    path.write_bytes(b"not msgpack at all \xc1")
    with pytest.raises(ResumeError, match="damaged"):
        TableMatch.load()


def test_resume_refuses_without_a_match_or_with_another_identity(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    player = TablePlayer(None, 0, grace=1)
    assert asyncio.run(join_table_resume("kai", player)) == EXIT_USAGE
    assert "no table match to resume" in capsys.readouterr().err
    _match(tmp_path).save()
    assert asyncio.run(join_table_resume("kai", player)) == EXIT_USAGE  # a fresh identity
    assert "is not the one seated at seat 2" in capsys.readouterr().err


def test_join_resume_keeps_the_screen_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    """``join --resume --plain --ascii`` resumes on the lines it asked for, not the full screen."""
    from typer.testing import CliRunner

    from p2p66.cli import net_cmd
    from p2p66.cli.app import app

    seen: list[TablePlayer] = []

    async def resume(name: str | None, player: TablePlayer) -> int:
        seen.append(player)
        return 0

    monkeypatch.setattr(net_cmd, "join_table_resume", resume)
    result = CliRunner().invoke(app, ["join", "--resume", "--table", "--plain", "--ascii"])
    assert result.exit_code == 0, result.output
    assert [(p.plain, p.ascii) for p in seen] == [(True, True)]
