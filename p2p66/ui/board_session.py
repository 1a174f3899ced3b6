"""The prompt-toolkit session both full screens use: a live board above one input line.

The two-player screen (``ui.terminal``) and the table games' screen
(``ui.multi.terminal``) draw the same way: the board is the prompt's
message, redrawn on every change; the status bar is the bottom toolbar;
nothing stays in the scrollback; the validator's refusal may wrap; colour
follows ``--plain``/``NO_COLOR`` and ``--ascii`` turns every character ASCII.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition, to_filter
from prompt_toolkit.formatted_text import FormattedText, OneStyleAndTextTuple
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.validation import Validator

from p2p66.ui.cards_text import TextStyle, shown
from p2p66.ui.render import like, lines_of, ui_style, wrap

EMPTY_LINE = Condition(lambda: not get_app().current_buffer.text)
"""A one-key command applies only on an empty input line (else the key is typed)."""


def shown_fragments(fragments: Iterable[OneStyleAndTextTuple], style: TextStyle) -> FormattedText:
    """The fragments as ``style`` may show them: every character ASCII under ``--ascii``."""
    return FormattedText([like(f, shown(f[1], style)) for f in fragments])


def board_session(
    style: TextStyle,
    *,
    message: Callable[[], FormattedText],
    toolbar: Callable[[], FormattedText],
    validator: Validator,
    key_bindings: KeyBindings,
    input: Input | None = None,
    output: Output | None = None,
    refresh_interval: float = 0,
    **extra: object,
) -> PromptSession[str]:
    """A session drawing ``message`` (the board) above the input and ``toolbar`` below.

    ``refresh_interval`` redraws that often by itself (a clock, links going quiet);
    ``extra`` are further ``PromptSession`` settings (a completer, mouse support).
    """
    session: PromptSession[str] = PromptSession(
        message=message,
        bottom_toolbar=toolbar,
        refresh_interval=refresh_interval,
        validator=validator,
        validate_while_typing=False,
        erase_when_done=True,  # the board is redrawn live, not left in the scrollback
        reserve_space_for_menu=0,  # a menu floats over the board: every row is the board's
        key_bindings=key_bindings,
        style=ui_style(style.color),
        color_depth=None if style.color else ColorDepth.MONOCHROME,
        input=input,
        output=output,
        **extra,  # type: ignore[arg-type]
    )
    wrap_validation_toolbar(session)
    return session


def board_rows(session: PromptSession[str]) -> int:
    """The rows left for the board: all but the input line, the status bar and the refusal
    under the input (wrapped as ``wrap_validation_toolbar`` lets it wrap)."""
    size = session.output.get_size()
    error = session.default_buffer.validation_error
    below = 2
    if error is not None:
        below += len(lines_of(wrap([("", error.message)], size.columns)))
    return max(size.rows - below, 1)


def wrap_validation_toolbar(session: PromptSession[str]) -> None:
    """Let the refusal under the prompt wrap: prompt-toolkit gives it one line, cut at the edge.

    A refusal ends with how to recover, and that end is what an 80-column
    terminal lost. The toolbar has no public handle, so it is found by its text function.
    """
    for window in session.app.layout.find_all_windows():
        control = window.content
        text = getattr(control, "text", None)
        if isinstance(control, FormattedTextControl) and "ValidationToolbar" in getattr(
            text, "__qualname__", ""
        ):
            window.height = None
            window.wrap_lines = to_filter(True)
