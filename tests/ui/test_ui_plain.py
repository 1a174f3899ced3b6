"""`--plain` through a real process: one sentence a line, moves on stdin, a whole hand."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

LEGAL = "Legal moves: "


class Reader:
    """Lines of a child's stdout, read by a thread so every wait has a timeout."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        assert proc.stdout is not None
        stdout = proc.stdout

        def pump() -> None:
            for line in stdout:
                self.lines.put(line.rstrip("\n"))
            self.lines.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def until(self, predicate: object) -> str | None:
        """The first new line for which ``predicate`` holds (None at end of output)."""
        while True:
            line = self.lines.get(timeout=10)
            if line is None:
                return None
            self.seen.append(line)
            if predicate(line):  # type: ignore[operator]
                return line


def pick(legal_line: str) -> str:
    """Draw when offered, never declare (the hand then runs to its end), else the first move."""
    moves = legal_line.removeprefix(LEGAL).rstrip(".").split(", ")
    for preferred in ("draw", "pass"):
        if preferred in moves:
            return preferred
    return next(m for m in moves if m != "declare")


def play_one_hand(
    tmp_path: Path, entry: tuple[str, ...], name: str = "Ann", **extra_env: str
) -> list[str]:
    """Play a one-hand match in ``--plain --ascii`` through ``python -m *entry``; its lines."""
    env = {**os.environ, "P2P66_HOME": str(tmp_path), "NO_COLOR": "1", **extra_env}
    command = [sys.executable, "-m", *entry, "--plain", "--ascii", "--vs", "first"]
    command += ["--seed", "7", "--delay", "0", "--target", "1", "--name", name]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdin is not None
    out = Reader(proc)
    try:
        first = out.until(lambda line: line.startswith(LEGAL))
        assert first is not None
        proc.stdin.write("zz\n?\n")  # a typo and a question cost nothing
        proc.stdin.flush()
        assert out.until(lambda line: line.startswith("Not accepted: 'zz' is not a move"))
        assert out.until(lambda line: line.startswith("The talon is open"))
        assert out.until(lambda line: line == "Your move?")
        legal: str | None = first
        moves = 0
        while legal is not None:
            proc.stdin.write(pick(legal) + "\n")
            proc.stdin.flush()
            moves += 1
            legal = out.until(lambda line: line.startswith(LEGAL) or "wins the match" in line)
            if legal is not None and not legal.startswith(LEGAL):
                break
        assert proc.wait(timeout=10) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        proc.kill()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert moves >= 6
    return out.seen


@pytest.mark.timeout(60)
def test_ui_plain_mode_plays_a_whole_hand_in_a_subprocess(tmp_path: Path) -> None:
    seen = play_one_hand(tmp_path, ("p2p66.cli.play_cmd",))
    text = "\n".join(seen)
    assert "Playing against First Bot on this computer." in text
    assert text.count("Hand 1: ") == 1
    assert "the match stands you " in text  # the hand result sentence
    assert "\x1b" not in text  # plain means no escape sequences at all
    assert all(line.isascii() for line in seen)  # --ascii: every character, not only suits


@pytest.mark.timeout(60)
def test_ui_plain_ascii_works_whatever_the_output_encoding(tmp_path: Path) -> None:
    entry = ("p2p66.cli.app", "play")  # the real command, as installed
    seen = play_one_hand(tmp_path, entry, name="Jos\u00e9", PYTHONIOENCODING="ascii")
    assert any("wins the match" in line for line in seen)
    assert all(line.isascii() for line in seen)


@pytest.mark.timeout(120)
def test_ui_plain_mode_keeps_lines_typed_ahead_for_the_next_turn(tmp_path: Path) -> None:
    """A script that pipes all its moves at once plays a whole match: nothing is refused
    for arriving early (only cards the rules forbid), and no position is told twice."""
    env = {**os.environ, "P2P66_HOME": str(tmp_path), "NO_COLOR": "1"}
    # the real command: the bot is a peer over loopback, so events arrive as over a network
    command = [sys.executable, "-m", "p2p66.cli.app", "play", "--plain", "--ascii"]
    command += ["--vs", "expert", "--seed", "3", "--delay", "0", "--target", "2", "--preset", "vu"]
    run = subprocess.run(
        command,
        check=False,
        input="1\n2\n3\n4\n5\n" * 200,
        capture_output=True,
        text=True,
        env=env,
        timeout=100,
    )
    assert run.returncode == 0, run.stderr
    assert "wins the match" in run.stdout
    assert "not your turn" not in run.stdout and "turn: wait" not in run.stdout
    told = [line for line in run.stdout.splitlines() if line.startswith("Your hand:")]
    leads = [line for line in run.stdout.splitlines() if line.startswith(("You lead", "You play"))]
    assert len(told) == len(leads)  # each position summed up once, then moved from
    lines = run.stdout.splitlines()
    for j, line in enumerate(lines):  # the lead is told before the position it makes
        if line.startswith("Your turn: answer "):
            card = line.removeprefix("Your turn: answer ").split()[0].rstrip(".")
            summed_up = max(i for i in range(j) if lines[i].startswith("Trumps are"))
            told_leads = [said for said in lines[:summed_up] if " leads " in said]
            assert told_leads and f"leads {card}" in told_leads[-1], lines[summed_up - 3 : j + 1]


def test_ui_plain_speaks_in_sentences_and_repeats_the_position() -> None:
    from uikit import SIXTY_SIX, dealt, screen_of

    from p2p66.engine import view_of
    from p2p66.ui.cards_text import TextStyle
    from p2p66.ui.entry import Repeat, interpret
    from p2p66.ui.plain import situation, turn_sentences

    assert turn_sentences("Your lead: type a card or its number · c close · ? help") == [
        "Your lead: type a card or its number.",
        "Keys: c close, ? help.",
    ]
    symbols = TextStyle(color=False)
    state = dealt(options=SIXTY_SIX)
    lines = situation(screen_of(state, symbols), view_of(state, 0), symbols)
    assert all("·" not in line for line in lines)
    assert lines[-1].startswith("Legal moves: A♠, 10♣, J♦, K♥, Q♥, 9♥, m K♥, m Q♥, close")
    assert interpret(view_of(state, 0), "repeat") == Repeat()
