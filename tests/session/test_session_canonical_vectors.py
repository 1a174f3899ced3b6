"""The canonical-form vectors: exactly the valid ones decode, each invalid one is malformed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sessionkit import forge, make_pair

from p2p66.crypto.errors import MalformedMessage
from p2p66.crypto.messages import decode_payload
from p2p66.engine import preset
from p2p66.session import messages as msg
from p2p66.session.canonical import NonCanonical, unpack
from p2p66.session.errors import RemoteProtocolError

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "protocol" / "vectors" / "canonical_forms.json").read_text())


def decode(vector: dict[str, Any]) -> object:
    data = bytes.fromhex(vector["hex"])
    if vector["layer"] == "message":
        return msg.decode(data, 0)
    return decode_payload(unpack(data))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["name"])
def test_canonical_form_vector(vector: dict[str, Any]) -> None:
    if vector["valid"]:
        decode(vector)
    else:
        with pytest.raises((RemoteProtocolError, MalformedMessage, NonCanonical)):
            decode(vector)


def test_every_rule_has_valid_and_invalid_vectors() -> None:
    rules = {v.get("rule") for v in VECTORS["vectors"]}
    assert None in rules and len(rules) >= 7


def test_the_vectors_are_up_to_date() -> None:
    script = ROOT / "scripts" / "regen_canonical_vectors.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_live_peer_refuses_a_non_canonical_record() -> None:
    """The live peer judges with the same Machine: a wide-form hello is the sender's fault."""
    host, joiner = make_pair(preset("sixty-six"))
    host.start()
    for record in host.data_to_send():  # the honest hello, accepted
        joiner.receive_data(record.encode())
    joiner.data_to_send()
    hello = msg.encode(msg.Hello("bob", bytes(range(32)), "p2p66/1"))
    wide = hello.replace(b"\xa1v\x01", b"\xa1v\xcc\x01")  # v = 1 as uint8
    assert wide != hello
    record = forge(host.machine, 1, wide, 2)
    with pytest.raises(RemoteProtocolError, match="canonical form") as caught:
        host.receive_data(record.encode())
    assert caught.value.culprit == 1
