"""host/join and the shuffle proofs: on/off, legacy rounds refused below 64, plain words."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from p2p66.cli.app import app
from p2p66.cli.net_cmd import describe_rules, joiner_answer
from p2p66.cli.proofs import network_refusal, parse_soundness
from p2p66.crypto.config import ARGUMENT
from p2p66.engine import preset


def test_soundness_words_and_numbers() -> None:
    assert parse_soundness("on") == parse_soundness("ON") == parse_soundness("256") == ARGUMENT
    assert parse_soundness("off") == parse_soundness("0") == 0
    assert parse_soundness("80") == 80
    for bad in ("129", "-1", "maybe", "2^-80"):
        with pytest.raises(ValueError, match="soundness"):
            parse_soundness(bad)


def test_only_too_few_cut_and_choose_rounds_are_refused() -> None:
    assert [network_refusal(s) is None for s in (0, 16, 63, 64, 128, ARGUMENT)] == [
        True, False, False, True, True, True,
    ]  # fmt: skip
    assert "2^16 hashes" in str(network_refusal(16))


def test_proofs_are_described_in_plain_words() -> None:
    options = preset("sixty-six")
    on = describe_rules(options, ARGUMENT)
    assert "caught with all but negligible probability" in on and "2^-" not in on
    assert "2^80 hashes" in describe_rules(options, 80)
    assert "audit" in describe_rules(options, 0)


def test_host_refuses_grindable_soundness_before_listening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2P66_HOME", str(tmp_path))
    result = CliRunner().invoke(
        app, ["host", "--port", "0", "--soundness", "16", "--bot", "random"]
    )
    assert result.exit_code == 2, result.output
    assert "2^16 hashes" in result.output and "at least 64" in result.output
    assert "join code" not in result.output


def test_joiner_refuses_grindable_soundness_even_with_yes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answer = joiner_answer(accept=True)
    options = preset("sixty-six")
    refusal = asyncio.run(answer(options, 16))
    assert refusal is not None and "at least 64" in refusal
    assert "Refused" in capsys.readouterr().err
    assert asyncio.run(answer(options, ARGUMENT)) is None
    assert asyncio.run(answer(options, 64)) is None
