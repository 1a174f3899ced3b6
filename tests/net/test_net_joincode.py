"""Join codes: the word list, formatting and parsing, and clear errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p66.net.joincode import (
    DEFAULT_PORT,
    WORDS,
    JoinCode,
    JoinCodeError,
    generate_words,
    new_join_code,
    parse_join_code,
    parse_words,
)


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[:], i
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
    return row[-1]


def test_word_list_has_256_short_distinct_words() -> None:
    assert len(WORDS) == 256
    assert len(set(WORDS)) == 256
    assert all(w.isascii() and w.isalpha() and w.islower() and 3 <= len(w) <= 6 for w in WORDS)


def test_no_word_is_one_typo_or_a_prefix_away_from_another() -> None:
    for i, a in enumerate(WORDS):
        for b in WORDS[i + 1 :]:
            assert _edit_distance(a, b) >= 2, (a, b)
            assert not a.startswith(b) and not b.startswith(a), (a, b)


def test_generation_uses_the_injected_random_source() -> None:
    assert generate_words(random.Random(7)) == generate_words(random.Random(7))
    seen = {generate_words(random.Random(seed)) for seed in range(50)}
    assert len(seen) == 50
    assert all(len(words) == 3 and set(words) <= set(WORDS) for words in seen)


def test_formats_ipv4_and_ipv6() -> None:
    code = JoinCode(("fox", "lamp", "river"), "127.0.0.1", 6666)
    assert str(code) == "fox-lamp-river@127.0.0.1:6666"
    assert str(JoinCode(("fox", "lamp", "river"), "::1", 7000)) == "fox-lamp-river@[::1]:7000"
    assert code.password == b"fox-lamp-river"


@settings(derandomize=True)
@given(
    st.tuples(*[st.sampled_from(WORDS)] * 3),
    st.sampled_from(["127.0.0.1", "::1", "localhost"]),
    st.integers(min_value=1, max_value=65535),
)
def test_format_then_parse_is_identity(words: tuple[str, ...], host: str, port: int) -> None:
    code = JoinCode(words, host, port)
    assert parse_join_code(str(code)) == code


def test_parsing_is_lenient_about_case_blanks_and_default_port() -> None:
    code = parse_join_code("  Fox-LAMP-river@127.0.0.1 ")
    assert code == JoinCode(("fox", "lamp", "river"), "127.0.0.1", DEFAULT_PORT)
    assert parse_words(" fox - lamp - river ") == ("fox", "lamp", "river")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fox-lamp-river", "needs '@'"),
        ("fox-lamp@127.0.0.1", "has 3 words"),
        ("fox-lamp-river-owl@127.0.0.1", "got 4"),
        ("foz-lamp-river@127.0.0.1", "did you mean 'fox'"),
        ("fox-lamp-river@", "no address"),
        ("fox-lamp-river@::1", "in brackets"),
        ("fox-lamp-river@[::1", "closing ']'"),
        ("fox-lamp-river@[::1]6666", "':port' after ']'"),
        ("fox-lamp-river@[127.0.0.1]:6666", "not an IPv6 address"),
        ("fox-lamp-river@127.0.0.1:http", "not a number"),
        ("fox-lamp-river@127.0.0.1:0", "outside 1..65535"),
        ("fox-lamp-river@127.0.0.1:65536", "outside 1..65535"),
        ("fox-lamp-river@bad_host!:6666", "neither an IP address nor a host name"),
    ],
)
def test_malformed_codes_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(JoinCodeError, match=message):
        parse_join_code(text)


def test_new_join_code_checks_its_address() -> None:
    assert new_join_code("127.0.0.1", 1, random.Random(1)).port == 1
    with pytest.raises(JoinCodeError):
        new_join_code("127.0.0.1", 70000)


@settings(derandomize=True)
@given(st.text(max_size=80))
def test_fuzz_any_text_parses_or_raises_join_code_error(text: str) -> None:
    try:
        code = parse_join_code(text)
    except JoinCodeError:
        return
    assert parse_join_code(str(code)) == code
