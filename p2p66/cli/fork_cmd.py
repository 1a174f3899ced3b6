"""``p2p66 replay fork A.receipts B.receipts``: prove, after the game, that a host forked.

Exit codes (``FORK_HELP``): 0 the two files agree (no fork); 4 a fork is proven
and the proof written; 1 the files cannot be compared (different matches, or
a receipt the host key does not sign: damaged or forged); 2 a file is
unreadable or not a receipts file, or the proof cannot be written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Final

import typer

from p2p66.cli.exits import EXIT_CHEAT
from p2p66.cli.output import say
from p2p66.replay.fork import ForkProof, check_fork_proof
from p2p66.replay.fork_report import FORK_SUFFIX, RECEIPTS_SUFFIX
from p2p66.replay.receipt_fork import ReceiptsMismatch, find_fork
from p2p66.replay.receipts import Receipts, ReceiptsError, read_receipts

FORK_HELP: Final = (
    "Exit codes: 0 the two files agree (no fork); 1 they cannot be compared (different "
    "matches, or a receipt not signed by the host: damaged or forged); 2 a file is unreadable "
    "or not a receipts file, or the proof cannot be written; 4 fork proven (the proof is "
    "written: check it with 'p2p66 verify --fork FILE')."
)


def default_out(first: Path) -> Path:
    """``game.p66.receipts`` -> ``game.p66.fork`` (where ``verify game.p66`` looks for it)."""
    return first.with_name(first.name.removesuffix(RECEIPTS_SUFFIX) + FORK_SUFFIX)


def _load(path: Path) -> Receipts:
    try:
        receipts = read_receipts(path)
    except ReceiptsError as exc:
        say(f"error: {path}: {exc}", err=True)
        raise typer.Exit(2) from None
    if receipts.torn is not None:
        say(f"{path}: {receipts.torn}; the entries before it are used", err=True)
    return receipts


def _write(out: Path, proof: ForkProof) -> None:
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        say(f"error: {out} exists; choose another place with --out", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        say(f"error: cannot write {out}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    with os.fdopen(fd, "wb") as stream:
        stream.write(proof.encode())


def fork_command(
    first: Annotated[Path, typer.Argument(help="One joiner's <replay>.receipts.")],
    second: Annotated[Path, typer.Argument(help="Another joiner's <replay>.receipts.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Where to write the proof (default: FIRST's .fork)."),
    ] = None,
) -> None:
    """Compare two joiners' receipts files: a fork proof if the host showed them different
    histories, else the position they agree up to."""
    a, b = _load(first), _load(second)
    try:
        found = find_fork(a, b, (str(first), str(second)))
    except ReceiptsMismatch as exc:
        say(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if not isinstance(found, ForkProof):
        say(found.describe())
        raise typer.Exit(0)
    target = out or default_out(first)
    _write(target, found)
    say(f"fork proven: {check_fork_proof(found.encode()).statement()}")
    say(f"proof written to {target} (check it with: p2p66 verify --fork {target})")
    raise typer.Exit(EXIT_CHEAT)
