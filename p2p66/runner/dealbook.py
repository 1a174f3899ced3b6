"""Deal books: a fixed, shareable list of deals (``--deals FILE``, ``p2p66 deals make``).

Two people comparing bots on the same deals exchange one small text file.
The format (``p2p66-deals/1``) is NDJSON: a header line, then one deal per
line, either a seed or an explicit deck::

    {"type": "deals", "format": "p2p66-deals/1", "deck_size": 24}
    {"seed": 17}
    {"deck": "AS TH KD ... 9C", "dealer": 1}

A seed deal is the same as deal pair 0 of a run with ``--seed`` that seed:
every hand of a match is dealt from it, in process and (through the peers'
seeded shuffle) over loopback. An explicit deck is the deck of one hand,
index 0 first, in RULES.md card codes, with its dealer: ``--hands`` runs
in process only, since the mental-poker deck cannot be chosen.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable
from pathlib import Path

from p2p66.engine.cards import deck_ids, parse_card_id
from p2p66.runner.deals import Deal, deal_deck, shown_deck

BOOK_FORMAT = "p2p66-deals/1"
MAX_DEALS = 10_000_000


class DealBookError(ValueError):
    """A deal book that cannot be used: the file, its line and what is wrong."""


def make_book(count: int, seed: int, deck_size: int, *, decks: bool = False) -> list[Deal]:
    """``count`` deals drawn from ``seed``: seeds, or explicit decks with alternating dealers."""
    if not 1 <= count <= MAX_DEALS:
        raise DealBookError(f"a deal book holds 1 to {MAX_DEALS} deals, not {count}")
    rng = random.Random(f"p2p66-book:{seed}")
    seeds = [rng.getrandbits(48) for _ in range(count)]
    if not decks:
        return [Deal(s) for s in seeds]
    return [
        Deal(0, deck=tuple(deal_deck(s, 0, 0, deck_size)), dealer=i % 2)
        for i, s in enumerate(seeds)
    ]


def book_lines(deals: Iterable[Deal], deck_size: int) -> Iterable[str]:
    """The lines of a deal book file."""
    yield json.dumps({"type": "deals", "format": BOOK_FORMAT, "deck_size": deck_size})
    for deal in deals:
        if deal.deck is None:
            yield json.dumps({"seed": deal.seed})
        else:
            yield json.dumps({"deck": shown_deck(deal.deck), "dealer": deal.dealer})


def book_digest(deals: Iterable[Deal]) -> str:
    """SHA-256 of the deals (whatever file they came from): a resumed run must use the same."""
    digest = hashlib.sha256()
    for deal in deals:
        digest.update(deal.key.encode() + b"\n")
    return digest.hexdigest()


def write_book(path: Path, deals: Iterable[Deal], deck_size: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for line in book_lines(deals, deck_size):
            handle.write(line + "\n")


def read_book(path: Path, deck_size: int) -> list[Deal]:
    """The deals of ``path`` for a run with ``deck_size`` cards; DealBookError names the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DealBookError(f"cannot read the deal book {path}: {exc}") from None
    lines = text.splitlines()
    head = _json(path, 1, lines[0] if lines else "")
    if not isinstance(head, dict) or head.get("format") != BOOK_FORMAT:
        raise DealBookError(f"{path}:1 is not a deal book header ({BOOK_FORMAT})")
    if head.get("deck_size") != deck_size:
        raise DealBookError(
            f"{path} deals {head.get('deck_size')!r} cards, these rules use {deck_size}"
        )
    deals = [
        _deal(path, number, _json(path, number, line), deck_size)
        for number, line in enumerate(lines[1:], start=2)
        if line.strip()
    ]
    if not deals:
        raise DealBookError(f"{path} holds no deals")
    return deals


def _json(path: Path, number: int, line: str) -> object:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        raise DealBookError(f"{path}:{number} is not JSON") from None


def _deal(path: Path, number: int, data: object, deck_size: int) -> Deal:
    where = f"{path}:{number}"
    if not isinstance(data, dict):
        raise DealBookError(f"{where}: a deal is an object with a seed or a deck")
    if "seed" in data:
        seed = data["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise DealBookError(f"{where}: seed must be a whole number >= 0, not {seed!r}")
        return Deal(seed)
    deck_text, dealer = data.get("deck"), data.get("dealer", 0)
    if not isinstance(deck_text, str):
        raise DealBookError(f"{where}: a deal needs a seed or a deck")
    if dealer not in (0, 1) or isinstance(dealer, bool):
        raise DealBookError(f"{where}: dealer must be 0 or 1, not {dealer!r}")
    try:
        deck = tuple(parse_card_id(code) for code in deck_text.split())
    except ValueError as exc:
        raise DealBookError(f"{where}: {exc}") from None
    if sorted(deck) != deck_ids(deck_size):
        raise DealBookError(
            f"{where}: the deck must hold each of the {deck_size} cards exactly once"
        )
    return Deal(0, deck=deck, dealer=dealer)
