"""How the command talks to whoever reads it: a person at a terminal, or a pipe.

Rich's boxes and colours are for a person at a colour terminal. A pipe, a log,
``NO_COLOR`` or ``TERM=dumb`` get plain ``Error: …`` lines that a script can
read and that never wrap differently with the terminal's width.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping
from typing import Literal, TextIO

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
