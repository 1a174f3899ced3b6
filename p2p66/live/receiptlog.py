"""A joiner keeps the host's receipts in ``<replay>.receipts`` as its star link signs them.

Every acknowledgement a joiner sends carries the host's receipt for the
same record; ``SpokeLink`` hands each one to ``on_reply`` before sending it,
and this keeps the receipt (format: ``p2p66.replay.receipts``), so a fork can
be proven after the game from two joiners' files (``p2p66 replay fork``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from p2p66.live.starwire import AckMessage, StarWireError, decode_star_message
from p2p66.net.lobby import Table
from p2p66.replay.receipts import ReceiptsHeader, ReceiptsWriter
from p2p66.session.headacks import HOST_SEAT


def receipts_path(replay: Path) -> Path:
    return replay.with_name(replay.name + ".receipts")


def open_receipts(table: Table, replay: Path, *, fsync: bool = True) -> ReceiptsWriter:
    """The side file of ``replay`` for this joiner's seat at ``table`` (created anew)."""
    header = ReceiptsHeader(table.table_id, table.seating.seats[HOST_SEAT].public_key, table.seat)
    replay.parent.mkdir(parents=True, exist_ok=True)  # a first match: nothing written there yet
    return ReceiptsWriter(receipts_path(replay), header, fsync=fsync)


Warn = Callable[[str], None]
"""Told, once, that the receipts cannot be kept (the person at the seat must know)."""


def receipts_lost(path: Path, why: str) -> str:
    """What a failed side file means for the person's evidence, in one sentence."""
    return (
        f"Warning: the host's receipts cannot be kept in {path} ({why}). The match goes on "
        "and your replay is complete, but without this file you cannot prove afterwards "
        "('p2p66 replay fork') that the host showed you different records than the others."
    )


def open_receipts_or_none(
    table: Table, replay: Path | None, warn: Warn | None = None
) -> ReceiptsWriter | None:
    """``open_receipts``, or None without a replay or when the side file cannot be created
    (the match is not stopped for it; ``warn`` is told what that means)."""
    if replay is None:
        return None
    try:
        return open_receipts(table, replay)
    except OSError as exc:
        if warn is not None:
            warn(receipts_lost(receipts_path(replay), exc.strerror or str(exc)))
        return None


def keeper(writer: ReceiptsWriter, warn: Warn | None = None) -> Callable[[bytes], None]:
    """The ``on_reply`` callback: the host's receipt inside each acknowledgement we send;
    ``warn`` is told once if the side file stops (``ReceiptsWriter.failed``)."""
    told = False

    def on_reply(data: bytes) -> None:
        nonlocal told
        try:
            message = decode_star_message(data)
        except StarWireError:  # we signed it ourselves: cannot happen
            return
        if isinstance(message, AckMessage):
            receipt = message.ack.host_receipt()
            if receipt is not None:
                writer.keep(receipt)
        if writer.failed is not None and not told and warn is not None:
            told = True
            warn(receipts_lost(writer.path, writer.failed))

    return on_reply
