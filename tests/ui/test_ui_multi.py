"""The local table of the games for three and four players: --plain, the real prompt-toolkit
screen through a pipe, and `p2p66 play --preset ...` end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2p66.cli import play_cmd
from p2p66.engine.table import TABLE_PRESETS, TableView, table_options
from p2p66.engine.table.moves import TABLE_NOTATION
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.hint import reason
from p2p66.ui.multi.hint import hint_line, table_reason
from p2p66.ui.multi.local import LocalMultiTable
from p2p66.ui.multi.render import HEIGHT, WIDTH, board, board_lines
from p2p66.ui.multi.screens import run_plain, score_lines
from p2p66.ui.render import plain

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


def test_the_board_shows_the_trick_round_the_table_with_who_played_each_card() -> None:
    table = short_table("north-american", seed=2)
    table.play_bots()
    while table.my_turn and table.view().phase == 0:  # type: ignore[union-attr]
        table.submit("pass")
        table.play_bots()
    text = "\n".join(board(table))
    assert "Bidding:" in text and "Marks: You+North 0 · West+East 0" in text
    view = table.view()
    assert isinstance(view, TableView) and view.trick
    for seat, card in view.trick:
        assert f"{table.names[seat]} ({view.hand_sizes[seat]}): {card.code}" in text
    assert "You: ·" in text  # your place at the table, still empty


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


def test_plain_says_the_bidding_and_the_contract_in_sentences_and_score_shows_the_sheet() -> None:
    table = LocalMultiTable(table_options("north-american", {}), "expert", 3, ASCII)
    out: list[str] = []
    moves = first_legal(table)
    pending = ["score", "tricks"]  # before any hand ended
    asked: list[str] = []

    def read() -> str | None:
        if pending:
            return pending.pop(0)
        if table.match.results:  # after the first hand: the sheet, then leave
            asked.append("score")
            return "score" if len(asked) == 1 else "q"
        return next(moves)

    run_plain(table, read, out.append)
    text = "\n".join(out)
    assert "Score sheet: no hand has ended yet." in text
    assert "Tricks of this hand: none played yet." in text
    assert "The bidding so far:" in text or "Nobody has called yet." in text
    assert "Your call: pass or bid" in text
    assert "The contract: " in text and "Taken so far: " in text
    assert "Your hand: 1 " in text
    sheet = text[text.index("Score sheet (marks to 10") :]
    assert "contract" in sheet.splitlines()[1] and "You+North" in sheet.splitlines()[1]


def test_a_long_score_sheet_keeps_its_header_and_the_newest_hands_on_a_small_screen() -> None:
    table = LocalMultiTable(table_options("north-american", {}), "expert", 6, ASCII)
    moves = first_legal(table)
    while table.over is None:
        table.play_bots()
        if table.hand_over and table.over is None:
            table.start_hand()
        elif table.my_turn:
            table.submit(next(moves))
    hands = len(table.match.results)
    assert hands >= 4  # more hands than a 60x20 screen has rows to spare
    sheet = score_lines(table, 59)
    lines = plain(board_lines(table, width=60, rows=17, panel=tuple(sheet), panel_head=2))
    rows = lines.rstrip("\n").split("\n")
    assert len(rows) <= 17 and all(len(r) <= 60 for r in rows)
    assert " Score sheet (marks to 10" in rows[0] or any(r.startswith(" Score sheet") for r in rows)
    assert any("contract" in r and "You+North" in r for r in rows)  # the header stays
    assert any(r.lstrip().startswith(f"{hands} ") for r in rows)  # the newest hand shows
    assert any(r.startswith(" ") and "the match" in r for r in rows)  # the turn line


@pytest.mark.parametrize("name", list(TABLE_PRESETS))
def test_every_move_at_every_turn_has_a_hint_reason_naming_it(name: str) -> None:
    """The hint's reason, for any legal move the bot might pick, names the move."""
    table = short_table(name, seed=8)
    moves = first_legal(table)
    turns = 0
    while table.over is None and turns < 40:
        table.play_bots()
        if table.over is not None:
            break
        if table.hand_over:
            table.start_hand()
            continue
        v = table.view()
        if isinstance(v, TableView):
            for code in v.legal:
                text = table_reason(v, code, ASCII)
                named = TABLE_NOTATION[code].split(":")[-1]
                assert named.lower() in text.lower() or text.startswith(("pass", "shoot")), text
        elif v.hand is not None:
            for move in v.hand.legal:
                assert reason(v.hand, move.code, ASCII)
        table.submit(next(moves))
        turns += 1
    plain_hint = hint_line(table)
    assert plain_hint.startswith(("Hint: ", "No hint: "))


def test_a_partnership_wins_in_the_plural() -> None:
    table = short_table("north-american")
    table.end(1, "jo+kai")
    assert table.over is not None and table.over.text.startswith("jo+kai win the match (")
    table.end(0, "Bo")
    assert table.over is not None and table.over.text.startswith("Bo wins the match (")
