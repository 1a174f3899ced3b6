"""A host and a joiner in two network namespaces joined by a veth pair (root only).

The test makes its own namespaces with unique names, gives 10.66.0.1/24 and
10.66.0.2/24 to the two ends *inside* them (nothing changes in the machine's
own namespace), runs one small Python process in each with ``ip netns exec``,
and always deletes the namespaces afterwards (which deletes the veth too).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.netns

REPO = Path(__file__).resolve().parents[2]
HOST_ADDRESS = "10.66.0.1"
JOINER_ADDRESS = "10.66.0.2"
STEP_TIMEOUT = 20.0

HOST_SCRIPT = """
import asyncio, json, sys
from p2p66.net.channel import ChannelConfig
from p2p66.net.identity import KnownPeers, load_or_create_identity
from p2p66.net.tcp import Listener

async def main():
    me = load_or_create_identity("alice")
    words = tuple(sys.argv[1].split("-"))
    config = ChannelConfig(heartbeat_interval=0.2, idle_timeout=5)
    async with await Listener.open(me, words=words, bind=sys.argv[2], port=0,
                                   known_peers=KnownPeers.load(), config=config) as listener:
        print("LISTENING", listener.port, flush=True)
        channel = await listener.accept(timeout=15)
        message = await channel.recv()
        await channel.send(b"welcome, " + message)
        latency = await channel.ping()
        print(json.dumps({"peer": channel.peer.name, "fingerprint": channel.peer.fingerprint,
                          "got": message.decode(), "remote": channel.remote,
                          "latency": latency}), flush=True)
        await channel.aclose("game over")

asyncio.run(main())
"""

JOINER_SCRIPT = """
import asyncio, json, sys
from p2p66.net.errors import PeerClosed
from p2p66.net.identity import KnownPeers, load_or_create_identity
from p2p66.net.tcp import join

async def main():
    me = load_or_create_identity("bob")
    channel = await join(sys.argv[1], me, known_peers=KnownPeers.load())
    await channel.send(b"bob here")
    reply = await channel.recv()
    try:
        await channel.recv()
        closed = ""
    except PeerClosed as exc:
        closed = exc.reason
    print(json.dumps({"peer": channel.peer.name, "fingerprint": channel.peer.fingerprint,
                      "got": reply.decode(), "remote": channel.remote, "closed": closed}),
          flush=True)
    await channel.aclose()

asyncio.run(main())
"""


def _spawn(ns: str, script: str, home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "P2P66_HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        raise AssertionError(f"no output within {timeout} s")
    return proc.stdout.readline()


def _finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        out, err = proc.communicate(timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    assert proc.returncode == 0, err
    return out, err


@pytest.mark.timeout(90)
def test_host_and_joiner_in_separate_namespaces(
    namespaces: tuple[str, str], tmp_path: Path
) -> None:
    host_ns, joiner_ns = namespaces
    host = _spawn(host_ns, HOST_SCRIPT, tmp_path / "alice", "fox-lamp-river", HOST_ADDRESS)
    joiner: subprocess.Popen[str] | None = None
    try:
        first = _read_line(host, STEP_TIMEOUT)
        assert first.startswith("LISTENING"), first + (host.stderr.read() if host.stderr else "")
        port = int(first.split()[1])
        code = f"fox-lamp-river@{HOST_ADDRESS}:{port}"
        joiner = _spawn(joiner_ns, JOINER_SCRIPT, tmp_path / "bob", code)
        joiner_out, _ = _finish(joiner)
        host_out, _ = _finish(host)
    finally:
        for proc in (host, joiner):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
    hosted = json.loads(host_out.strip().splitlines()[-1])
    joined = json.loads(joiner_out.strip().splitlines()[-1])
    assert hosted["peer"] == "bob" and joined["peer"] == "alice"
    assert hosted["got"] == "bob here" and joined["got"] == "welcome, bob here"
    assert hosted["remote"].startswith(JOINER_ADDRESS + ":")
    assert joined["remote"] == f"{HOST_ADDRESS}:{port}"
    assert joined["closed"] == "game over"
    assert 0 <= hosted["latency"] < 1
    pins = json.loads((tmp_path / "bob" / "known_peers.json").read_text())
    assert pins["format"] == "p2p66-known-peers/2"  # pins are keys: a list, not a map by name
    assert [p["fingerprint"] for p in pins["peers"] if p["name"] == "alice"] == [
        joined["fingerprint"]
    ]
