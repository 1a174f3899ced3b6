"""Helpers for N-party session tests: a table of peers, bot choosers, cheating links."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence

from p2p66.bots.table import make_table_bot
from p2p66.crypto.messages import HandPayload, KeyReveal, decode_payload
from p2p66.engine.table import TableView, table_options
from p2p66.session import messages as msg
from p2p66.session.peer import Peer
from p2p66.session.records import Record, make_record
from p2p66.session.tablegame import TableSeatView
from p2p66.session.tableplay import TableChooser, Tap
from tests.session.sessionkit import rng_from, signer

PRESETS = ("three-handed", "north-american", "south-bend", "cut-throat")


def table_peers(
    preset: str, soundness: int = 0, seed: int = 1, target: int | None = 2
) -> list[Peer]:
    """One peer per seat; seat 0 hosts. ``target``: a short match for tests (None: the preset's)."""
    options = table_options(preset, {} if target is None else {"match_target": target})
    n = options.players
    return [
        Peer(
            s,
            signer(f"player{s}", s + 1),
            options=options if s == 0 else None,
            soundness=soundness,
            rng=rng_from(seed * 10 + s),
            seats=n,
        )
        for s in range(n)
    ]


def choosers(peers: Sequence[Peer], seed: int = 1, bot: str = "expert") -> list[TableChooser]:
    """Table bots for the bidding games; random legal moves for three-handed hands."""
    r = random.Random(seed)
    bots = [make_table_bot(bot, seed * 10 + p.seat) for p in peers]

    def chooser(seat: int) -> TableChooser:
        def choose(view: TableSeatView) -> int:
            if isinstance(view, TableView):
                return bots[seat].choose(view)
            assert view.hand is not None
            return r.choice(view.hand.legal).code

        return choose

    return [chooser(p.seat) for p in peers]


def resign(record: Record, body: msg.Message | bytes) -> Record:
    """``record`` with another body, signed again by its author (a cheater signs its lies)."""
    data = body if isinstance(body, bytes) else msg.encode(body)
    key = signer("x", record.author + 1)
    return make_record(record.seq, record.prev, record.author, data, key.sign)


def payloads_of(body: msg.Message) -> list[HandPayload]:
    if isinstance(body, msg.Deal):
        return [decode_payload(p) for p in body.data["payloads"]]
    if isinstance(body, msg.Move | msg.Keys) and "payload" in body.data:
        return [decode_payload(body.data["payload"])]
    return []


def with_payloads(body: msg.Message, payloads: list[HandPayload]) -> msg.Message:
    wire = [p.to_wire() for p in payloads]
    if isinstance(body, msg.Deal):
        return dataclasses.replace(body, data={"payloads": wire})
    assert isinstance(body, msg.Move | msg.Keys)
    return dataclasses.replace(body, data={"payload": wire[0]})


Change = Callable[[msg.Message], msg.Message | None]
"""A cheat: the altered message, or None to leave this one alone."""


class CheatTap:
    """The link of ``cheater``: the first of its records ``change`` alters goes out altered
    (``cheater`` None: whoever first sends such a record is the cheater)."""

    def __init__(self, cheater: int | None, change: Change) -> None:
        self.cheater = cheater
        self.change = change
        self.sent: Record | None = None

    def __call__(self, sender: int, record: Record) -> Sequence[bytes]:
        if self.sent is not None or self.cheater not in (None, sender):
            return [record.encode()]
        altered = self.change(msg.decode(record.body))
        if altered is None:
            return [record.encode()]
        self.cheater = sender
        self.sent = resign(record, altered)
        return [self.sent.encode()]


def change_reveals(
    pick: Callable[[msg.Message, KeyReveal], KeyReveal | None],
) -> Change:
    """A cheat on the first key payload ``pick`` alters."""

    def change(body: msg.Message) -> msg.Message | None:
        payloads = payloads_of(body)
        for i, payload in enumerate(payloads):
            if isinstance(payload, KeyReveal):
                altered = pick(body, payload)
                if altered is not None:
                    payloads[i] = altered
                    return with_payloads(body, payloads)
        return None

    return change


def drop_from(seat: int, when: Callable[[msg.Message], bool]) -> Tap:
    """``seat`` goes silent at the first record ``when`` picks: it and all later ones are lost."""
    silent = [False]

    def tap(sender: int, record: Record) -> Sequence[bytes]:
        if sender == seat and (silent[0] or when(msg.decode(record.body))):
            silent[0] = True
            return []
        return [record.encode()]

    return tap
