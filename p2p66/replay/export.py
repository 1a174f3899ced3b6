"""``replay export``: a verified game as readable text (in the spirit of PGN) or as JSON.

Text: tag pairs (``[Name "value"]``) for the match, then per hand its tags
(number, dealer, trump, the audited deck and the cards each seat was dealt)
and its moves in RULES.md notation, one numbered line per trick, then the
hand's result. The replay holds no clock, so the date is unknown
(``????.??.??``, as PGN writes it). JSON: the same, as a versioned document
for other tools, with the verification report inside.
"""

from __future__ import annotations

import json
from typing import Any, Final

from p2p66.engine.cards import CARD_CODES
from p2p66.engine.deal import deal_layout
from p2p66.engine.moves import MOVE_NOTATION
from p2p66.engine.options import base_preset
from p2p66.replay.report import Ending, Report, result_json
from p2p66.replay.story import HandStory, Step, hand_stories
from p2p66.replay.table_export import export_table_json, export_table_text
from p2p66.replay.verify import Verification
from p2p66.ui.escape import printable

EXPORT_FORMAT: Final = "p2p66-game"
EXPORT_VERSION: Final = 1


def _tag(name: str, value: object) -> str:
    """One tag pair on one line, whatever the value holds (control characters escaped)."""
    text = printable(str(value).replace("\\", "\\\\").replace('"', '\\"'))
    return f'[{name} "{text}"]'


def _codes(cards: Any) -> str:
    return " ".join(CARD_CODES[c] for c in cards)


def match_result(report: Report) -> str:
    """PGN-style result: ``1-0`` (seat 0 won), ``0-1``, or ``*`` (not decided)."""
    if report.winner is None:
        return "*"
    return "1-0" if report.winner == 0 else "0-1"


def _termination(report: Report) -> str:
    if report.problem is not None:
        return "invalid"
    return {
        Ending.WON: "normal",
        Ending.RESIGNED: "resignation",
        Ending.ABANDONED: "abandoned",
        Ending.REFUSED: "rules refused",
        Ending.UNFINISHED: "unfinished",
    }[report.ending]


def export_text(verification: Verification) -> str:
    """The game as tag pairs and move text."""
    if verification.machine.table is not None:
        return export_table_text(verification)
    report = verification.report
    names = (report.name(0), report.name(1))
    lines = [
        _tag("Event", "p2p66 match"),
        _tag("Date", "????.??.??"),
        _tag("Seat0", names[0]),
        _tag("Seat1", names[1]),
    ]
    for p in report.players:
        lines.append(_tag(f"Seat{p.seat}Key", p.fingerprint))
    if report.options is not None:
        lines.append(_tag("Preset", base_preset(report.options) or "custom"))
        lines.append(_tag("Options", json.dumps(report.options.to_dict(), sort_keys=True)))
        lines.append(_tag("Soundness", report.soundness))
    if report.session_id is not None:
        lines.append(_tag("Session", report.session_id.hex()))
    if report.first_dealer is not None:
        lines.append(_tag("FirstDealer", names[report.first_dealer]))
    lines.append(_tag("GamePoints", f"{report.game_points[0]}-{report.game_points[1]}"))
    lines.append(_tag("Termination", _termination(report)))
    lines.append(_tag("Verified", report.status.value))
    lines.append(_tag("Result", match_result(report)))
    for story in hand_stories(verification):
        lines.append("")
        lines.extend(_hand_text(story, names, report.stop_note()))
    lines.append("")
    lines.append(f"{match_result(report)} {{{report.headline()}}}")
    return "\n".join(lines) + "\n"


def _hand_text(story: HandStory, names: tuple[str, str], note: str) -> list[str]:
    s = story.start
    lines = [
        _tag("Hand", story.number),
        _tag("Dealer", names[story.dealer]),
        _tag("Trump", CARD_CODES[s.trump_card]),
    ]
    if story.deck is not None:
        lines.append(_tag("Deck", _codes(story.deck)))
        for seat in (0, 1):
            lines.append(_tag(f"Seat{seat}Cards", _codes(sorted(_dealt(story, seat)))))
    for number, trick in enumerate(story.tricks(), start=1):
        moves = "  ".join(f"{names[st.seat]} {MOVE_NOTATION[st.code]}" for st in trick)
        lines.append(f"{number}. {moves}")
        drawn = [_draws(story, step, names) for step in trick if step.draws()]
        if drawn:
            lines.extend(f"   {{{text}}}" for text in drawn)
    if story.result is None:
        lines.append(f"{{{note}}}")
    else:
        lines.append(f"{{{story.result.describe(names)}}}")
    return lines


def _draws(story: HandStory, step: Step, names: tuple[str, str]) -> str:
    """Who drew what after a trick: the cards by name when the hand was audited."""
    parts = []
    for seat, cards in step.draws():
        drawn = _codes(cards) if story.exact and cards else "a card"
        parts.append(f"{names[seat]} draws {drawn}")
    return ", ".join(parts)


def _dealt(story: HandStory, seat: int) -> list[int]:
    assert story.deck is not None
    layout = deal_layout(story.options)
    return [story.deck[p] for p in layout.hand_positions(seat, story.dealer)]


def export_json(verification: Verification) -> dict[str, Any]:
    """The game as a versioned JSON document."""
    if verification.machine.table is not None:
        return export_table_json(verification)
    report = verification.report
    summary = report.to_json()
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "players": summary["players"],
        "rules": summary["rules"],
        "session_id": summary["session_id"],
        "first_dealer": report.first_dealer,
        "result": match_result(report),
        "hands": [_hand_json(story) for story in hand_stories(verification)],
        "verification": summary,
    }


def _hand_json(story: HandStory) -> dict[str, Any]:
    deal: dict[str, Any] | None = None
    if story.deck is not None:
        layout = deal_layout(story.options)
        deal = {
            "deck": [CARD_CODES[c] for c in story.deck],
            "hands": [[CARD_CODES[c] for c in _dealt(story, seat)] for seat in (0, 1)],
            "trump": CARD_CODES[story.deck[layout.trump]],
            "talon": [CARD_CODES[story.deck[p]] for p in layout.talon],
        }
    return {
        "number": story.number,
        "dealer": story.dealer,
        "trump": CARD_CODES[story.start.trump_card],
        "deal": deal,
        "moves": [
            {"seat": st.seat, "move": MOVE_NOTATION[st.code], "record": st.record}
            for st in story.steps
        ],
        "tricks": [
            {
                "leader": leader,
                "lead": CARD_CODES[lead],
                "follow": CARD_CODES[follow],
                "winner": winner,
            }
            for leader, lead, follow, winner in (
                story.steps[-1].after.tricks_log if story.steps else []
            )
        ],
        "result": result_json(story.result),
        "game_points": None if story.game_points is None else list(story.game_points),
    }
