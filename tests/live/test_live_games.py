"""Live matches over real loopback TCP: play, host/join, drops that resume, bad peers."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import msgpack
import pytest
from livekit import CuttableProxy, LoopbackMatch

from p2p66.engine import PlayerView, preset
from p2p66.live.game import LiveGame, LiveGameError
from p2p66.live.loopback import loopback_table, seeded_rng, signer_of
from p2p66.live.table import bot_decider
from p2p66.net import Identity, KnownPeers, Listener, join, join_known
from p2p66.net.channel import ChannelConfig, SecureChannel
from p2p66.replay.fileio import read_replay
from p2p66.session.machine import Machine
from p2p66.session.peer import Peer
from p2p66.session.records import Record
from p2p66.ui.bots import make_table_bot
from p2p66.ui.launch import PlaySettings
from p2p66.ui.table import MatchOver, MovePlayed, Notice, PeerError, ViewChanged, automatic

REPO = Path(__file__).resolve().parents[2]
FAST = ChannelConfig(heartbeat_interval=0.2, idle_timeout=5.0)


def verify_records(records: tuple[Record, ...] | list[Record]) -> Machine:
    """Run the third-party verifier machine over records (raises on anything wrong)."""
    machine = Machine()
    for record in records:
        machine.receive(record)
    return machine


@pytest.mark.timeout(60)
def test_play_against_a_bot_over_loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "home"))
    settings = PlaySettings(preset("sixty-six").with_options(match_target=3), "random", 7, "ann", 0)

    async def main() -> tuple[list[object], Path]:
        seen: list[object] = []
        async with loopback_table(
            settings, soundness=0, replay_dir=tmp_path / "r", deterministic=True, verify=None
        ) as table:
            while True:
                event = await asyncio.wait_for(table.next_event(), 20)
                seen.append(event)
                view = getattr(event, "view", None)
                # each position is told once; the table plays the automatic ones itself
                if view is not None and view.my_turn and automatic(view) is None:
                    await table.submit(view.legal[0].code)
                if isinstance(event, MatchOver):
                    break
        return seen, next((tmp_path / "r").glob("*.p66"))

    seen, path = asyncio.run(main())
    assert not [e for e in seen if isinstance(e, PeerError)]
    views = [e.view for e in seen if isinstance(e, MovePlayed | ViewChanged)]
    assert all(a != b for a, b in itertools.pairwise(views)), "a position told twice"
    over = seen[-1]
    assert isinstance(over, MatchOver) and over.winner is not None
    machine = verify_records(read_replay(path).records)
    assert machine.match is not None and machine.match.game_points == over.game_points


@pytest.mark.timeout(60)
def test_leaving_early_says_where_the_replay_so_far_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path / "home"))
    settings = PlaySettings(preset("sixty-six"), "random", 7, "ann", 0)

    async def main() -> list[object]:
        seen: list[object] = []
        async with loopback_table(
            settings, soundness=0, replay_dir=tmp_path / "r", deterministic=True
        ) as table:
            while not getattr(await asyncio.wait_for(table.next_event(), 20), "view", None):
                pass
            await table.close()  # the player leaves at the first position told
            while not (seen and isinstance(seen[-1], MatchOver)):
                seen.append(await asyncio.wait_for(table.next_event(), 20))
        return seen

    seen = asyncio.run(main())
    notices = [e.text for e in seen if isinstance(e, Notice)]
    path = next((tmp_path / "r").glob("*.p66"))
    # leaving is a signed resignation: the replay ends with it, the bot wins
    assert any(f"Replay saved to {path}" in n and "you resigned" in n for n in notices), notices
    assert isinstance(seen[-1], MatchOver) and seen[-1].winner == 1


async def _hosted_pair(
    tmp_path: Path, soundness: int, drop_after: int | None
) -> tuple[LiveGame, LiveGame]:
    """A host and a joiner LiveGame over TCP (through a relay that may cut the line once)."""
    options = preset("schnapsen").with_options(match_target=2)
    alice, bob = Identity.from_seed("alice", b"a" * 32), Identity.from_seed("bob", b"b" * 32)
    pins_a = KnownPeers.load(tmp_path / "a")
    pins_b = KnownPeers.load(tmp_path / "b")
    listener = await Listener.open(
        alice, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0,
        known_peers=pins_a, config=FAST,
    )  # fmt: skip
    proxy = CuttableProxy(listener.port)
    proxy_port = await proxy.start()
    code = f"fox-lamp-river@127.0.0.1:{proxy_port}"
    host = Peer(0, signer_of(alice), options=options, soundness=soundness, rng=seeded_rng(1, 0))
    guest = Peer(1, signer_of(bob), rng=seeded_rng(1, 1))
    bots = (make_table_bot("random", 1, options), make_table_bot("random", 2, options))
    moves = 0
    host_decide = bot_decider(host, bots[0])

    async def decide_and_maybe_cut(view: PlayerView) -> int:
        nonlocal moves
        moves += 1
        if moves == drop_after:
            proxy.cut()
            await asyncio.sleep(0.1)
        return await host_decide(view)

    async def reaccept() -> SecureChannel:
        return await listener.accept()

    async def rejoin() -> SecureChannel:
        return await join_known("127.0.0.1", proxy_port, bob, pins_b, config=FAST)

    host_game = LiveGame(host, decide_and_maybe_cut, reconnect=reaccept, grace=10)
    guest_game = LiveGame(guest, bot_decider(guest, bots[1]), reconnect=rejoin, grace=10)

    async def run_guest() -> None:
        await guest_game.run(await join(code, bob, known_peers=pins_b, config=FAST))

    guest_task = asyncio.create_task(run_guest())
    try:
        await host_game.run(await listener.accept(timeout=10))
        await asyncio.wait_for(guest_task, 20)
    finally:
        guest_task.cancel()
        proxy.close()
        listener.close()
    return host_game, guest_game


async def _one_leaves_while_the_other_thinks(tmp_path: Path) -> tuple[LiveGameError, float]:
    """Over TCP, the first player to be asked for a move thinks; the other leaves meanwhile."""
    options = preset("schnapsen").with_options(match_target=2)
    alice, bob = Identity.from_seed("alice", b"a" * 32), Identity.from_seed("bob", b"b" * 32)
    listener = await Listener.open(
        alice, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0,
        known_peers=KnownPeers.load(tmp_path / "a"), config=FAST,
    )  # fmt: skip
    code = f"fox-lamp-river@127.0.0.1:{listener.port}"
    peers = (
        Peer(0, signer_of(alice), options=options, soundness=0, rng=seeded_rng(1, 0)),
        Peer(1, signer_of(bob), rng=seeded_rng(1, 1)),
    )
    thinking: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def thinker(seat: int) -> Callable[[PlayerView], Awaitable[int]]:
        async def decide(view: PlayerView) -> int:
            if not thinking.done():
                thinking.set_result(seat)
            await asyncio.Event().wait()  # a player who takes their time
            raise AssertionError("unreachable")

        return decide

    games = [LiveGame(peer, thinker(peer.seat)) for peer in peers]

    async def play(seat: int, opening: Awaitable[SecureChannel]) -> None:
        await games[seat].run(await opening)

    tasks = [
        asyncio.create_task(play(0, listener.accept(timeout=10))),
        asyncio.create_task(
            play(1, join(code, bob, known_peers=KnownPeers.load(tmp_path / "b"), config=FAST))
        ),
    ]
    try:
        seat = await asyncio.wait_for(thinking, 20)
        other = games[1 - seat]
        assert other.channel is not None
        left = asyncio.get_running_loop().time()
        other.channel.close("they chose to leave")
        with pytest.raises(LiveGameError) as caught:
            await asyncio.wait_for(tasks[seat], 4)  # well before the 5 s idle timeout
        return caught.value, asyncio.get_running_loop().time() - left
    finally:
        for task in tasks:
            task.cancel()
        listener.close()


@pytest.mark.timeout(30)
def test_the_player_to_move_is_told_at_once_when_the_other_leaves(tmp_path: Path) -> None:
    exc, seconds = asyncio.run(_one_leaves_while_the_other_thinks(tmp_path))
    assert str(exc) == "the other player left the match (they chose to leave)"
    assert exc.kind == "closed" and exc.culprit is None
    assert seconds < 1.0


@pytest.mark.timeout(60)
def test_two_peers_over_tcp_end_with_identical_records(tmp_path: Path) -> None:
    host, guest = asyncio.run(_hosted_pair(tmp_path, soundness=8, drop_after=None))
    assert host.records == guest.records
    assert host.peer.machine.over and guest.peer.machine.over
    verify_records(host.records)


@pytest.mark.timeout(60)
def test_a_dropped_connection_resumes(tmp_path: Path) -> None:
    host, guest = asyncio.run(_hosted_pair(tmp_path, soundness=0, drop_after=3))
    assert host.resumes + guest.resumes >= 1
    assert host.records == guest.records
    machine = verify_records(host.records)
    assert machine.match is not None and machine.match.winner is not None


async def _victim_and_raw_cheater(
    tmp_path: Path, payload: bytes | None, wait_limit: float | None = None
) -> LiveGameError:
    """A host LiveGame facing a joiner that sends ``payload`` (or nothing) instead of its hello."""
    alice, mallory = Identity.from_seed("alice", b"a" * 32), Identity.from_seed("mal", b"m" * 32)
    listener = await Listener.open(
        alice, words=("fox", "lamp", "river"), bind="127.0.0.1", port=0, config=FAST
    )
    code = listener.join_code("127.0.0.1")
    host = Peer(0, signer_of(alice), options=preset("sixty-six"), soundness=0)
    from p2p66.replay.fileio import ReplayWriter

    writer = ReplayWriter(tmp_path / "victim.p66", fsync=False)

    async def never(view: PlayerView) -> int:
        raise AssertionError("no move expected")

    game = LiveGame(host, never, writer=writer, wait_limit=wait_limit)

    async def cheat() -> None:
        channel = await join(code, mallory, config=FAST)
        await channel.recv()  # the host's hello
        if payload is not None:
            await channel.send(payload)
        await asyncio.sleep(1.5)

    task = asyncio.create_task(cheat())
    try:
        await game.run(await listener.accept(timeout=10))
    except LiveGameError as exc:
        return exc
    finally:
        await task
        listener.close()
        writer.close()
    raise AssertionError("the cheater was not caught")


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("payload", "kind", "text"),
    [
        (b"\x00garbage", "protocol", "malformed record"),
        (msgpack.packb([1, b"x" * 32, 1, b"\xc1", b"s" * 64]), "cheating", "does not chain"),
    ],
)
def test_a_peer_sending_garbage_is_named_and_the_replay_kept(
    tmp_path: Path, payload: bytes, kind: str, text: str
) -> None:
    exc = asyncio.run(_victim_and_raw_cheater(tmp_path, payload))
    assert exc.kind == kind and text in str(exc) and exc.culprit == 1
    kept = read_replay(tmp_path / "victim.p66")
    assert kept.records and kept.records[0].author == 0  # the host's hello survived


@pytest.mark.timeout(30)
def test_a_silent_peer_times_out_and_is_named(tmp_path: Path) -> None:
    exc = asyncio.run(_victim_and_raw_cheater(tmp_path, None, wait_limit=0.5))
    assert exc.kind == "timeout" and exc.culprit == 1
    assert "waiting on player 1" in str(exc)
    assert read_replay(tmp_path / "victim.p66").records


def host_then_join(
    tmp_path: Path,
    host_args: list[str],
    join_args: list[str],
    *,
    typed: str | None = None,
    code_of: Callable[[str], str] = lambda code: code,
) -> tuple[subprocess.CompletedProcess[str], int, str]:
    """``p2p66 host`` in the background, then ``p2p66 join CODE``: joiner, host exit code, host log.

    ``typed`` is what the joiner's player types (through a pipe); ``code_of`` may garble the code.
    """
    cmd = [sys.executable, "-m", "p2p66.cli.app"]
    host = subprocess.Popen(
        [*cmd, "host", "--port", "0", "--bind", "127.0.0.1", *host_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "P2P66_HOME": str(tmp_path / "h")},
    )  # fmt: skip
    try:
        assert host.stdout is not None
        code = host.stdout.readline().strip()
        assert "@127.0.0.1:" in code, host.stderr.read() if host.stderr else ""
        joined = subprocess.run(
            [*cmd, "join", code_of(code), *join_args], input=typed,
            check=False, capture_output=True, text=True, timeout=60,
            env={**os.environ, "P2P66_HOME": str(tmp_path / "j")},
        )  # fmt: skip
        _, host_err = host.communicate(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
    return joined, host.returncode, host_err


@pytest.mark.timeout(90)
def test_host_and_join_commands_play_a_match(tmp_path: Path) -> None:
    joined, host_code, host_err = host_then_join(
        tmp_path,
        ["--bot", "random", "--target", "2", "--soundness", "0", "--name", "hosty",
         "--replay-dir", str(tmp_path / "hr"), "--wait", "30"],
        ["--bot", "expert", "--name", "joiny", "--replay-dir", str(tmp_path / "jr")],
    )  # fmt: skip
    assert joined.returncode == 0, joined.stderr
    assert host_code == 0, host_err
    assert "match over" in joined.stderr and "match over" in host_err
    (h_file,) = (tmp_path / "hr").glob("*.p66")
    (j_file,) = (tmp_path / "jr").glob("*.p66")
    assert h_file.read_bytes() == j_file.read_bytes()
    verify_records(read_replay(h_file).records)


def _garbled(code: str) -> str:
    words, address = code.split("@")
    w = words.split("-")
    return "-".join([w[1], w[2], w[0]]) + "@" + address


@pytest.mark.timeout(60)
def test_wrong_join_code_fails_cleanly(tmp_path: Path) -> None:
    joined, host_code, host_err = host_then_join(
        tmp_path,
        ["--bot", "random", "--wait", "5", "--once"],
        ["--bot", "random"],
        code_of=_garbled,
    )
    assert joined.returncode == 3
    assert "cannot join" in joined.stderr
    assert host_code == 3 and "nobody joined" in host_err


@pytest.mark.timeout(30)
def test_a_full_disk_stops_the_match_and_keeps_the_replay(tmp_path: Path) -> None:
    from p2p66.replay.fileio import ReplayWriteError, ReplayWriter

    class FullAfter(ReplayWriter):
        """A replay writer whose disk fills up after a few records."""

        def append(self, record: Record) -> None:
            if len(self.records) >= 5:
                raise ReplayWriteError(28, "the disk is full: cannot write the replay")
            super().append(record)

    async def main() -> LiveGameError:
        match = await LoopbackMatch.open(3, FAST)
        bots = (
            make_table_bot("random", 1, match.options),
            make_table_bot("random", 2, match.options),
        )
        writer = FullAfter(tmp_path / "full.p66", fsync=False)
        host_game = LiveGame(match.host, bot_decider(match.host, bots[0]), writer=writer)
        guest_game = LiveGame(match.guest, bot_decider(match.guest, bots[1]))
        try:
            return await match.until_the_host_stops(host_game, guest_game, quiet_guest=True)
        finally:
            writer.close()

    exc = asyncio.run(main())
    assert exc.kind == "replay" and "disk is full" in str(exc)
    assert len(read_replay(tmp_path / "full.p66").records) == 5


def _human_join(tmp_path: Path, typed: str) -> tuple[subprocess.CompletedProcess[str], int, str]:
    """A bot hosts; a human joins through a pipe (so the table reads plain lines)."""
    return host_then_join(
        tmp_path, ["--bot", "random", "--soundness", "0", "--wait", "30"], [], typed=typed
    )


@pytest.mark.timeout(90)
def test_a_human_joiner_answers_the_rules_before_the_table_takes_the_keyboard(
    tmp_path: Path,
) -> None:
    """The rules question gets the first line typed; only then does the table read moves."""
    joined, _, host_err = _human_join(tmp_path, "y\nq\n")
    assert "The host proposes: preset sixty-six" in joined.stderr + joined.stdout
    assert "Hand 1:" in joined.stdout, joined.stdout + joined.stderr
    assert "You leave the match." in joined.stdout
    assert joined.returncode == 7  # left before the end: not a network failure
    assert "rules refused" not in host_err
    # q is a signed resignation; both players are "root" here, told apart by fingerprint
    assert re.search(r"root \([0-9a-f]{4}\) resigned: left the match", host_err), host_err


@pytest.mark.timeout(90)
def test_two_players_of_the_same_name_are_told_apart_by_fingerprint(tmp_path: Path) -> None:
    joined, host_code, host_err = host_then_join(
        tmp_path,
        ["--bot", "random", "--target", "2", "--soundness", "0", "--name", "root",
         "--wait", "30", "--replay-dir", str(tmp_path / "hr")],
        ["--bot", "random", "--name", "root", "--replay-dir", str(tmp_path / "jr")],
    )  # fmt: skip
    assert joined.returncode == 0 and host_code == 0, joined.stderr + host_err
    for told in (joined.stderr, host_err):
        assert "You use that name too. Shown as root (" in told
        assert re.search(r"match over: root \([0-9a-f]{4}\) wins", told), told


@pytest.mark.timeout(90)
def test_a_joiner_without_a_name_is_told_how_to_choose_one(tmp_path: Path) -> None:
    joined, _, _ = _human_join(tmp_path, "n\n")
    assert "p2p66 config set name NAME" in joined.stderr


@pytest.mark.timeout(90)
def test_a_human_joiner_who_refuses_the_rules_exits_5(tmp_path: Path) -> None:
    joined, host_code, host_err = _human_join(tmp_path, "n\n")
    assert joined.returncode == 5, joined.stdout + joined.stderr
    assert "You refused the rules: no match is played." in joined.stdout
    assert host_code == 5 and "rules refused" in host_err


@pytest.mark.parametrize(
    ("failure", "stage", "over", "code"),
    [
        (None, "playing", True, 0),
        (None, "playing", False, 7),
        (None, "refused", False, 5),
        ("cheating", "playing", False, 4),
        ("protocol", "playing", False, 4),
        ("diverged", "playing", False, 4),
        ("replay", "playing", False, 6),
        ("disconnected", "playing", False, 3),
        ("closed", "playing", False, 3),
        ("transport", "setup", False, 3),
    ],
)
def test_exit_codes_say_how_the_match_ended(
    failure: str | None, stage: str, over: bool, code: int
) -> None:
    from types import SimpleNamespace

    from p2p66.cli.net_cmd import exit_code

    machine = SimpleNamespace(
        stage=SimpleNamespace(value=stage), over=over, resigned=None, abandoned=None
    )
    peer = SimpleNamespace(machine=machine, seat=0)
    assert exit_code(peer, failure) == code  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("failure", "resigned", "abandoned", "code"),
    [
        (None, 0, None, 7),  # we resigned
        (None, 1, None, 3),  # they resigned: the other player left
        ("abandoned", None, 1, 3),  # our claim: they abandoned the match
        (None, None, 0, 7),  # their claim: we had gone silent
    ],
)
def test_exit_codes_of_resignation_and_abandonment(
    failure: str | None, resigned: int | None, abandoned: int | None, code: int
) -> None:
    from types import SimpleNamespace

    from p2p66.cli.net_cmd import exit_code

    machine = SimpleNamespace(
        stage=SimpleNamespace(value="resigned"), over=True, resigned=resigned, abandoned=abandoned
    )
    assert exit_code(SimpleNamespace(machine=machine, seat=0), failure) == code  # type: ignore[arg-type]
