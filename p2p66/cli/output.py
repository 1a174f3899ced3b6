"""What commands print, and how: for a person at a terminal or a pipe, escaped, quiet once
the reader has gone.

Rich's boxes and colours are for a person at a colour terminal. A pipe, a log,
``NO_COLOR`` or ``TERM=dumb`` get plain ``Error: …`` lines that a script can
read and that never wrap differently with the terminal's width.

``p2p66 verify FILE | head -1`` closes the pipe after one line. That is not
a verdict: the command must still exit with its own code, silently. ``say``
escapes what it prints (``ui.escape``), and on a closed pipe points standard
output at the null device, so later lines, and Python's flush at exit, are
dropped instead of failing; ``reader_gone`` tells a command that waits for
input that nobody is watching any more.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from typing import Any, Final, Literal, TextIO

import typer

from p2p66.ui.escape import printable, printable_lines
from p2p66.ui.render import plain, wrap

MarkupMode = Literal["rich"] | None


def wants_plain(env: Mapping[str, str], streams: tuple[TextIO, ...]) -> bool:
    """True unless every stream is a terminal and colour is allowed (NO_COLOR, TERM=dumb)."""
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return True
    return not all(_is_tty(stream) for stream in streams)


def markup_mode(env: Mapping[str, str] | None = None) -> MarkupMode:
    """Typer's markup mode for this process: ``None`` (plain click output) when plain."""
    plain = wants_plain(os.environ if env is None else env, (sys.stdout, sys.stderr))
    return None if plain else "rich"


def flags_as_flags() -> None:
    """Show a flag in rich ``--help`` as a flag: ``--plain``, not ``--plain <bool>``.

    typer 0.29's rich help gives every option a type column, flags included, as
    if ``--plain`` took a value (its plain help, like click's, does not). A
    flag's type column is left empty; every other option keeps its own.
    """
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "flags_as_flags", False):
        return  # an older typer without the column, or already done

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:  # typer's own click
        if self.is_flag and not self.count:
            return None
        result: str | None = shown(self, ctx)
        return result

    display_type_rich.flags_as_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


SYMBOLS: Final = "♠♥♦♣·│→┌─┐└┘"
"""The characters the table draws with besides ASCII: suits, separators, card boxes."""


def shows_symbols(stream: TextIO) -> bool:
    """Whether ``stream``'s encoding can write the table's symbols; if not (an ASCII or
    Latin-1 locale, ``PYTHONIOENCODING=ascii``), the table is drawn as under ``--ascii``
    instead of with "?" for every suit."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        SYMBOLS.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def terminal_width(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` writes to; None for a pipe or a file."""
    if not _is_tty(stream):
        return None
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):
        return None


def fitted(text: str, width: int | None) -> str:
    """``text`` wrapped at spaces to ``width`` columns, as the board wraps its log.

    A terminal breaks a long line wherever its edge falls, mid-word; a pipe or a
    log (``width`` None) keeps each message on one line for whoever reads it.
    A word longer than the line (a path, a join code) is never broken.
    """
    if width is None:
        return text
    return plain(wrap([("", text)], max(width, 20)))


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams are not terminals
        return False


def forgiving_streams() -> None:
    """Let stdout and stderr replace what their encoding cannot show instead of crashing.

    With ``PYTHONIOENCODING=ascii`` or a Latin-1 locale a suit symbol or a peer's
    name must come out as ``?``, not end the match with a UnicodeEncodeError.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")


EXIT_READER_GONE: Final = 141
"""A run cut short because its output's reader left (128 + SIGPIPE, as shells report it)."""

_gone = {"stdout": False}


def reader_gone() -> bool:
    """True once standard output was found closed (the reader left)."""
    return _gone["stdout"]


def say(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print ``text`` (one or more lines), escaped; a closed pipe ends printing, not the command."""
    if not err and _gone["stdout"]:
        return
    safe = printable_lines(text)
    try:
        typer.echo(safe, err=err, nl=nl)
    except BrokenPipeError:
        if not err:
            silence_stdout()


def silence_stdout() -> None:
    """The reader of standard output has gone: drop whatever is still printed."""
    _gone["stdout"] = True
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


__all__ = [
    "EXIT_READER_GONE",
    "fitted",
    "flags_as_flags",
    "forgiving_streams",
    "markup_mode",
    "printable",
    "reader_gone",
    "say",
    "shows_symbols",
    "silence_stdout",
    "terminal_width",
    "wants_plain",
]
