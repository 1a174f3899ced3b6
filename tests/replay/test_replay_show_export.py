"""What ``show`` reveals to a seat, and exports that other tools can replay with the engine."""

from __future__ import annotations

import json
import re

import pytest
from replaykit import REPLAYS

from p2p66.engine import RuleOptions, new_hand, parse_card_id, parse_move_code
from p2p66.engine.cards import CARD_CODES
from p2p66.engine.moves import EXCHANGE, MARRY_BASE
from p2p66.replay.export import export_json, export_text
from p2p66.replay.show import Chunk, show_chunks
from p2p66.replay.story import HandStory, hand_stories
from p2p66.replay.verify import Verification, verify_file
from p2p66.ui.cards_text import TextStyle

GOLDEN = REPLAYS / "golden"
GAMES = ["sixty-six-match", "schnapsen-match", "vu-match", "custom-points"]
ASCII = TextStyle(ascii=True, color=False)
CODES = frozenset(CARD_CODES)


def load(name: str) -> Verification:
    return verify_file(GOLDEN / f"{name}.p66")


def cards_in(lines: tuple[str, ...]) -> set[str]:
    return {t for line in lines for t in re.split(r"[^0-9A-Z]+", line) if t in CODES}


def known_to(story: HandStory, seat: int) -> set[str]:
    """Cards ``seat`` saw during the hand: its own, and whatever was shown to everyone."""
    seen: set[int] = set()
    states = [story.start, *(step.after for step in story.steps)]
    for s in states:
        seen |= {c for c in range(24) if s.hands[seat] >> c & 1}
        seen |= {c for c in range(24) if s.played >> c & 1}
        seen |= {c for c in range(24) if s.shown[1 - seat] >> c & 1}
        if s.talon_left > 0:
            seen.add(s.trump_card)
    for step in story.steps:
        if MARRY_BASE <= step.code < EXCHANGE:
            seen.add((step.code - MARRY_BASE) ^ 1)
        if step.code == EXCHANGE:
            seen.add(step.before.exchange_card)
    return {CARD_CODES[c] for c in seen}


def per_hand(chunks: list[Chunk]) -> list[tuple[str, ...]]:
    """The lines of each hand (its header through its result)."""
    hands: list[list[str]] = []
    for chunk in chunks:
        if any(line.startswith("== Hand") for line in chunk.lines):
            hands.append([])
        if hands:
            hands[-1].extend(chunk.lines)
    return [tuple(h) for h in hands]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_view_shows_nothing_the_seat_did_not_see(name: str, seat: int) -> None:
    v = load(name)
    stories = hand_stories(v)
    texts = per_hand(show_chunks(v, seat, ASCII))
    assert len(texts) == len(stories)
    for story, text in zip(stories, texts, strict=True):
        shown = cards_in(text)
        allowed = known_to(story, seat)
        assert shown <= allowed, (story.number, sorted(shown - allowed))
        mine = {CARD_CODES[c] for c in range(24) if story.start.hands[seat] >> c & 1}
        assert mine <= shown


@pytest.mark.parametrize("name", GAMES)
def test_the_open_view_shows_every_card_and_every_move(name: str) -> None:
    v = load(name)
    stories = hand_stories(v)
    texts = per_hand(show_chunks(v, None, ASCII))
    for story, text in zip(stories, texts, strict=True):
        assert story.deck is not None
        assert cards_in(text) >= {CARD_CODES[c] for c in story.deck}
        tricks = sum(1 for line in text if line.startswith("Trick "))
        assert tricks == story.steps[-1].after.tricks_played
        result = story.result
        assert result is not None
        assert any(result.describe(("alice", "bob")) in line for line in text)


def replay_hands(
    options: RuleOptions, hands: list[tuple[int, list[int], list[int]]]
) -> list[tuple[int | None, int]]:
    """Re-run exported hands (dealer, deck, moves) with the engine: (winner, game points)."""
    out = []
    for dealer, deck, moves in hands:
        state = new_hand(options, deck, dealer)
        for code in moves:
            state = state.apply(code)
        assert state.result is not None
        out.append((state.result.winner, state.result.game_points))
    return out


def expected(v: Verification) -> list[tuple[int | None, int]]:
    return [(h.result.winner, h.result.game_points) for h in v.report.hands if h.result]


@pytest.mark.parametrize("name", GAMES)
def test_text_export_replays_with_the_engine(name: str) -> None:
    v = load(name)
    text = export_text(v)
    tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', text, re.M))
    options = RuleOptions.from_mapping(json.loads(tags["Options"].replace('\\"', '"')))
    names = [tags["Seat0"], tags["Seat1"]]
    hands = []
    for block in text.split('[Hand "')[1:]:
        block_tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', block, re.M))
        deck = [parse_card_id(c) for c in block_tags["Deck"].split()]
        dealer = names.index(block_tags["Dealer"])
        moves = [
            parse_move_code(token)
            for line in block.splitlines()
            if re.match(r"^\d+\. ", line)
            for token in line.split(". ", 1)[1].split()
            if token not in names
        ]
        hands.append((dealer, deck, moves))
    assert replay_hands(options, hands) == expected(v)


@pytest.mark.parametrize("name", GAMES)
def test_json_export_replays_with_the_engine(name: str) -> None:
    v = load(name)
    doc = json.loads(json.dumps(export_json(v)))
    options = RuleOptions.from_mapping(doc["rules"]["options"])
    hands = [
        (
            h["dealer"],
            [parse_card_id(c) for c in h["deal"]["deck"]],
            [parse_move_code(m["move"]) for m in h["moves"]],
        )
        for h in doc["hands"]
    ]
    assert replay_hands(options, hands) == expected(v)
    assert doc["verification"] == v.report.to_json()
    for h in doc["hands"]:
        seats = {m["seat"] for m in h["moves"]}
        assert seats <= {0, 1}
        assert all(isinstance(m["record"], int) for m in h["moves"])
        assert len(h["deal"]["hands"][0]) == options.hand_size
