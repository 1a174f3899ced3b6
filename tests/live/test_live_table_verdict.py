"""Each seat is told the verdict of the match as the verifier would tell it to that player:
"you win the match" at the winner's own seat, the winner's name at the others."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from dropkit import MemoryTable

from p2p66.replay.verify import verify_file


@pytest.mark.timeout(120)
def test_the_winner_is_you_at_its_own_seat_and_named_at_the_others(tmp_path: Path) -> None:
    async def main() -> None:
        table = await MemoryTable.seat("cut-throat", 3)
        ends = await table.play(tmp_path, target=2)
        report = verify_file(tmp_path / "p0.p66").report
        winner = report.winner
        assert winner is not None
        for end in ends:
            assert end.fault is None, end.fault
            if end.seat == winner:
                assert end.verdict.startswith("valid: you win the match"), end.verdict
            else:
                assert f"{report.name(winner)} wins the match" in end.verdict, end.verdict
                assert "you" not in end.verdict.split(";")[0]

    asyncio.run(main())
