"""`p2p66 play`: options merged with the config, and any table factory plugs in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import play_cmd
from p2p66.engine import IllegalMoveError, preset
from p2p66.ui.config import MAX_NAME, Config, save_config
from p2p66.ui.launch import PlaySettings, bot_label
from p2p66.ui.table import MatchOver, Notice, PeerError, Table, TableEvent


class ScriptedTable:
    """A Table that says a few things and ends the match: the protocol, nothing more."""

    def __init__(self, events: list[TableEvent], failure: str | None = None) -> None:
        self._events = events
        self.closed = False
        self._failure = failure

    @property
    def failure(self) -> str | None:
        return self._failure

    @property
    def seat(self) -> int:
        return 0

    @property
    def names(self) -> tuple[str, str]:
        return ("Ann", "Remote Rita")

    async def next_event(self) -> TableEvent:
        return self._events.pop(0)

    async def submit(self, move_code: int) -> None:
        raise IllegalMoveError(str(move_code), "nothing to play")

    async def close(self) -> None:
        self.closed = True


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def app_with(factory: play_cmd.TableFactory | None = None) -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)  # plain errors: never wrapped to the width

    @app.command()
    def version() -> None:  # a second command so `play` stays a subcommand
        """Unused."""

    if factory is None:
        play_cmd.register(app)
    else:
        play_cmd.register(app, table_factory=factory)
    return app


def test_ui_play_command_passes_settings_to_any_table_factory(home: Path) -> None:
    save_config(Config(name="Ann", bot="greedy", preset="schnapsen"))
    seen: list[PlaySettings] = []
    tables: list[ScriptedTable] = []

    @asynccontextmanager
    async def factory(settings: PlaySettings) -> AsyncIterator[Table]:
        seen.append(settings)
        table = ScriptedTable([Notice("Replay saved and verified."), MatchOver(0, (7, 2))])
        tables.append(table)
        yield table

    result = CliRunner().invoke(
        app_with(factory), ["play", "--plain", "--seed", "5", "--target", "2", "--delay", "0"]
    )
    assert result.exit_code == 0, result.output
    assert seen == [
        PlaySettings(
            options=preset("schnapsen").with_options(match_target=2),
            bot="greedy",
            seed=5,
            name="Ann",
            bot_delay=0.0,
            seeded=True,
        )
    ]
    assert tables[0].closed
    assert result.output.splitlines() == ["Replay saved and verified.", "You win the match 7 to 2."]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "poker"], "unknown preset 'poker'"),
        (["--vs", "nobody"], "no bot named 'nobody'"),
        (["--target", "0"], "--target"),
    ],
)
def test_ui_play_command_rejects_bad_options(home: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app_with(), ["play", "--plain", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_ui_play_command_bad_config_file_is_reported(home: Path) -> None:
    (home / "config.toml").write_text('bot = "nobody"\n', encoding="utf-8")
    result = CliRunner().invoke(app_with(), ["play", "--plain"])
    assert result.exit_code == 2
    assert "no bot named 'nobody'" in result.output


@pytest.mark.parametrize(
    ("events", "failure", "code"),
    [
        ([MatchOver(0, (7, 2))], None, 0),  # played to the end (won or lost)
        ([MatchOver(1, (3, 7))], None, 0),
        ([Notice("You leave the match."), MatchOver(None, (0, 0))], None, 7),
        ([PeerError("the disk is full"), MatchOver(None, (2, 0))], "replay", 6),
        ([PeerError("bad shuffle proof"), MatchOver(None, (0, 0))], "cheating", 4),
        ([PeerError("the link dropped"), MatchOver(None, (0, 0))], "disconnected", 3),
    ],
)
def test_ui_play_command_exit_code_says_how_the_match_ended(
    home: Path, events: list[TableEvent], failure: str | None, code: int
) -> None:
    @asynccontextmanager
    async def factory(settings: PlaySettings) -> AsyncIterator[Table]:
        yield ScriptedTable(list(events), failure)

    result = CliRunner().invoke(app_with(factory), ["play", "--plain", "--delay", "0"])
    assert result.exit_code == code, result.output


def test_ui_play_command_without_a_chosen_name_leaves_it_to_the_identity(home: Path) -> None:
    """As with host and join: the name opponents see is the identity's (the login name)."""
    seen: list[PlaySettings] = []

    @asynccontextmanager
    async def factory(settings: PlaySettings) -> AsyncIterator[Table]:
        seen.append(settings)
        yield ScriptedTable([MatchOver(0, (7, 0))])

    result = CliRunner().invoke(app_with(factory), ["play", "--plain", "--delay", "0"])
    assert result.exit_code == 0, result.output
    assert seen[0].name == ""


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        ("random", "Random Bot"),
        ("strong:ms=50,model=0.1", "Strong Bot (ms=50,model=0.1)"),
        ("vu:rdeep:16:4", "Vu Bot (rdeep:16:4)"),
        ("strong:ms=50,samples=20,model=0.1,reuse=1", "Strong Bot (ms=50,samples=20...)"),
    ],
)
def test_ui_a_bot_is_called_by_its_name_with_its_options_as_typed(spec: str, label: str) -> None:
    assert bot_label(spec) == label
    assert len(label) <= MAX_NAME
