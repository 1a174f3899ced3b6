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
    return ReceiptsWriter(receipts_path(replay), header, fsync=fsync)


def open_receipts_or_none(table: Table, replay: Path | None) -> ReceiptsWriter | None:
    """``open_receipts``, or None without a replay or when the side file cannot be created
    (the match is not stopped for it: the replay's own writer reports an unwritable place)."""
    if replay is None:
        return None
    try:
        return open_receipts(table, replay)
    except OSError:
        return None


def keeper(writer: ReceiptsWriter) -> Callable[[bytes], None]:
    """The ``on_reply`` callback: the host's receipt inside each acknowledgement we send."""

    def on_reply(data: bytes) -> None:
        try:
            message = decode_star_message(data)
        except StarWireError:  # we signed it ourselves: cannot happen
            return
        if isinstance(message, AckMessage):
            receipt = message.ack.host_receipt()
            if receipt is not None:
                writer.keep(receipt)

    return on_reply
