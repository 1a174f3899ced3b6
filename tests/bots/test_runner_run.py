"""The runner: forfeits, duplicate deals, NDJSON streaming, resume, SPRT stop, replays."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from p2p66.bots import Bot, Turn, parse_bot_spec
from p2p66.bots.external import ExternalBot
from p2p66.bots.random_bot import RandomBot
from p2p66.engine import preset
from p2p66.engine.cards import CARD_CODES
from p2p66.engine.moves import MOVES, Move
from p2p66.engine.state import new_hand
from p2p66.net.identity import check_name
from p2p66.replay.verify import verify_file
from p2p66.runner.deals import bot_seed, deal_deck
from p2p66.runner.game import GameSpec, TimeControl, play_game
from p2p66.runner.loopback import seat_name
from p2p66.runner.records import GameResult, ResultsFileError
from p2p66.runner.run import RunConfig, one_hand, open_results, read_results, run, start_line
from p2p66.runner.stats import Sprt
from p2p66.runner.transport import TransportUnavailable, get_transport

ROOT = Path(__file__).resolve().parents[2]

RULES = preset("sixty-six")


def config(games: int = 6, **kw: object) -> RunConfig:
    return RunConfig(
        parse_bot_spec("greedy"),
        parse_bot_spec("random"),
        RULES,
        games=games,
        seed=3,
        **kw,  # type: ignore[arg-type]
    )


class Crashing(Bot):
    def choose(self, turn: Turn) -> Move:
        raise RuntimeError("boom")


class Illegal(Bot):
    def choose(self, turn: Turn) -> Move:
        return MOVES[next(c for c in range(24) if c not in {m.code for m in turn.legal})]


class Slow(Bot):
    def choose(self, turn: Turn) -> Move:
        time.sleep(0.05)
        return turn.legal[0]


@pytest.mark.parametrize(
    ("bot", "kind", "detail"),
    [
        (Crashing(), "crash", "boom"),
        (Illegal(), "illegal", "not legal"),
        (Slow(), "timeout", "took"),
    ],
)
def test_faults_forfeit_the_game(bot: Bot, kind: str, detail: str) -> None:
    spec = GameSpec(0, 0, 1, 1, RULES, time=TimeControl(0.01, 0.01))
    result = play_game(spec, bot, RandomBot(1))
    assert result.winner == "b"
    assert result.forfeit is not None
    assert (result.forfeit.side, result.forfeit.kind) == ("a", kind)
    assert detail in result.forfeit.detail


def test_duplicate_pairs_share_decks_with_seats_swapped() -> None:
    cfg = config(duplicate=True)
    first, second = cfg.spec(4), cfg.spec(5)
    assert first.pair == second.pair and first.a_seat != second.a_seat
    assert deal_deck(3, first.pair, 0, 24) == deal_deck(3, second.pair, 0, 24)
    assert deal_deck(3, 0, 0, 24) != deal_deck(3, 1, 0, 24)
    assert bot_seed(3, 4, "a") != bot_seed(3, 4, "b")
    independent = config(duplicate=False)
    assert independent.spec(4).pair != independent.spec(5).pair
    # the same deck really gives B exactly A's cards
    deck = deal_deck(3, 2, 0, 24)
    a_first = new_hand(RULES, deck, 0).hands[first.a_seat]
    b_second = new_hand(RULES, deck, 0).hands[1 - second.a_seat]
    assert a_first == b_second


def test_runs_are_deterministic_and_streamed(tmp_path: Path) -> None:
    cfg = config(games=6)
    path = tmp_path / "r.ndjson"
    handle, previous = open_results(path, cfg, resume=False)
    seen: list[int] = []
    with handle:
        outcome = run(cfg, out=handle, previous=previous, listener=lambda r, s: seen.append(r.game))
    assert seen == list(range(6))
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "start"
    assert [json.loads(line)["game"] for line in lines[1:]] == list(range(6))
    again = run(cfg)
    assert [(r.winner, r.points) for r in again.results] == [
        (r.winner, r.points) for r in outcome.results
    ]


def test_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    path = tmp_path / "r.ndjson"
    handle, _ = open_results(path, config(games=4), resume=False)
    with handle:
        run(config(games=4), out=handle)
    with path.open("a") as f:
        f.write('{"type":"game","game":9')  # torn last line of a killed run
    handle, previous = open_results(path, config(games=8), resume=True)
    assert [r.game for r in previous] == [0, 1, 2, 3]
    played: list[int] = []
    with handle:
        outcome = run(
            config(games=8),
            out=handle,
            previous=previous,
            listener=lambda r, s: played.append(r.game),
        )
    assert played == [4, 5, 6, 7]
    assert len(outcome.results) == 8
    assert [r.game for r in read_results(path, config(games=8))] == list(range(8))


def test_resume_refuses_another_run(tmp_path: Path) -> None:
    path = tmp_path / "r.ndjson"
    handle, _ = open_results(path, config(games=2), resume=False)
    handle.close()
    other = RunConfig(parse_bot_spec("expert"), parse_bot_spec("random"), RULES, games=2, seed=3)
    with pytest.raises(ResultsFileError, match="bot_a"):
        open_results(path, other, resume=True)
    with pytest.raises(ResultsFileError, match="--resume"):
        open_results(path, config(games=2), resume=False)
    path.write_text("not json\n")
    with pytest.raises(ResultsFileError, match="not JSON"):
        open_results(path, config(games=2), resume=True)


def test_game_records_round_trip_and_reject_garbage() -> None:
    result = run(config(games=2)).results[0]
    again = GameResult.from_json(json.loads(result.to_line()))
    assert again.to_json() == result.to_json()
    for bad in (
        {"type": "game"},
        {"type": "start"},
        [],
        {**json.loads(result.to_line()), "winner": "c"},
    ):
        with pytest.raises(ResultsFileError):
            GameResult.from_json(bad)


def test_sprt_stops_early() -> None:
    cfg = RunConfig(
        parse_bot_spec("expert"),
        parse_bot_spec("random"),
        RULES,
        games=400,
        seed=1,
        mode="hands",
        sprt=Sprt(0.0, 100.0),
    )
    outcome = run(cfg)
    assert outcome.stopped_early == "SPRT accepted H1"
    assert len(outcome.results) < 400


@pytest.mark.timeout(120)
def test_inproc_replays_are_real_replays(tmp_path: Path) -> None:
    cfg = config(games=2, replay_dir=str(tmp_path / "games"))
    outcome = run(cfg)
    files = sorted((tmp_path / "games").iterdir())
    assert [f.name for f in files] == ["game-000000.p66", "game-000001.p66"]
    decks = []
    for path, result in zip(files, sorted(outcome.results, key=lambda r: r.game), strict=True):
        v = verify_file(path)
        assert v.report.exit_code == 0 and v.report.status.value == "valid", v.report.problem
        assert v.report.soundness == 0 and len(v.report.hands) == result.hands
        assert sorted(p.name for p in v.report.players) == sorted(
            (cfg.bot_a.label, cfg.bot_b.label)
        )
        points = v.report.game_points
        assert (points[result.a_seat], points[1 - result.a_seat]) == result.points
        first = v.table(1)
        assert first is not None and first.deck is not None
        decks.append(first.deck)
    assert decks[0] == decks[1]  # a duplicate pair shares its cards


@pytest.mark.timeout(60)
def test_concurrent_run_gives_the_same_results() -> None:
    serial = run(config(games=6))
    parallel = run(config(games=6, concurrency=2))
    key = sorted((r.game, r.winner, r.points) for r in parallel.results)
    assert key == sorted((r.game, r.winner, r.points) for r in serial.results)


def test_unknown_transport() -> None:
    with pytest.raises(TransportUnavailable, match="unknown transport"):
        get_transport("carrier-pigeon")


@pytest.mark.timeout(60)
def test_loopback_plays_real_peers_and_forfeits_faults(tmp_path: Path) -> None:
    transport = get_transport("loopback")
    spec = GameSpec(0, 0, 1, 4, one_hand(RULES), mode="hands", time=TimeControl(1.0, 0.5))
    recorded = GameSpec(3, 1, 1, 4, one_hand(RULES), mode="hands", replay_dir=str(tmp_path))
    result = transport.play(recorded, RandomBot(1), RandomBot(2))
    assert result.forfeit is None and result.hands >= 1 and result.moves > 0
    assert result.winner is not None
    verdict = verify_file(tmp_path / "game-000003.p66").report
    assert verdict.exit_code == 0, verdict.problem
    assert sum(verdict.game_points) == sum(result.points)
    for bot, kind in ((Crashing(), "crash"), (Illegal(), "illegal")):
        result = transport.play(spec, bot, RandomBot(2))
        assert result.forfeit is not None
        assert (result.forfeit.side, result.forfeit.kind) == ("a", kind)


def test_resume_with_more_games_updates_the_start_line(tmp_path: Path) -> None:
    path = tmp_path / "r.ndjson"
    handle, _ = open_results(path, config(games=2), resume=False)
    with handle:
        run(config(games=2), out=handle)
    handle, previous = open_results(path, config(games=4), resume=True)
    with handle:
        run(config(games=4), out=handle, previous=previous)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["games"] == 4
    assert [json.loads(line)["game"] for line in lines[1:]] == [0, 1, 2, 3]


def test_the_start_line_records_every_bot_option_and_reproducibility() -> None:
    timed = RunConfig(parse_bot_spec("strong:ms=20"), parse_bot_spec("random"), RULES, games=2)
    head = json.loads(start_line(timed))
    assert head["bots"]["a"] == {
        "spec": "strong:ms=20",
        "kind": "builtin",
        "options": {"ms": 20.0, "samples": 0, "endgame": 0, "solve": 0, "search": "auto"},
        "reproducible": False,
    }
    assert head["bots"]["b"]["reproducible"] is True
    sampled = RunConfig(parse_bot_spec("strong:samples=8"), parse_bot_spec("x y"), RULES, games=2)
    head = json.loads(start_line(sampled))
    assert head["bots"]["a"]["reproducible"] is True
    assert head["bots"]["b"] == {
        "spec": "x y",
        "kind": "external",
        "command": ["x", "y"],
        "reproducible": None,
    }


@pytest.mark.timeout(90)
def test_loopback_duplicate_pairs_get_the_same_deals() -> None:
    cfg = config(games=4, transport="loopback", mode="hands", duplicate=True)
    transport = get_transport("loopback")
    results = [transport.play(cfg.spec(g), RandomBot(g), RandomBot(g + 10)) for g in range(4)]
    for r in results:
        assert r.deals and all(d.deck is not None for d in r.deals)
    assert results[0].deals == results[1].deals  # pair 0, seats swapped
    assert results[2].deals == results[3].deals
    assert results[0].deals != results[2].deals
    assert (results[0].a_seat, results[1].a_seat) == (0, 1)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("transport", ["inproc", "loopback"])
def test_forfeits_record_the_hands_dealt_alike_in_every_transport(transport: str) -> None:
    play = get_transport(transport).play
    spec = GameSpec(0, 0, 0, 4, RULES, time=TimeControl(1.0, 0.5))
    mid_hand = play(spec, Illegal(), RandomBot(2))
    assert mid_hand.forfeit is not None and mid_hand.hands == 1 and len(mid_hand.deals) == 1

    class NoStart(RandomBot):
        def start_game(self, seat: int, rules: object) -> None:
            raise RuntimeError("cannot load")

    at_start = play(spec, NoStart(1), RandomBot(2))
    assert at_start.forfeit is not None and at_start.hands == 0 and at_start.deals == ()


def test_inproc_results_record_every_deal() -> None:
    result = run(config(games=2)).results[0]
    assert len(result.deals) == result.hands >= 1
    first = result.deals[0]
    assert first.dealer == 0 and first.deck is not None
    assert first.deck.split() == [CARD_CODES[c] for c in deal_deck(3, 0, 0, 24)]
    again = GameResult.from_json(json.loads(result.to_line()))
    assert again.deals == result.deals


@pytest.mark.timeout(60)
def test_loopback_replays_name_the_seats_after_the_bots(tmp_path: Path) -> None:
    sample = ExternalBot((sys.executable, str(ROOT / "scripts" / "sample_bot.py")), RULES)
    recorded = GameSpec(5, 2, 1, 4, one_hand(RULES), mode="hands", replay_dir=str(tmp_path))
    try:
        result = get_transport("loopback").play(recorded, sample, RandomBot(2))
    finally:
        sample.close()
    assert result.forfeit is None
    report = verify_file(tmp_path / "game-000005.p66").report
    assert report.exit_code == 0, report.problem
    assert [p.name for p in report.players] == ["random", "sample"]  # sample: its ready name


def test_a_bot_name_becomes_a_valid_player_name() -> None:
    class Named(RandomBot):
        pass

    for raw, want in (("strong", "strong"), ("a\nb\x1b[2K", "a b [2K"), ("\u202e", "bot-1")):
        bot = Named(1)
        bot.name = raw
        assert seat_name(bot, 1) == want and check_name(want) == want
    long = Named(1)
    long.name = "x" * 80
    assert len(seat_name(long, 0)) == 32


class CrashesLate(RandomBot):
    """Plays its first few decisions, then crashes: a game cut short mid-match."""

    def __init__(self, seed: int, decisions: int) -> None:
        super().__init__(seed)
        self.left = decisions

    def choose(self, turn: Turn) -> Move:
        self.left -= 1
        if self.left < 0:
            raise RuntimeError("boom")
        return super().choose(turn)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("transport", ["inproc", "loopback"])
@pytest.mark.parametrize("replays", [False, True])
def test_every_transport_times_each_move_for_the_game_record(
    transport: str, replays: bool, tmp_path: Path
) -> None:
    """Per hand dealt, each legal decision with its seat and time, up to a forfeit, whoever
    deals (the referee, or peers in memory or over loopback)."""
    spec = GameSpec(
        0, 0, 0, 4, RULES, record_moves=True, replay_dir=str(tmp_path) if replays else None
    )
    full = get_transport(transport).play(spec, RandomBot(1), RandomBot(2))
    assert full.moves_timed is not None and len(full.moves_timed) == full.hands > 1
    assert sum(len(h) for h in full.moves_timed) == full.moves
    assert all(m.seconds >= 0 and m.seat in (0, 1) for h in full.moves_timed for m in h)
    cut = get_transport(transport).play(spec, CrashesLate(1, 8), RandomBot(2))
    assert cut.forfeit is not None and cut.moves_timed is not None
    assert len(cut.moves_timed) == cut.hands
    assert sum(1 for h in cut.moves_timed for m in h if m.seat == 0) == 8
