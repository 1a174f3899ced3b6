"""A joiner whose receipts side file cannot be written is told once, and what it means."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

from p2p66.live.receiptlog import keeper
from p2p66.live.starwire import AckMessage
from p2p66.replay.receipts import ReceiptsHeader, ReceiptsWriter
from p2p66.session.headacks import make_head_ack

ROOT = Path(__file__).resolve().parents[2]
NS = runpy.run_path(str(ROOT / "scripts" / "regen_receipts_vectors.py"))
HOST, TABLE = NS["HOST"], NS["TABLE"]


def _ack(seq: int) -> bytes:
    receipt = make_head_ack(TABLE, 0, seq, b"h" * 32, HOST.sign)
    ack = make_head_ack(TABLE, 1, seq, b"h" * 32, HOST.sign, receipt=receipt.signature)
    return AckMessage(ack).encode()


def test_a_failing_side_file_is_told_once_with_what_it_costs(tmp_path: Path) -> None:
    writer = ReceiptsWriter(tmp_path / "m.receipts", ReceiptsHeader(TABLE, HOST.public_key, 1))
    told: list[str] = []
    on_reply = keeper(writer, told.append)
    on_reply(_ack(0))
    assert told == [] and writer.last == 0  # kept: nothing to say
    os.close(writer._fd)  # the disk goes away
    for seq in (1, 2, 3):
        on_reply(_ack(seq))
    assert len(told) == 1
    assert str(tmp_path / "m.receipts") in told[0]
    assert "replay fork" in told[0] and "match goes on" in told[0]


def test_a_first_match_keeps_receipts_though_its_replay_folder_is_not_made_yet(
    tmp_path: Path,
) -> None:
    """A new user's first table: the receipts file is opened before the replay's first
    write makes the replays folder, and must not be lost for that."""

    from dropkit import table_ids

    from p2p66.live.receiptlog import open_receipts_or_none, receipts_path
    from p2p66.net.lobby import Table
    from p2p66.net.seating import NONCE_SIZE, Seating

    ids = table_ids(3)
    seating = Seating(os.urandom(NONCE_SIZE), "cut-throat", tuple(i.public for i in ids))
    sigs = tuple(i.sign(seating.signing_input()) for i in ids)
    replay = tmp_path / "fresh-home" / "replays" / "m.p66"
    told: list[str] = []
    writer = open_receipts_or_none(Table(seating, sigs, 1, {}), replay, told.append)
    assert told == [] and writer is not None
    writer.close()
    assert receipts_path(replay).stat().st_size > 0
