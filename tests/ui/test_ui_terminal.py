"""The real prompt-toolkit screen, driven through a pipe, plays a whole hand against a bot."""

from __future__ import annotations

import asyncio
import io
import threading

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput
from uikit import choose, keystrokes

from p2p66.engine import CARDS, HowEnded, PlayerView, preset
from p2p66.engine.moves import DECLARE, PASS
from p2p66.ui.bots import BotContext, FirstLegalBot
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.local_table import LocalTable
from p2p66.ui.screen import Screen
from p2p66.ui.terminal import TerminalUI

# Seed 3 with the first-legal bot and the policy of uikit.choose: the player
# announces a marriage and later declares 66 truly (73 to 24), within one hand.
# Found by running that policy against LocalTable for seeds 0..200.
SEED = 3
ONE_HAND = preset("sixty-six").with_options(match_target=1)


async def _until(condition: object, what: str, timeout: float = 5.0) -> None:
    async def wait() -> None:
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.005)

    try:
        await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


class Driver:
    """Types like a player: waits for a fresh turn, then sends keystrokes."""

    def __init__(self, ui: TerminalUI, pipe: PipeInput, out: io.StringIO) -> None:
        self.ui = ui
        self.pipe = pipe
        self.out = out
        self.codes: list[int] = []

    def ready(self) -> bool:
        app = self.ui.session.app
        return app.is_running and not self.ui.session.default_buffer.text

    async def illegal_entry(self) -> None:
        """Type a card we do not hold: refused with the engine's reason, nothing changes."""
        view = self.ui.screen.view
        assert view is not None
        stranger = next(c for c in CARDS if c not in view.hand)
        buffer = self.ui.session.default_buffer
        self.pipe.send_text(stranger.code.lower() + "\r")
        await _until(lambda: buffer.validation_error is not None, "the validation error")
        assert buffer.validation_error is not None
        assert buffer.validation_error.message == (
            f"{stranger.code} is not in your hand (Ctrl-U clears the line)"
        )
        assert buffer.text == stranger.code.lower()  # the entry stays on the line
        assert self.ui.screen.view is view  # and cost nothing
        shown = f"{stranger.code} is not in your hand"
        await _until(lambda: shown in self.out.getvalue(), "the reason on screen")
        self.pipe.send_text("\x15")  # Ctrl-U clears the line
        await _until(lambda: not buffer.text, "the line to clear")
        self.pipe.send_text("zz\r")  # a refusal longer than the 80 columns wraps, its end kept
        await _until(lambda: buffer.validation_error is not None, "the long refusal")
        assert len(buffer.validation_error.message) > 100
        await _until(lambda: "'pass' (Ctrl-U" in self.out.getvalue(), "the end of the reason")
        self.pipe.send_text("\x15")
        await _until(lambda: not buffer.text, "the line to clear")

    async def play(self, run: asyncio.Task[Screen]) -> None:
        last = None
        turn = 0
        while not run.done():
            view = self.ui.screen.view
            if not (self.ui.screen.my_turn and view is not last and self.ready()):
                await asyncio.sleep(0.005)  # (not the table's own moves: screen.my_turn)
                continue
            assert view is not None
            if turn == 0:
                await self.illegal_entry()
            code = choose(view)
            self.codes.append(code)
            self.pipe.send_text(keystrokes(view, code, turn))
            last, turn = view, turn + 1


@pytest.mark.timeout(30)
def test_ui_terminal_plays_a_whole_hand_with_marriage_and_declaration() -> None:
    async def main() -> tuple[Screen, list[int], str]:
        out = io.StringIO()
        with create_pipe_input() as pipe:
            table = LocalTable(ONE_HAND, FirstLegalBot(), seed=SEED, names=("Ann", "Bot"))
            ui = TerminalUI(
                table,
                TextStyle(ascii=True, color=False),
                input=pipe,
                output=PlainTextOutput(out),
                patch=False,
            )
            run = asyncio.create_task(ui.run())
            driver = Driver(ui, pipe, out)
            await driver.play(run)
            return await run, driver.codes, out.getvalue()

    screen, codes, output = asyncio.run(main())
    assert any(24 <= c < 48 for c in codes), "the player announced a marriage"
    assert PASS not in codes  # going on after it, short of 66, was not asked for
    assert codes[-1] == DECLARE
    assert screen.result is not None
    assert screen.result.how is HowEnded.DECLARED_66 and screen.result.winner == 0
    assert screen.match_over is not None and screen.match_over.winner == 0
    assert any("You announce" in line for line in screen.log)
    assert "You declare 66 truly" in output  # the hand result is printed above the prompt
    assert "Match: you" in output  # the status bar was drawn


