"""``host``/``join`` lines wrap at words on a terminal (80 and 60 columns), never in a pipe."""

from __future__ import annotations

import pytest

from p2p66.cli import net_cmd
from p2p66.cli.output import fitted

HOSTING = (
    "Hosting as root (ab12-cd34-ef56-7890), preset sixty-six, match to 7, shuffle proofs on "
    "(the shuffle argument, soundness 256). (Your opponent will see the name 'root': "
    "'p2p66 config set name NAME'.)"
)
PATH = "/home/someone/.local/share/p2p66/replays/20261201-232525-sixty-six-and-more.p66"
VERDICT = f"Replay saved to {PATH}. Verified: valid: you win the match 7-3."


@pytest.mark.parametrize("width", [80, 60])
@pytest.mark.parametrize("text", [HOSTING, VERDICT, f"{HOSTING}\n{VERDICT}"])
def test_lines_fit_the_terminal_and_words_stay_whole(text: str, width: int) -> None:
    lines = fitted(text, width).split("\n")
    assert len(lines) > 1
    assert all(len(line) <= width or line.strip() == PATH + "." for line in lines), lines
    assert all(line == line.rstrip() for line in lines)  # no trailing blank at a break
    assert " ".join(line.strip() for line in lines).split() == text.split()


def test_a_pipe_gets_each_message_on_one_line() -> None:
    assert fitted(HOSTING, None) == HOSTING


@pytest.mark.parametrize("width", [80, 60])
def test_host_and_join_say_their_lines_wrapped_to_the_terminal(
    width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(net_cmd, "terminal_width", lambda stream: width)
    net_cmd._say(HOSTING)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) > 1 and max(map(len, lines)) <= width
    assert " ".join(lines).split() == HOSTING.split()


def test_host_and_join_lines_in_a_pipe_are_not_wrapped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    net_cmd._say(HOSTING)  # pytest's captured stderr is not a terminal
    assert capsys.readouterr().err == HOSTING + "\n"
