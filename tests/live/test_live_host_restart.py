"""A table's host killed mid-hand and restarted from its resume files, in memory.

Four seats: the host, a bot in the host's process (seat 1), two joiners over
memory channels that redial. The host dies at its third move (its links cut,
its task cancelled through every ``finally``: nothing but the files is left),
the joiners cannot reach it for a while, then a new hub, host peer and bot
peer are rebuilt from the files alone; the joiners come back through the
ordinary resynchronisation and the match is played to the end, every replay
the same bytes and valid.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from dropkit import BOT, MemoryTable
from starkit import Star

from p2p66.cli.table_bots import bot_chooser
from p2p66.live.hostresume import (
    BotSeat,
    HostMatch,
    host_match_kept,
    reconcile,
    restart_hosted,
    start_hosted,
)
from p2p66.live.resume import ResumeError, resume_path
from p2p66.live.star import StarHub
from p2p66.live.starwire import RecordMessage
from p2p66.live.tablenet import Chooser, Dropouts, TableEnd, options_of, play_hosted, play_joined
from p2p66.replay.fileio import ReplayWriter
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_file
from p2p66.session.errors import LocalProtocolError
from p2p66.session.peer import Peer
from p2p66.session.records import make_record

GRACE = 30.0


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


async def _seat() -> tuple[MemoryTable, HostMatch]:
    table = await MemoryTable.seat("north-american", 4)
    table.host = replace(table.host, bots={1: table.joiners.pop(1)})  # seat 1: the host's bot
    host = table.host
    match = HostMatch(
        host.seating, host.signatures, "127.0.0.1", 0, "", BOT, 7, 2,
        (BotSeat.of(1, table.ids[1]),),
    )  # fmt: skip
    return table, match


def _dying(table: MemoryTable, inner: Chooser, at: int, died: asyncio.Event) -> Chooser:
    """The host's bot, whose process dies when it is asked for its move number ``at``."""
    count = 0

    async def choose(peer: Peer) -> int | str:
        nonlocal count
        count += 1
        if count == at:
            table.refuse_redial.update(table.joiners)  # nobody listens any more
            for seat in table.joiners:
                table.cut(seat)
            died.set()
            await asyncio.Event().wait()  # the process is gone: no move, ever
        return await inner(peer)

    return choose


async def _kill_and_restart(
    folder: Path, *, away: frozenset[int] = frozenset(), grace: float = GRACE,
    joiner_grace: float = GRACE,
) -> tuple[list[TableEnd], int]:  # fmt: skip
    """Seat the table, kill the host at its third move, restart it from its files (the
    joiners in ``away`` never reach it again); every seat's end and the chain length the
    dead host had kept."""
    replay = folder / "p0.p66"
    table, match = await _seat()
    match = HostMatch(**{**_fields(match), "replay": str(replay)})
    ids = table.ids
    options = options_of(table.host, 2)
    bots = {1: (ids[1], bot_chooser(BOT, 71, options))}
    made, files = start_hosted(table.host, ids[0], {1: ids[1]}, match)
    died = asyncio.Event()
    host_bot = bot_chooser(BOT, 70, options)
    first = asyncio.create_task(
        play_hosted(
            table.host, ids[0], _dying(table, host_bot, 3, died), bots, replay=replay,
            target=2, dropouts=Dropouts(grace, rejoins=table.rejoins.get), made=made,
        )
    )  # fmt: skip
    joiners = [
        asyncio.create_task(
            play_joined(
                t, ids[s], table.chooser(s), replay=folder / f"p{s}.p66",
                dropouts=Dropouts(joiner_grace, redial=table.redial(s)),
            )
        )
        for s, t in sorted(table.joiners.items())
    ]  # fmt: skip
    await asyncio.wait_for(died.wait(), 60)
    while not first.done():  # killed: every finally cut short
        first.cancel()
        await asyncio.sleep(0)
    files.close()
    assert host_match_kept()
    kept = len(ReplayWriter(resume_path("table-host", "chain")).records)
    await asyncio.sleep(0.5)  # the joiners redial into nothing meanwhile
    table.refuse_redial.intersection_update(away)
    loaded = HostMatch.load()
    assert loaded == match
    restarted = await restart_hosted(loaded, ids[0], table.rejoins.put_nowait, grace)
    assert restarted.seats.chain is not None and len(restarted.seats.chain) >= kept
    again = play_hosted(
        restarted.table, ids[0], host_bot, bots, replay=replay, target=2,
        dropouts=Dropouts(grace, rejoins=table.rejoins.get), made=restarted.seats,
    )  # fmt: skip
    async with asyncio.timeout(120):
        host_ends = await again
        ends = [host_ends[0], *await asyncio.gather(*joiners)]
    restarted.files.close()
    return ends, kept


