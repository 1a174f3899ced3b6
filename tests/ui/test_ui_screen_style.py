"""How a seat at a table plays, from its flags and its terminal: the same for ``play --preset``,
``host`` and ``join``: ``--plain`` or a pipe gives lines, colour only where allowed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from p2p66.cli.table_options import screen_style


class Tty(io.StringIO):
    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A terminal on both ends (set in the test: pytest puts its capture back after set-up)."""
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("sys.stdout", Tty())


def test_a_terminal_gets_the_full_screen_in_colour_with_symbols(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _terminal(monkeypatch, tmp_path)
    plain, style = screen_style(False, False)
    assert (plain, style.color, style.ascii) == (False, True, False)


def test_plain_ascii_and_no_color_are_honoured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _terminal(monkeypatch, tmp_path)
    plain, style = screen_style(True, True)
    assert plain and not style.color and style.ascii
    monkeypatch.setenv("NO_COLOR", "1")
    plain, style = screen_style(False, False)
    assert not plain and not style.color


def test_a_pipe_gets_plain_lines(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _terminal(monkeypatch, tmp_path)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    plain, style = screen_style(False, False)
    assert plain and not style.color
