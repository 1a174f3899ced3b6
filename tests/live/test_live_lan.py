"""Joining without a code: the games found on the LAN become a code with the host's words."""

from __future__ import annotations

import asyncio

import pytest

from p2p66.cli import net_cmd
from p2p66.net import Game, parse_join_code


def test_lan_pick_builds_a_join_code(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game("alice._p2p66._tcp.local.", "alice", ("127.0.0.1",), 6677, "1", "ab-cd", "vu")

    async def found(timeout: float = 3.0) -> list[Game]:
        return [game]

    monkeypatch.setattr(net_cmd, "browse", found)
    monkeypatch.setattr(net_cmd.typer, "prompt", lambda *a, **k: "fox-lamp-river")
    code = asyncio.run(net_cmd._pick_lan_game())
    assert code is not None
    parsed = parse_join_code(code)
    assert (parsed.host, parsed.port, parsed.words) == ("127.0.0.1", 6677, ("fox", "lamp", "river"))


def test_lan_pick_with_nothing_found(monkeypatch: pytest.MonkeyPatch) -> None:
    async def none(timeout: float = 3.0) -> list[Game]:
        return []

    monkeypatch.setattr(net_cmd, "browse", none)
    assert asyncio.run(net_cmd._pick_lan_game()) is None
