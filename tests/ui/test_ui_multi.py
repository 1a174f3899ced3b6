"""The local table of the games for three and four players: --plain, the real prompt-toolkit
screen through a pipe, and `p2p66 play --preset ...` end to end."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput
from typer.testing import CliRunner

from p2p66.cli import play_cmd
from p2p66.engine.table import TABLE_PRESETS, table_options
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.multi.render import HEIGHT, WIDTH, board
from p2p66.ui.multi.screens import run_plain, run_terminal

ASCII = TextStyle(ascii=True, color=False)
SHORT = {"three-handed": 3, "north-american": 3, "south-bend": 3, "cut-throat": 3}


def short_table(name: str, seed: int = 7) -> LocalMultiTable:
    return LocalMultiTable(
        table_options(name, {"match_target": SHORT[name]}), "expert", seed, ASCII
    )


def first_legal(table: LocalMultiTable) -> Iterator[str]:
    while True:
        legal = table.legal_notation()
        yield legal[0] if legal else ""


@pytest.mark.parametrize("name", list(TABLE_PRESETS))
def test_plain_plays_a_whole_match(name: str) -> None:
    table = short_table(name)
    out: list[str] = []
    moves = first_legal(table)
    run_plain(table, lambda: next(moves), out.append)
    assert table.over is not None and out[-1] == table.over.text
    text = "\n".join(out)
    assert "wins the match" in text or "win the match" in text
    if name != "three-handed":
        assert "Contract:" in text and ("bids" in text or "pass" in text)
        assert "Marks:" in text and "wins the trick" in text
    else:
        assert "sits out" in text and "Game points:" in text


def test_plain_refuses_with_the_reason_and_keeps_asking() -> None:
    table = short_table("north-american", seed=3)
    lines = iter(["play:AH", "bid:9", "?", "q"])
    out: list[str] = []
    run_plain(table, lambda: next(lines), out.append)
    text = "\n".join(out)
    assert "Not accepted:" in text and "Moves you can make now:" in text
    assert out[-1] == "You leave the match." and table.over is None


def test_the_board_fits_80_by_24_all_match_long() -> None:
    for name in TABLE_PRESETS:
        table = short_table(name, seed=11)
        moves = first_legal(table)
        while table.over is None:
            table.play_bots()
            lines = board(table)
            assert len(lines) <= HEIGHT - 1 and all(len(x) <= WIDTH for x in lines)
            if table.over is not None:
                break
            if table.hand_over:
                table.start_hand()
            elif table.my_turn:
                table.submit(next(moves))


def test_the_board_shows_the_trick_with_who_played_each_card() -> None:
    table = short_table("north-american", seed=2)
    table.play_bots()
    while table.my_turn and table.view().phase == 0:  # type: ignore[union-attr]
        table.submit("pass")
        table.play_bots()
    text = "\n".join(board(table))
    assert "Bidding:" in text and "Marks: You+North 0  West+East 0" in text
    view = table.view()
    for seat, card in getattr(view, "trick", ()):
        assert f"{table.names[seat]} {card.code}" in text


def test_terminal_screen_through_a_pipe_plays_to_the_end() -> None:
    table = short_table("cut-throat", seed=5)
    out = io.StringIO()
    keys = "".join(f"\x15{k}\r" for k in ["pass", "1", "2", "3", "4", "5", "6", "7"] * 120)
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        pipe.send_text("\x04")  # Ctrl-D: should the match not have ended, leave
        run_terminal(table, input=pipe, output=PlainTextOutput(out))
    assert table.over is not None
    screen = out.getvalue()
    assert "wins the match" in screen or "win the match" in screen
    assert "Your hand: 1:" in screen and "Contract:" in screen


def test_play_command_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    keys = ["pass", "1", "2", "3", "4", "5", "6", "7", ""]  # Enter alone draws (three-handed)
    lines = "".join(f"{k}\n" for k in keys * 200)
    runner = CliRunner()
    app = play_cmd.typer.Typer()
    play_cmd.register(app)
    for name in ("north-american", "three-handed"):
        result = runner.invoke(
            app, ["--preset", name, "--plain", "--seed", "4", "--target", "2"], input=lines
        )
        assert result.exit_code == 0, result.output
        assert "the match" in result.output.splitlines()[-1]
    left = runner.invoke(app, ["--preset", "south-bend", "--plain", "--seed", "1"], input="q\n")
    assert left.exit_code == 7 and "You leave the match." in left.output
    bad = runner.invoke(app, ["--preset", "cut-throat", "--plain", "--vs", "nobody"], input="")
    assert bad.exit_code == 2 and "unknown bot" in bad.output


def test_host_takes_bot_seats_only_for_the_table_games_and_leaves_a_seat_to_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The table games are seated over the network: tests/live/test_live_table_lobby.py.)"""
    from p2p66.cli.app import app

    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    runner = CliRunner()
    full = runner.invoke(app, ["host", "--preset", "north-american", "--bot-seats", "1,2,3"])
    assert full.exit_code == 2 and "a person who joins" in full.output
    two = runner.invoke(app, ["host", "--preset", "sixty-six", "--bot-seats", "1"])
    assert two.exit_code == 2 and "three or four players" in two.output


def test_a_table_preset_can_be_the_default_of_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p66.cli.app import app

    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    runner = CliRunner()
    assert runner.invoke(app, ["config", "set", "preset", "cut-throat"]).exit_code == 0
    result = runner.invoke(app, ["play", "--plain", "--seed", "1"], input="q\n")
    assert result.exit_code == 7 and "Hand 1:" in result.output
    assert "West" in result.output and "North" not in result.output  # three seats
