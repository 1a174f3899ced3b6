"""Deal books: the file format, ``p2p66 deals make`` and ``p2p66 match --deals``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from p2p66.cli import deals_cmd, match_cmd
from p2p66.engine.cards import CARD_CODES
from p2p66.runner.dealbook import DealBookError, book_lines, make_book, read_book, write_book
from p2p66.runner.deals import Deal, deal_deck


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """p2p66 (test app)."""

    match_cmd.register(app)
    deals_cmd.register(app)
    return app


def invoke(app: typer.Typer, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def games_of(path: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if line["type"] == "game"]


@pytest.mark.parametrize("decks", [False, True])
def test_books_round_trip(tmp_path: Path, decks: bool) -> None:
    book = make_book(5, 7, 24, decks=decks)
    path = tmp_path / "book.ndjson"
    write_book(path, book, 24)
    assert read_book(path, 24) == book
    assert make_book(5, 7, 24, decks=decks) == book  # a book is a function of its seed
    if decks:
        assert [d.dealer for d in book] == [0, 1, 0, 1, 0]
        seeds = make_book(5, 7, 24)
        assert book[0].deck == tuple(deal_deck(seeds[0].seed, 0, 0, 24))


HEADER = '{"type": "deals", "format": "p2p66-deals/1", "deck_size": 24}'
GOOD_DECK = " ".join(CARD_CODES)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not JSON"),
        ('{"type": "deals"}', "not a deal book header"),
        (HEADER.replace("24", "20"), "deals 20 cards"),
        (HEADER, "holds no deals"),
        (HEADER + "\n[1]", ":2: a deal is an object"),
        (HEADER + '\n{"seed": -1}', "seed must be"),
        (HEADER + '\n{"seed": true}', "seed must be"),
        (HEADER + '\n{"dealer": 0}', "needs a seed or a deck"),
        (HEADER + '\n{"deck": "' + GOOD_DECK + '", "dealer": 2}', "dealer must be 0 or 1"),
        (HEADER + '\n{"deck": "' + GOOD_DECK.replace("AC", "AH") + '"}', "exactly once"),
        (HEADER + '\n{"deck": "' + GOOD_DECK + ' AC"}', "exactly once"),
        (HEADER + '\n{"deck": "ZZ"}', "not a card"),
        (HEADER + "\n{nope", ":2 is not JSON"),
    ],
)
def test_bad_books_are_refused_naming_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.ndjson"
    path.write_text(text)
    with pytest.raises(DealBookError, match=message):
        read_book(path, 24)


def test_the_book_format_is_what_the_docs_say() -> None:
    deck = tuple(range(24))
    lines = list(book_lines([Deal(17), Deal(0, deck=deck, dealer=1)], 24))
    assert lines == [HEADER, '{"seed": 17}', '{"deck": "' + GOOD_DECK + '", "dealer": 1}']


def test_a_seed_book_fixes_the_deals_whatever_the_run_seed(
    app: typer.Typer, tmp_path: Path
) -> None:
    book = tmp_path / "book.ndjson"
    assert invoke(app, "deals", "make", str(book), "--count", "3", "--seed", "5")[0] == 0
    seeds = [d.seed for d in read_book(book, 24)]
    runs = []
    for run_seed in ("1", "2"):
        out = tmp_path / f"run{run_seed}.ndjson"
        code, text = invoke(
            app, "match", "greedy", "random", "--deals", str(book), "--seed", run_seed,
            "--out", str(out), "--no-progress",
        )  # fmt: skip
        assert code == 0, text
        runs.append(games_of(out))
    assert len(runs[0]) == 6  # the book's 3 deals, each twice
    for a, b in zip(*runs, strict=True):  # the bots' seeds differ, so may the match lengths
        hands = min(len(a["deals"]), len(b["deals"]))  # type: ignore[arg-type]
        assert a["deals"][:hands] == b["deals"][:hands]  # type: ignore[index]
    first = runs[0][0]["deals"][0]  # type: ignore[index]
    assert first["deck"].split() == [CARD_CODES[c] for c in deal_deck(seeds[0], 0, 0, 24)]


def test_an_explicit_deck_is_dealt_exactly(app: typer.Typer, tmp_path: Path) -> None:
    book = tmp_path / "book.ndjson"
    code, _ = invoke(app, "deals", "make", str(book), "--count", "2", "--decks")
    assert code == 0
    deals = read_book(book, 24)
    out = tmp_path / "run.ndjson"
    code, text = invoke(
        app, "match", "greedy", "random", "--deals", str(book), "--hands", "4",
        "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, text
    for game in games_of(out):
        deal = deals[int(game["pair"])]  # type: ignore[call-overload]
        assert deal.deck is not None
        assert game["deals"] == [
            {"dealer": deal.dealer, "deck": " ".join(CARD_CODES[c] for c in deal.deck)}
        ]


@pytest.mark.parametrize(
    ("decks", "args", "message"),
    [
        (True, ("--matches", "2"), "use --hands"),
        (True, ("--hands", "2", "--transport", "loopback"), "cannot be chosen"),
        (True, ("--hands", "2", "--replays", "r"), "peers (--replays) cannot deal"),
        (False, ("--hands", "8"), "holds 3 deals; 8 games need 4"),
    ],
)
def test_books_that_cannot_serve_the_run_are_refused(
    app: typer.Typer, tmp_path: Path, decks: bool, args: tuple[str, ...], message: str
) -> None:
    book = tmp_path / "book.ndjson"
    flags = ("--decks",) if decks else ()
    assert invoke(app, "deals", "make", str(book), "--count", "3", *flags)[0] == 0
    code, text = invoke(app, "match", "random", "random", "--deals", str(book), *args)
    assert code == 2 and message in text, text


def test_resume_refuses_another_book(app: typer.Typer, tmp_path: Path) -> None:
    books = [tmp_path / "one.ndjson", tmp_path / "two.ndjson"]
    for seed, book in enumerate(books):
        invoke(app, "deals", "make", str(book), "--count", "2", "--seed", str(seed))
    out = tmp_path / "run.ndjson"
    base = ("match", "random", "random", "--out", str(out), "--no-progress", "--hands", "4")
    assert invoke(app, *base, "--deals", str(books[0]))[0] == 0
    code, text = invoke(app, *base, "--deals", str(books[1]), "--resume")
    assert code == 2 and "its deals is" in text


def test_deals_make_refuses_to_overwrite(app: typer.Typer, tmp_path: Path) -> None:
    book = tmp_path / "book.ndjson"
    book.write_text("precious")
    code, text = invoke(app, "deals", "make", str(book))
    assert code == 2 and "--force" in text
    assert book.read_text() == "precious"
    code, text = invoke(app, "deals", "make", str(book), "--count", "0", "--force")
    assert code == 2 and "1 to" in text
