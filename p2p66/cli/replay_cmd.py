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

from p2p66.cli.exits import VERIFY_HELP
from p2p66.cli.fork_cmd import FORK_HELP, fork_command
from p2p66.cli.output import reader_gone, say
from p2p66.net.identity import KnownPeers
from p2p66.replay.compare import compare, same_game
from p2p66.replay.export import export_json, export_text
from p2p66.replay.fork_report import FORK_SUFFIX, ForkStatus, beside, check_fork_at
from p2p66.replay.identities import load_pins, recognise_all
from p2p66.replay.report import REPORT_VERSION, Status
from p2p66.replay.show import Page, only_hand, pages, show_chunks
from p2p66.replay.verify import Verification, verify_file
from p2p66.ui.cards_text import TextStyle
from p2p66.ui.escape import printable_lines

FILES_FORMAT: Final = "p2p66-verify-reports"


class ExportFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


def _json(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def _player_lines(v: Verification, pins: KnownPeers | None) -> list[str]:
    return [
        f"{p.name} (seat {p.seat}, key {p.fingerprint}): {seen.describe()}"
        for p, seen in zip(v.report.players, recognise_all(v.report.players, pins), strict=True)
    ]


def _report_json(path: Path, v: Verification, pins: KnownPeers | None) -> dict[str, object]:
    """One file's report, with who its players are to you (``identities``, seat by seat)."""
    seen = recognise_all(v.report.players, pins)
    return {
        "file": str(path),
        **v.report.to_json(),
        "identities": [{"seat": r.seat, **r.to_json()} for r in seen],
    }


def verify_command(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Replay files (.p66) to check.")
    ] = None,
    fork: Annotated[
        Path | None,
        typer.Option(
            "--fork",
            help="Check this fork proof (two statements the accused signed that cannot both "
            "be true) without secrets.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a versioned JSON report instead of a summary.")
    ] = False,
    no_known_peers: Annotated[
        bool,
        typer.Option(
            "--no-known-peers",
            help="Do not mark players against your known_peers pins (for a third party).",
        ),
    ] = False,
) -> None:
    """Check replay files completely: framing, chain, signatures, shuffles, every move, scores
    (and a fork proof beside a replay, or one given with --fork)."""
    files = files or []
    if not files and fork is None:
        say("error: give the replay files to check, or --fork FILE", err=True)
        raise typer.Exit(2)
    results = [(path, verify_file(path)) for path in files]
    pins, why = (None, "") if no_known_peers else load_pins()
    if why:
        say(why, err=True)
    name_for = None if pins is None else pins.name_for_key
    given = None if fork is None else check_fork_at(fork, name_for=name_for)
    besides = {
        k: check_fork_at(beside(path, FORK_SUFFIX), players=v.report.players)
        for k, (path, v) in enumerate(results)
        if beside(path, FORK_SUFFIX).exists()
    }
    pairs = [
        (i, j, compare(results[i][1], results[j][1]))
        for i in range(len(results))
        for j in range(i + 1, len(results))
        if same_game(results[i][1], results[j][1])
    ]
    if as_json:
        say(
            _json(
                {
                    "format": FILES_FORMAT,
                    "version": REPORT_VERSION,
                    "reports": [
                        _report_json(path, v, pins)
                        | ({"fork": besides[k].to_json()} if k in besides else {})
                        for k, (path, v) in enumerate(results)
                    ],
                    **({"fork": given.to_json()} if given is not None else {}),
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
            at = next((i for i, line in enumerate(lines) if line.startswith("players: ")), None)
            if at is not None and not no_known_peers:
                lines[at : at + 1] = _player_lines(v, pins)
            lines += [c.describe(str(results[j][0])) for i, j, c in pairs if i == k]
            if k in besides:
                lines.append(f"{besides[k].path.name} beside it: {besides[k].text}")
            say(f"{path}: {lines[0]}")
            for line in lines[1:]:
                say(f"  {line}")
        if given is not None:
            say(f"{given.path}: {given.text}")
    codes = [v.report.exit_code for _, v in results]
    codes += [1 for check in besides.values() if check.status is ForkStatus.PROVEN]
    codes += [] if given is None else [given.status.code]
    raise typer.Exit(max(codes))


def _seat(text: str, verification: Verification) -> int | None:
    """A seat number (``0``, ``1``; up to ``3`` at a table), ``all`` or a player's name."""
    low = text.strip().lower()
    if low == "all":
        return None
    seats = [str(s) for s in range(max(2, len(verification.report.players)))]
    if low in seats:
        return int(low)
    for p in verification.report.players:
        if p.name.lower() == low:
            return p.seat
    raise typer.BadParameter(
        f"{text!r}: use {', '.join(seats)}, all or a player's name", param_hint="--seat"
    )


STEP_PROMPT: Final = "-- Enter: next, b: back, h N: hand N, q: stop -- "


def _ask(prompt: str) -> str | None:
    """The viewer's answer, lowercased; None at end of input (or once nobody is watching)."""
    if reader_gone():
        return None
    say(prompt, nl=False)
    line = sys.stdin.readline()
    if not line:
        say("")
        return None
    return line.strip().lower()


def _step_through(pages: list[Page]) -> None:
    """Show page after page; the viewer steps forward, back, or jumps to a hand."""
    at = 0
    while 0 <= at < len(pages):
        for line in pages[at].lines:
            say(line)
        if at == len(pages) - 1:
            return
        answer = _ask(STEP_PROMPT)
        if answer is None:  # end of input: show the rest without waiting
            for page in pages[at + 1 :]:
                for line in page.lines:
                    say(line)
            return
        if answer in ("q", "quit"):
            return
        if answer in ("b", "back", "p", "prev"):
            at = max(0, at - 1)
        elif answer.startswith("h") and answer[1:].strip().isdigit():
            number = int(answer[1:].strip())
            found = next((i for i, p in enumerate(pages) if p.hand == number), None)
            if found is None:
                say(f"(there is no hand {number} in this replay)")
            else:
                at = found
        else:
            at += 1


def show_command(
    file: Annotated[Path, typer.Argument(help="The replay file (.p66).")],
    seat: Annotated[
        str,
        typer.Option(
            "--seat", help="Whose view: a seat 0, 1 (0-3 at a table), a player's name, or all."
        ),
    ] = "all",
    step: Annotated[
        bool,
        typer.Option(
            "--step", help="Pause after each trick: Enter next, b back, h N hand N, q stop."
        ),
    ] = False,
    hand: Annotated[
        int | None, typer.Option("--hand", min=1, help="Show (or start stepping at) hand N.")
    ] = None,
    ascii_suits: Annotated[
        bool, typer.Option("--ascii", help="Only ASCII characters: suit letters C D H S.")
    ] = False,
) -> None:
    """Show the game as it happened, hand by hand and trick by trick; the verdict comes last."""
    verification = verify_file(file)
    viewer = _seat(seat, verification)
    chunks = show_chunks(verification, viewer, TextStyle(ascii=ascii_suits, color=False))
    if hand is not None:
        if not any(c.hand == hand for c in chunks):
            say(f"error: {file} has no hand {hand}", err=True)
            raise typer.Exit(2)
        if not step:
            chunks = only_hand(chunks, hand)
    book, verdict = pages(chunks)
    if step and hand is not None:
        first = next(i for i, p in enumerate(book) if p.hand == hand)
        book = book[first:]
    if step:
        _step_through(book)
    else:
        for page in book:
            for line in page.lines:
                say(line)
    if verdict is not None:
        for line in verdict.lines:
            say(line)
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
        say(f"{file}: {report.headline()}", err=True)
        say("refusing to export a replay that does not verify", err=True)
        raise typer.Exit(report.exit_code)
    text = (
        export_text(verification)
        if fmt is ExportFormat.TEXT
        else _json(export_json(verification)) + "\n"
    )
    if output is None:
        say(text, nl=False)
    else:
        try:
            output.write_text(printable_lines(text), encoding="utf-8")
        except OSError as exc:
            say(f"cannot write {output}: {exc.strerror or exc}", err=True)
            raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    """Add ``verify`` and the ``replay`` group (``show``, ``export``) to ``app``."""
    app.command("verify", epilog=VERIFY_HELP)(verify_command)
    replay = typer.Typer(
        name="replay",
        help="Watch or export replay files.",
        no_args_is_help=True,
        add_completion=False,
    )
    replay.command("show", epilog=VERIFY_HELP)(show_command)
    replay.command("export", epilog=VERIFY_HELP)(export_command)
    replay.command("fork", epilog=FORK_HELP)(fork_command)
    app.add_typer(replay, name="replay")
