"""What ``p2p66 verify`` says of a fork proof: on its own (``--fork FILE``) or beside a replay.

A proof stands for itself (two statements signed by one key for one table),
so ``--fork`` needs nothing else. Beside a replay (``<replay>.fork``) it must
also accuse a key that sits at that seat in the replay, and, when the
joiner's ``<replay>.receipts`` is there too, be about that file's table: the
replay itself carries no table id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Final

from p2p66.replay.fork import (
    ForkProofError,
    ForkProofUnreadable,
    ForkVerdict,
    check_fork_proof,
    read_fork_file,
)
from p2p66.replay.receipts import ReceiptsError, read_receipts
from p2p66.replay.report import Player

FORK_SUFFIX: Final = ".fork"
RECEIPTS_SUFFIX: Final = ".receipts"


class ForkStatus(Enum):
    """``verify --fork`` exits with ``code``: 0 proven, 1 proves nothing, 2 unreadable."""

    PROVEN = ("proven", 0)
    INVALID = ("invalid", 1)
    UNREADABLE = ("unreadable", 2)

    def __init__(self, label: str, code: int) -> None:
        self.label = label
        self.code = code


@dataclass(frozen=True, slots=True)
class ForkCheck:
    """The outcome of checking one proof file: ``text`` says what it proves or what is wrong."""

    path: Path
    status: ForkStatus
    text: str
    verdict: ForkVerdict | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": str(self.path), "status": self.status.label}
        if self.verdict is not None:
            v = self.verdict
            out |= {"seat": v.seat, "key": v.key.hex(), "position": v.position}
        return out | {"text": self.text}


def beside(replay: Path, suffix: str) -> Path:
    return replay.with_name(replay.name + suffix)


def check_fork_at(
    path: Path,
    *,
    players: tuple[Player, ...] = (),
    name_for: Callable[[bytes], str | None] | None = None,
) -> ForkCheck:
    """Check the proof in ``path``; with ``players`` (a replay's), it must accuse one of them.

    ``name_for`` names a key (your pins) when no replay names the accused.
    """
    table = None
    if players:
        table = _receipts_table(
            path.with_name(path.name.removesuffix(FORK_SUFFIX) + RECEIPTS_SUFFIX)
        )
    try:
        verdict = check_fork_proof(read_fork_file(path), expect_table=table)
    except ForkProofUnreadable as exc:
        return ForkCheck(path, ForkStatus.UNREADABLE, str(exc))
    except ForkProofError as exc:
        return ForkCheck(path, ForkStatus.INVALID, f"the fork proof proves nothing: {exc}")
    name = None if name_for is None else name_for(verdict.key)
    if players:
        seated = players[verdict.seat] if verdict.seat < len(players) else None
        if seated is None or seated.public_key != verdict.key:
            return ForkCheck(
                path,
                ForkStatus.INVALID,
                "the fork proof proves nothing about this replay: the key it accuses does "
                f"not sit at seat {verdict.seat} here (a proof from another match)",
                verdict,
            )
        name = seated.name
    return ForkCheck(path, ForkStatus.PROVEN, "fork proven: " + verdict.statement(name), verdict)


def _receipts_table(path: Path) -> bytes | None:
    """The table id in the joiner's receipts file beside the replay, if it can be read."""
    if not path.exists():
        return None
    try:
        return read_receipts(path).header.table
    except ReceiptsError:
        return None
