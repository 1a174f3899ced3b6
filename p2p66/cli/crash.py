"""A crash is a bug, not a verdict: say so in one line and keep the details in a log.

Exit codes 0-7 mean something documented (see ``cli/exits.py``); an unexpected
exception must not pass for one of them, nor for ``verify``'s "invalid" (1).
It exits 70 (``EX_SOFTWARE`` of sysexits.h) after writing the traceback to
``<data dir>/logs/crash-<time>.log``, which the message names.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path
from typing import TextIO

from p2p66 import __version__
from p2p66.cli.exits import EXIT_INTERNAL
from p2p66.net.identity import data_dir


def write_crash_log(exc: BaseException, *, home: Path | None = None) -> Path | None:
    """The traceback of ``exc`` in a fresh log file; None when even that cannot be written."""
    folder = (home or data_dir()) / "logs"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    text = "".join(traceback.format_exception(exc))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{stamp}.log"
        path.write_text(f"p2p66 {__version__}\n{' '.join(sys.argv)}\n\n{text}", encoding="utf-8")
    except OSError:
        return None
    return path


def report_crash(exc: BaseException, *, out: TextIO | None = None, home: Path | None = None) -> int:
    """Tell the user p2p66 failed (version, log path) and return the exit code to use."""
    stream = out or sys.stderr
    path = write_crash_log(exc, home=home)
    where = f"details are in {path}" if path else "the details could not be written to a log"
    stream.write(
        f"p2p66: internal error ({type(exc).__name__}) in p2p66 {__version__}; {where}. "
        "This is a bug in p2p66: please report it with that file.\n"
    )
    stream.flush()
    return EXIT_INTERNAL
