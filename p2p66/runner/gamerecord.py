"""The game record file of a run (``--record FILE``): every game as text, PGN-like.

One block per game in the order games end (``Game`` says which), in the
tag-pair style of ``replay export text``: tags naming the bots with their
exact options, the seats, the rules and the result, then per hand its
dealer and deck and one line per move with the seconds it took and the
bot's ``info``. People read it; tools split it on blank-line-separated
``[Event`` blocks. Games between peers (``--transport loopback``, or
``--replays``) are recorded the same way, their decks being those the
peers' shuffle dealt, and a ``Replay`` tag names the game's signed replay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from p2p66.runner.records import GameResult, TimedMove

RECORD_EVENT = "p2p66 match run"


def _tag(name: str, value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _comment(move: TimedMove) -> str:
    parts = [f"{move.seconds:.3f}s"]
    parts += [f"{k}={v}" for k, v in sorted(move.info.items())]
    text = " ".join(parts).replace("}", ")")
    return "{" + text + "}"


def game_text(
    result: GameResult,
    *,
    labels: tuple[str, str],
    bots: Mapping[str, object],
    seed: int,
    options: Mapping[str, object],
    preset: str,
    replay: str | None = None,
) -> str:
    """One game as tag pairs and move text; ``labels`` are bot A's and bot B's names,
    ``replay`` the file name of the game's signed replay, if one was written."""
    seat_names = (labels[0], labels[1]) if result.a_seat == 0 else (labels[1], labels[0])
    points = result.points if result.a_seat == 0 else (result.points[1], result.points[0])
    winner_seat = None
    if result.winner is not None:
        winner_seat = result.a_seat if result.winner == "a" else 1 - result.a_seat
    outcome = {None: "1/2-1/2", 0: "1-0", 1: "0-1"}[winner_seat]
    termination = "normal"
    if result.forfeit is not None:
        who = labels[0] if result.forfeit.side == "a" else labels[1]
        termination = f"forfeit: {who} {result.forfeit.kind}: {result.forfeit.detail}"
    lines = [
        _tag("Event", RECORD_EVENT),
        _tag("Game", result.game),
        _tag("Pair", result.pair),
        _tag("Seed", seed),
        _tag("Preset", preset),
        _tag("Options", json.dumps(dict(options), sort_keys=True)),
        _tag("BotA", labels[0]),
        _tag("BotAOptions", json.dumps(bots["a"], sort_keys=True)),
        _tag("BotB", labels[1]),
        _tag("BotBOptions", json.dumps(bots["b"], sort_keys=True)),
        _tag("Seat0", seat_names[0]),
        _tag("Seat1", seat_names[1]),
        _tag("GamePoints", f"{points[0]}-{points[1]}"),
        _tag("Hands", result.hands),
        _tag("Termination", termination),
        _tag("Result", outcome),
    ]
    if replay is not None:
        lines.insert(len(lines) - 1, _tag("Replay", replay))
    hands = result.moves_timed or ()
    for number, deal in enumerate(result.deals):
        lines += ["", _tag("Hand", number + 1), _tag("Dealer", seat_names[deal.dealer])]
        if deal.deck is not None:
            lines.append(_tag("Deck", deal.deck))
        moves = hands[number] if number < len(hands) else ()
        for index, move in enumerate(moves, start=1):
            lines.append(f"{index}. {seat_names[move.seat]} {move.move} {_comment(move)}")
    lines += ["", outcome, ""]
    return "\n".join(lines) + "\n"


def append_game(path: Path, text: str) -> None:
    """Add one game's block to the record file (flushed: a killed run keeps what it had)."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
