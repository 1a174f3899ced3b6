"""Every command's ``--help`` explains every option, and shows a flag as a flag."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli.app import app


def _commands() -> list[tuple[str, Any]]:
    """Every command of the ``p2p66`` app, groups and subcommands included, by its path.

    Duck-typed: typer ships its own copy of click, whose classes are not ``click``'s.
    """
    found: list[tuple[str, Any]] = []

    def walk(command: Any, path: str) -> None:
        found.append((path, command))
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "p2p66")
    return found


COMMANDS = _commands()


def test_the_walk_reaches_the_subcommands() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {"p2p66 play", "p2p66 host", "p2p66 join", "p2p66 net check", "p2p66 bot list"} <= paths


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_option_and_argument_has_a_help_text(path: str, command: Any) -> None:
    silent = [param.opts for param in command.params if not (getattr(param, "help", None) or "")]
    assert silent == [], f"{path}: no help for {silent}"


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS])
def test_help_shows_flags_without_a_value(path: str) -> None:
    args = [*path.split()[1:], "--help"]
    result = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "<bool" not in result.output and "BOOLEAN" not in result.output


@pytest.mark.parametrize("path", ["p2p66 play", "p2p66 host", "p2p66 verify"])
def test_rich_help_at_a_terminal_shows_flags_without_a_value(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "rich_markup_mode", "rich")  # as at a colour terminal
    args = [*path.split()[1:], "--help"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "╭" in result.output  # the rich help indeed
    assert "--plain" in result.output or "--json" in result.output
    assert "<bool>" not in result.output
    assert "<int" in result.output or "<list" in result.output  # those with values keep theirs