def test_a_killed_host_is_rebuilt_from_its_files_and_the_match_completes(
    home: Path, tmp_path: Path
) -> None:
    ends, kept = asyncio.run(_kill_and_restart(tmp_path))
    assert kept > 0
    for end in ends:
        assert end.fault is None, (end.seat, end.fault)
    replays = [tmp_path / f"p{s}.p66" for s in (0, 2, 3)]
    assert len({path.read_bytes() for path in replays}) == 1
    report = verify_file(replays[0]).report
    assert report.status is Status.VALID, report.headline()
    receipts = tmp_path / "p0.p66.seat1.receipts"
    assert receipts.stat().st_size > 0  # the bot seat kept the host's receipts too


def test_a_joiner_that_never_comes_back_to_the_restarted_host_abandoned_the_match(
    home: Path, tmp_path: Path
) -> None:
    ends, _ = asyncio.run(
        _kill_and_restart(tmp_path, away=frozenset({3}), grace=1.5, joiner_grace=4.0)
    )
    host, back, gone = ends
    for end in (host, back):
        assert end.lost and end.culprit == 3, (end.seat, end.fault)
        assert "abandoned by seat 3" in (end.fault or "")
    assert gone.lost and gone.culprit == 0, gone.fault  # it never reached the host again
    replays = [tmp_path / f"p{s}.p66" for s in (0, 2)]
    assert len({path.read_bytes() for path in replays}) == 1
    report = verify_file(replays[0]).report
    assert report.status is Status.VALID, report.headline()
    assert "abandoned by seat 3 (p3)" in report.headline(), report.headline()


def _fields(match: HostMatch) -> dict[str, object]:
    return {name: getattr(match, name) for name in match.__slots__}


def test_the_host_match_file_round_trips_and_refuses_a_forged_bot_key(home: Path) -> None:
    _, match = asyncio.run(_seat())
    match.save()
    assert HostMatch.load() == match
    forged = HostMatch(**{**_fields(match), "bots": (BotSeat(1, "greedy-1", bytes(32)),)})
    forged.save()
    with pytest.raises(ResumeError, match="damaged"):
        HostMatch.load()


def test_restart_says_what_is_missing(home: Path, tmp_path: Path) -> None:
    table, match = asyncio.run(_seat())
    match = HostMatch(**{**_fields(match), "replay": str(tmp_path / "r.p66")})

    async def restart() -> object:
        return await restart_hosted(match, table.ids[0], lambda channel: None, 1.0)

    with pytest.raises(ResumeError, match="chain is lost"):
        asyncio.run(restart())
    start_hosted(table.host, table.ids[0], {1: table.ids[1]}, match)[1].close()
    with pytest.raises(ResumeError, match=r"replay .* is missing"):
        asyncio.run(restart())


def _star_played() -> Star:
    star = Star.of(3)
    star.host_writes(star.record(0, b"hello"))
    star.flush()
    star.joiner_writes(star.record(1, b"one"))
    star.flush()
    star.joiner_writes(star.record(2, b"two"))
    star.flush()
    return star


