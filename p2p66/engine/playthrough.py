"""Human-readable playthroughs: a deal, its moves, and what happened after each.

A playthrough file is both documentation and a golden test: it names the rule
options, the dealer and the deck, then one line per move with the state that
followed, then the result. ``parse`` reads back the inputs (options, deck,
dealer, moves) so that a test can replay them and compare ``render`` output
byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from p2p66.engine.cards import CARD_CODES, cards_of, parse_card_id
from p2p66.engine.errors import NotationError
from p2p66.engine.moves import MOVE_NOTATION, parse_move_code
from p2p66.engine.options import RuleOptions, preset_name
from p2p66.engine.state import HandState, Phase, new_hand

HEADER = "# p2p66 playthrough v1"


@dataclass(frozen=True, slots=True)
class Playthrough:
    """The inputs of a playthrough: enough to reproduce every line of it."""

    title: str
    options: RuleOptions
    dealer: int
    deck: tuple[int, ...]
    moves: tuple[int, ...]


def _hand_text(mask: int) -> str:
    return " ".join(c.code for c in cards_of(mask)) or "-"


def _state_line(s: HandState) -> str:
    talon = "closed" if s.closed else ("exhausted" if s.talon_left == 0 else str(s.talon_left))
    table = f" table={CARD_CODES[s.lead_card]}" if s.lead_card >= 0 else ""
    held = f" held={s.held[0]}/{s.held[1]}" if any(s.held) else ""
    return (
        f"points={s.score[0]}/{s.score[1]} tricks={s.tricks[0]}/{s.tricks[1]}{held} "
        f"talon={talon}{table}"
    )


def render(play: Playthrough) -> str:
    """The playthrough as text; raises IllegalMoveError if a move is illegal."""
    s = new_hand(play.options, play.deck, play.dealer)
    name = preset_name(play.options)
    lines = [
        HEADER,
        f"title: {play.title}",
        f"preset: {name or 'custom'}",
        f"options: {json.dumps(play.options.to_dict(), sort_keys=True)}",
        f"dealer: {play.dealer}",
        f"deck: {' '.join(CARD_CODES[c] for c in play.deck)}",
        f"trump: {CARD_CODES[s.trump_card]}",
        f"hand 0: {_hand_text(s.hands[0])}",
        f"hand 1: {_hand_text(s.hands[1])}",
        "moves:",
    ]
    for number, code in enumerate(play.moves, start=1):
        seat, phase = s.to_act, s.phase
        s = s.apply(code)
        lines.append(
            f"{number:3d}. seat {seat} {Phase(phase).name.lower():16s} "
            f"{MOVE_NOTATION[code]:10s} {_state_line(s)}"
        )
    if s.result is None:
        lines.append("result: unfinished")
    else:
        r = s.result
        lines.append(
            f"result: winner={r.winner} game_points={r.game_points} how={r.how.value} "
            f"card_points={r.card_points[0]}/{r.card_points[1]} "
            f"tricks={r.tricks[0]}/{r.tricks[1]}"
        )
        lines.append(f"summary: {r.describe()}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> Playthrough:
    """Read the inputs back from a rendered playthrough (NotationError on a bad file)."""
    fields, move_texts = read_sections(text, HEADER, "a playthrough")
    moves = [parse_move_code(m) for m in move_texts]
    try:
        options = RuleOptions.from_mapping(json.loads(fields["options"]))
        deck = tuple(parse_card_id(c) for c in fields["deck"].split())
        return Playthrough(fields["title"], options, int(fields["dealer"]), deck, tuple(moves))
    except (KeyError, ValueError) as exc:
        raise NotationError(f"malformed playthrough: {exc}") from exc


def read_sections(text: str, header: str, what: str) -> tuple[dict[str, str], list[str]]:
    """The ``key: value`` lines and the move column of a playthrough file (any game's)."""
    fields: dict[str, str] = {}
    moves: list[str] = []
    in_moves = False
    lines = text.splitlines()
    if not lines or lines[0] != header:
        raise NotationError(f"not {what}: the first line must be {header!r}")
    for line in lines[1:]:
        if line == "moves:":
            in_moves = True
        elif in_moves and not line.startswith("result:"):
            parts = line.split()
            if len(parts) < 5:
                raise NotationError(f"malformed move line: {line!r}")
            moves.append(parts[4])
        else:
            in_moves = False
            key, _, value = line.partition(": ")
            fields[key] = value
    return fields, moves


def record(
    title: str, options: RuleOptions, deck: Sequence[int], dealer: int, moves: Sequence[int]
) -> Playthrough:
    """Bundle a game's inputs as a playthrough."""
    return Playthrough(title, options, dealer, tuple(deck), tuple(moves))
