"""``p2p66 verify`` and ``p2p66 replay show|export``: check, watch and export replay files.

Exit codes (``verify``, and ``show``/``export`` for the file they read):
0 valid (or valid so far and unfinished), 1 invalid (the first bad record,
what is wrong and who is to blame are printed), 2 unreadable or not a replay.
``register(app)`` adds the commands to the main app.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Final

import typer

from p2p66.replay.compare import compare, same_game
from p2p66.replay.export import export_json, export_text
from p2p66.replay.report import REPORT_VERSION, Status
from p2p66.replay.show import show_chunks
from p2p66.replay.verify import Verification, verify_file
from p2p66.ui.cards_text import TextStyle

FILES_FORMAT: Final = "p2p66-verify-reports"


class ExportFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


def _json(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def verify_command(
    files: Annotated[list[Path], typer.Argument(help="Replay files (.p66) to check.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a versioned JSON report instead of a summary.")
    ] = False,
) -> None:
    """Check replay files completely: framing, chain, signatures, shuffles, every move, scores."""
    results = [(path, verify_file(path)) for path in files]
    pairs = [
        (i, j, compare(results[i][1], results[j][1]))
        for i in range(len(results))
        for j in range(i + 1, len(results))
        if same_game(results[i][1], results[j][1])
    ]
    if as_json:
        typer.echo(
            _json(
                {
                    "format": FILES_FORMAT,
                    "version": REPORT_VERSION,
                    "reports": [{"file": str(path), **v.report.to_json()} for path, v in results],
                    "same_game": [
                        {
                            "files": [str(results[i][0]), str(results[j][0])],
                            "relation": c.relation,
                            "record": c.record,
                            "extra": c.extra,
                        }
                        for i, j, c in pairs
                    ],
                }
            )
        )
    else:
        for k, (path, v) in enumerate(results):
            lines = v.report.summary_lines()
            lines += [c.describe(str(results[j][0])) for i, j, c in pairs if i == k]
            typer.echo(f"{path}: {lines[0]}")
            for line in lines[1:]:
                typer.echo(f"  {line}")
    raise typer.Exit(max(v.report.exit_code for _, v in results))


def _seat(text: str, verification: Verification) -> int | None:
    """``0``, ``1``, ``all`` or a player's name."""
    low = text.strip().lower()
    if low == "all":
        return None
    if low in ("0", "1"):
        return int(low)
    for p in verification.report.players:
        if p.name.lower() == low:
            return p.seat
    raise typer.BadParameter(f"{text!r}: use 0, 1, all or a player's name", param_hint="--seat")


def _wait(prompt: str) -> bool:
    """Wait for Enter; False when the viewer typed q (quit). End of input stops waiting."""
    typer.echo(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        typer.echo("")
        return True
    return line.strip().lower() not in ("q", "quit")


def show_command(
    file: Annotated[Path, typer.Argument(help="The replay file (.p66).")],
    seat: Annotated[
        str, typer.Option("--seat", help="Whose view: 0, 1 (or a player's name), or all.")
    ] = "all",
    step: Annotated[
        bool, typer.Option("--step", help="Wait for Enter between tricks (q to stop).")
    ] = False,
    ascii_suits: Annotated[
        bool, typer.Option("--ascii", help="Suit letters C D H S instead of symbols.")
    ] = False,
) -> None:
    """Show the game as it happened, hand by hand and trick by trick."""
    verification = verify_file(file)
    viewer = _seat(seat, verification)
    chunks = show_chunks(verification, viewer, TextStyle(ascii=ascii_suits, color=False))
    for i, chunk in enumerate(chunks):
        for line in chunk.lines:
            typer.echo(line)
        pause = step and chunk.trick and i < len(chunks) - 1
        if pause and not _wait("-- Enter: next trick, q: stop -- "):
            break
    raise typer.Exit(verification.report.exit_code)


def export_command(
    file: Annotated[Path, typer.Argument(help="The replay file (.p66).")],
    fmt: Annotated[
        ExportFormat, typer.Option("--format", help="text (PGN-like) or json.")
    ] = ExportFormat.TEXT,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Export a verified game as readable text or as JSON for other tools."""
    verification = verify_file(file)
    report = verification.report
    if report.status in (Status.INVALID, Status.UNREADABLE):
        typer.echo(f"{file}: {report.headline()}", err=True)
        typer.echo("refusing to export a replay that does not verify", err=True)
        raise typer.Exit(report.exit_code)
    text = (
        export_text(verification)
        if fmt is ExportFormat.TEXT
        else _json(export_json(verification)) + "\n"
    )
    if output is None:
        typer.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            typer.echo(f"cannot write {output}: {exc.strerror or exc}", err=True)
            raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    """Add ``verify`` and the ``replay`` group (``show``, ``export``) to ``app``."""
    app.command("verify")(verify_command)
    replay = typer.Typer(
        name="replay",
        help="Watch or export replay files.",
        no_args_is_help=True,
        add_completion=False,
    )
    replay.command("show")(show_command)
    replay.command("export")(export_command)
    app.add_typer(replay, name="replay")