def test_the_chain_file_wins_over_the_replay(tmp_path: Path) -> None:
    """What the replay lacks of the chain is added; what contradicts it is void; records of
    ours written but not yet kept by the hub stay, to be kept now."""
    star = _star_played()
    chain = list(star.hub.records)
    ours = star.record(0, b"ours")
    other = make_record(2, chain[1].digest, 0, b"crossed", star.ids[0].sign)
    cases = {
        "behind": (chain[:1], (chain, [])),
        "ahead": ([*chain, ours], ([*chain, ours], [ours])),
        "crossed": ([*chain[:2], other], (chain, [])),
    }
    for name, (written, expected) in cases.items():
        replay = ReplayWriter(tmp_path / f"{name}.p66", fsync=False)
        for record in written:
            replay.append(record)
        assert reconcile(chain, replay) == expected, name
        assert [r.digest for r in replay.records] == [r.digest for r in expected[0]], name


def test_a_restored_hub_signs_the_same_receipts_and_relays_no_old_acknowledgement() -> None:
    star = _star_played()
    again = StarHub(star.seats, star.ids[0].sign)
    again.restore(star.hub.records)
    assert again.receipts == star.hub.receipts
    assert again.acked == {1: -1, 2: -1}
    spoke = star.spokes[1]
    request = spoke.resume_request()
    reply, *catch_up = again.catch_up(1, request)
    assert catch_up == []  # it holds every record
    resent = spoke.resumed(reply)  # the host holds no acknowledgement of ours: sent again
    assert len(resent) == 1
    record, relayed = again.receive(1, resent[0])
    assert record is None and relayed == []  # the others may hold it from the dead hub
    assert again.acked[1] == star.hub.chain.next_seq - 1
    new = make_record(again.chain.next_seq, again.chain.head, 2, b"three", star.ids[2].sign)
    _, out = again.receive(2, RecordMessage(new).encode())
    assert {seat for seat, _ in out} == {1, 2}
    ack = spoke.receive(next(data for seat, data in out if seat == 1)).reply
    assert ack is not None
    assert [seat for seat, _ in again.receive(1, ack)[1]] == [2]  # a new one is passed on


def test_a_restored_hub_refuses_a_chain_it_did_not_sign_for() -> None:
    star = _star_played()
    forged = list(star.hub.records)
    forged[1] = make_record(1, forged[0].digest, 1, b"one", star.ids[2].sign)
    with pytest.raises(LocalProtocolError, match="not signed by its seat"):
        StarHub(star.seats, star.ids[0].sign).restore(forged)


def test_host_resume_refuses_without_a_match_or_with_another_identity(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2p66.cli.exits import EXIT_USAGE
    from p2p66.cli.table_cmd import TablePlayer, host_table_resume

    player = TablePlayer("greedy", 0, grace=1)
    assert asyncio.run(host_table_resume("hana", player)) == EXIT_USAGE
    assert "there is no table match to resume" in capsys.readouterr().err
    _, match = asyncio.run(_seat())
    match.save()
    assert asyncio.run(host_table_resume("hana", player)) == EXIT_USAGE  # a fresh identity
    assert "is not the host (seat 0) of that table" in capsys.readouterr().err
    assert host_match_kept()  # refused, not forgotten


def test_host_resume_of_a_table_is_taken_before_the_two_player_one(
    monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    from typer.testing import CliRunner

    from p2p66.cli import net_cmd
    from p2p66.cli.app import app

    seen: list[str | None] = []

    async def resume(name: str | None, player: object) -> int:
        seen.append(name)
        return 0

    monkeypatch.setattr(net_cmd, "host_table_resume", resume)
    _, match = asyncio.run(_seat())
    match.save()
    result = CliRunner().invoke(app, ["host", "--resume", "--name", "hana", "--plain"])
    assert result.exit_code == 0, result.output
    assert seen == ["hana"]
    result = CliRunner().invoke(app, ["host", "--resume", "--bot-seats", "1"])
    assert result.exit_code != 0 and "keeps its bot seats" in result.output
