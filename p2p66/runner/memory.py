"""``inproc`` games with ``--replays``: two peers in memory, so every replay is a real one.

The in-process referee deals from its own deal table and signs nothing, so
its games have no transcript anyone could verify. With ``--replays DIR`` an
``inproc`` game is instead played between two session ``Peer``s wired back
to back in this process (``session.pair``): the real protocol with proofs
off (soundness 0: a bot match needs no shuffle proofs, and every hand's
seeds are revealed at its end, so the whole deck is still audited), each
seat named after its bot, and seat 0's records are written to
``game-NNNNNN.p66``, which ``p2p66 verify``, ``replay show`` and ``replay
export`` read.

The cards then come from the peers' joint shuffle, seeded by the run seed
and the deal pair, so a run is reproducible and the two games of a
duplicate pair still share their cards; but they are not the referee's
deals, so a run with ``--replays`` has other deals than the same run
without. The file is written when the game is over, then fsynced with its
directory (no bot acted on a record surviving a crash: a cut game is played
again).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from p2p66.bots.api import Bot
from p2p66.engine.view import PlayerView
from p2p66.replay.fileio import ReplayWriter
from p2p66.runner.game import GameSpec, _Forfeited
from p2p66.runner.loopback import Seating, decide_now, seat_bots
from p2p66.runner.records import Forfeit, GameResult, replay_file_name
from p2p66.session import events as ev
from p2p66.session.pair import Chooser, run_pair

SOUNDNESS = 0
"""No shuffle proofs: the end-of-hand audit still recomputes every deck step from the seeds."""


def play_in_memory(spec: GameSpec, bot_a: Bot, bot_b: Bot) -> GameResult:
    """Play one game as two in-memory peers; write its replay if ``spec.replay_dir`` is set."""
    seating = seat_bots(spec, bot_a, bot_b, SOUNDNESS)
    if seating.forfeit is None:
        try:
            _play(seating)
        except _Forfeited as fault:
            seating.forfeit = Forfeit(seating.side_of[fault.seat], fault.kind, fault.detail)
    if spec.replay_dir is not None:
        _write(Path(spec.replay_dir) / replay_file_name(spec.game), seating)
    return seating.result()


def _chooser(seating: Seating, seat: int) -> Chooser:
    def choose(view: PlayerView) -> int:
        peer, bot = seating.peers[seat], seating.seats[seat]
        return decide_now(seating.spec, seat, bot, peer, clock=seating.clock, view=view)

    return choose


def _play(seating: Seating) -> None:
    told: set[tuple[int, int]] = set()

    def hand_ended(seat: int, events: list[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.HandEnded) and (seat, event.number) not in told:
                told.add((seat, event.number))
                view = seating.peers[seat].view()
                if view is not None and view.result is not None:
                    with contextlib.suppress(Exception):  # bookkeeping is no fault of play
                        seating.seats[seat].end_hand(view)

    peers = (seating.peers[0], seating.peers[1])
    run_pair(peers, (_chooser(seating, 0), _chooser(seating, 1)), on_events=hand_ended)


def _write(path: Path, seating: Seating) -> None:
    """Seat 0's records as a replay file (what it holds after a forfeit, too)."""
    path.unlink(missing_ok=True)
    with ReplayWriter(path, fsync=False) as writer:
        for record in seating.peers[0].machine.records:
            writer.append(record)
        writer.sync()
