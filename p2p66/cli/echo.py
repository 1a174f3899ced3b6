"""What commands print: escaped for the terminal, and quiet once the reader has gone.

``p2p66 verify FILE | head -1`` closes the pipe after one line. That is not
a verdict: the command must still exit with its own code, silently. ``say``
escapes what it prints (``ui.escape``), and on a closed pipe points standard
output at the null device, so later lines, and Python's flush at exit, are
dropped instead of failing; ``reader_gone`` tells a command that waits for
input that nobody is watching any more.
"""

from __future__ import annotations

import os
import sys
from typing import Final

import typer

from p2p66.ui.escape import printable, printable_lines

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


__all__ = ["EXIT_READER_GONE", "printable", "reader_gone", "say", "silence_stdout"]
