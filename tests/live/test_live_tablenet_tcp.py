"""Whole matches of the games for three and four over real loopback TCP: lobby, star, session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from netseatkit import CONFIG, lobby

from p2p66.cli.table_bots import bot_chooser
from p2p66.live.tablenet import TableEnd, options_of, play_hosted, play_joined
from p2p66.net.identity import Identity
from p2p66.net.lobby import join_table
from p2p66.replay.fileio import read_replay
from p2p66.replay.receipt_fork import Agreement, find_fork
from p2p66.replay.receipts import read_receipts
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_records

BOT = "greedy"


def _match(
    preset: str,
    players: int,
    bot_seats: tuple[int, ...],
    folder: Path,
    host_replay: Path | None = None,
) -> list[TableEnd]:
    ids = [Identity.from_seed(f"p{i}", bytes([90 + i]) * 32) for i in range(players)]
    joiners = [s for s in range(1, players) if s not in bot_seats]

    async def main() -> list[TableEnd]:
        async with lobby(ids, preset, bot_seats, 200) as (code, hosting):
            joined = await asyncio.gather(
                *(join_table(code, ids[n], config=CONFIG) for n in joiners)
            )
            hosted = await hosting
            options = options_of(hosted)
            bots = {s: (ids[s], bot_chooser(BOT, s, options)) for s in bot_seats}
            plays = [
                play_hosted(
                    hosted, ids[0], bot_chooser(BOT, 0, options), bots,
                    replay=host_replay or folder / "p0.p66",
                    bot_replays={s: folder / f"p{s}.p66" for s in bot_seats}, target=2,
                ),
                *(
                    play_joined(t, ids[t.seat], bot_chooser(BOT, t.seat, options),
                                replay=folder / f"p{t.seat}.p66")
                    for t in joined
                ),
            ]  # fmt: skip
            results = await asyncio.gather(*plays)
            ends: list[TableEnd] = list(results[0])  # type: ignore[arg-type]
            ends += results[1:]  # type: ignore[arg-type]
            return ends

    return asyncio.run(main())


def _check_whole_match(ends: list[TableEnd], players: int, folder: Path) -> None:
    assert sorted(e.seat for e in ends) == list(range(players))
    for end in ends:
        assert end.fault is None, end.fault
    files = {(folder / f"p{s}.p66").read_bytes() for s in range(players)}
    assert len(files) == 1
    records = read_replay(folder / "p0.p66").records
    assert tuple(records) == ends[0].records
    report = verify_records(records).report
    assert report.status is Status.VALID, report.headline()


@pytest.mark.timeout(300)
def test_a_north_american_match_among_four_over_tcp_gives_every_seat_the_same_replay(
    tmp_path: Path,
) -> None:
    ends = _match("north-american", 4, (3,), tmp_path)
    _check_whole_match(ends, 4, tmp_path)


@pytest.mark.timeout(300)
def test_a_three_handed_match_among_three_over_tcp(tmp_path: Path) -> None:
    ends = _match("three-handed", 3, (), tmp_path)
    _check_whole_match(ends, 3, tmp_path)


@pytest.mark.timeout(300)
def test_a_cut_throat_match_among_three_over_tcp(tmp_path: Path) -> None:
    ends = _match("cut-throat", 3, (2,), tmp_path)
    _check_whole_match(ends, 3, tmp_path)


@pytest.mark.timeout(120)
def test_a_host_that_cannot_write_its_replay_stops_and_the_others_say_why(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    ends = _match("three-handed", 3, (2,), tmp_path, host_replay=tmp_path / "file" / "p0.p66")
    host, *others = ends
    assert host.replay_failed and host.fault is not None
    assert "could not be written" in host.fault
    for end in others:
        assert end.lost and end.culprit == 0, end


@pytest.mark.timeout(300)
def test_every_joiner_keeps_the_hosts_receipts_and_two_honest_files_agree(
    tmp_path: Path,
) -> None:
    ends = _match("cut-throat", 3, (), tmp_path)
    _check_whole_match(ends, 3, tmp_path)
    last = len(ends[0].records) - 1
    one, two = (read_receipts(tmp_path / f"p{s}.p66.receipts") for s in (1, 2))
    assert (one.header.seat, two.header.seat) == (1, 2)
    assert [r.seq for r in one.entries] == list(range(last + 1))
    found = find_fork(one, two)
    assert isinstance(found, Agreement) and found.upto == last
    assert not (tmp_path / "p0.p66.receipts").exists()  # the host signs receipts, keeps none