class GatedBot(FirstLegalBot):
    """Moves only when the test opens the gate."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def choose(self, view: PlayerView, context: BotContext) -> int:
        assert self.gate.wait(5)
        return super().choose(view, context)


@pytest.mark.timeout(30)
def test_ui_terminal_opponent_moves_do_not_disturb_typing_and_keys_explain() -> None:
    async def main() -> tuple[Screen, str]:
        out = io.StringIO()
        bot = GatedBot()
        with create_pipe_input() as pipe:
            table = LocalTable(ONE_HAND, bot, seed=SEED, names=("Ann", "Bot"))
            ui = TerminalUI(
                table, TextStyle(ascii=True, color=False), input=pipe, output=PlainTextOutput(out)
            )
            buffer = ui.session.default_buffer
            run = asyncio.create_task(ui.run())
            await _until(lambda: ui.screen.view is not None and ui.session.app.is_running, "deal")
            assert not ui.screen.my_turn  # seed 3: the bot leads first
            pipe.send_text("9")
            await _until(lambda: buffer.text == "9", "typing")
            pipe.send_text("?")  # help about "9": a card number we do not have
            await _until(lambda: "9: there is no card 9" in out.getvalue(), "the answer to ?")
            pipe.send_text("\r")  # too early: refused, the line kept
            await _until(lambda: buffer.validation_error is not None, "the refusal")
            assert "wait for their move" in buffer.validation_error.message
            bot.gate.set()  # the bot leads while "9" sits on the line
            await _until(lambda: ui.screen.my_turn, "the bot's lead")
            assert (buffer.text, buffer.cursor_position) == ("9", 1)
            await _until(lambda: buffer.validation_error is None, "the stale refusal gone")
            pipe.send_text("c\r")  # completes "9c": the nine of trumps wins
            await _until(
                lambda: ui.screen.view is not None and ui.screen.view.phase.name == "DRAW", "trick"
            )
            await _until(lambda: ui.session.app.is_running and not buffer.text, "a fresh prompt")
            pipe.send_text("x")  # the exchange key: not now, we must draw first
            await _until(lambda: buffer.validation_error is not None, "the refusal")
            assert buffer.text == "exchange"
            assert buffer.validation_error is not None
            assert buffer.validation_error.message.startswith("you won the trick: first draw")
            pipe.send_text("\x15c")  # the close key only writes the word: Enter decides
            await _until(lambda: buffer.text == "close", "the word")
            await asyncio.sleep(0.1)
            assert ui.screen.view is not None and not ui.screen.view.closed
            pipe.send_text("\x03")  # a stray Ctrl-C only warns
            await _until(lambda: "Press Ctrl-C again to leave" in out.getvalue(), "the warning")
            await _until(lambda: ui.session.app.is_running, "the prompt back")
            assert not run.done() and ui.screen.match_over is None
            pipe.send_text("\x03")  # a second one leaves
            return await asyncio.wait_for(run, 5), out.getvalue()

    screen, output = asyncio.run(main())
    assert "You leave the match." in output
    assert screen.match_over is not None and screen.match_over.winner is None
    assert "You play 9C and win the trick (11 points)." in screen.log


def test_ui_terminal_lines_printed_above_the_prompt_wrap_at_words() -> None:
    """Help and results printed above the prompt break between words, not inside them."""
    out = io.StringIO()
    with create_pipe_input() as pipe:
        table = LocalTable(ONE_HAND, FirstLegalBot(), seed=SEED, names=("Ann", "Bot"))
        ui = TerminalUI(
            table, TextStyle(ascii=True, color=False), input=pipe, output=PlainTextOutput(out)
        )
        sentence = "Holding king and queen of a suit, lead either and announce a marriage: " * 3
        ui._say(sentence.strip())
    printed = out.getvalue().splitlines()
    assert len(printed) > 1 and all(len(line) <= 80 for line in printed)
    assert " ".join(line.strip() for line in printed).split() == sentence.split()
