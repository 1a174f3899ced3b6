"""Generate the golden replays of the games for three and four players (replays/table/).

One whole match per table preset, every seat its own session peer around
the in-memory relay (``p2p66.session.tableplay``), with the mental-poker
deal and default proofs (the shuffle argument), fixed identity keys, seeded
randomness and seeded bots, so a run writes the very same bytes again. Each
``NAME.p66`` has ``NAME.json``, the ``p2p66 verify --json`` report it must
verify to; ``MANIFEST.json`` lists them. ``--check`` compares instead of
writing (the tests run it).

    PYTHONPATH=$PWD python scripts/make_table_replays.py [--check]
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import check_wanted, regenerate_files

from p2p66.bots.table import make_table_bot
from p2p66.crypto.config import ARGUMENT
from p2p66.engine.table import TableView, table_options
from p2p66.replay.fileio import PREAMBLE, frame
from p2p66.replay.verify import verify_records
from p2p66.session.peer import Peer, Signer
from p2p66.session.records import Record
from p2p66.session.tablegame import TableSeatView
from p2p66.session.tableplay import TableChooser, run_table

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "replays" / "table"
NAMES = ("north", "east", "south", "west")


def private_key(name: str) -> Ed25519PrivateKey:
    """The fixed identity key of a golden player (never use these keys for anything else)."""
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(f"p2p66 golden table replay identity: {name}".encode()).digest()
    )


KEYS = {seat: private_key(name) for seat, name in enumerate(NAMES)}


def signer(seat: int) -> Signer:
    key = KEYS[seat]
    return Signer(NAMES[seat], key.public_key().public_bytes_raw(), key.sign)


def rng(seed: int) -> Callable[[int], bytes]:
    return random.Random(seed).randbytes


@dataclass(frozen=True)
class TableGolden:
    name: str
    preset: str
    about: str
    target: int
    seed: int


GOLDEN_TABLES = (
    TableGolden("three-handed-match", "three-handed", "three seats, the dealer sits out", 3, 1),
    TableGolden("north-american-match", "north-american", "two partnerships", 3, 2),
    TableGolden("south-bend-match", "south-bend", "two partnerships, south-bend", 3, 3),
    TableGolden("cut-throat-match", "cut-throat", "three alone, the widow", 3, 4),
)


def choosers(players: int, seed: int) -> list[TableChooser]:
    """``expert`` for the bidding games; seeded random legal moves in three-handed hands."""
    bots = [make_table_bot("expert", seed * 10 + s) for s in range(players)]
    pick = random.Random(seed)

    def chooser(seat: int) -> TableChooser:
        def choose(view: TableSeatView) -> int:
            if isinstance(view, TableView):
                return bots[seat].choose(view)
            assert view.hand is not None
            return pick.choice(view.hand.legal).code

        return choose

    return [chooser(s) for s in range(players)]


def play(golden: TableGolden) -> list[Record]:
    """The match's records, as every peer holds them (checked identical)."""
    options = table_options(golden.preset, {"match_target": golden.target})
    n = options.players
    peers = [
        Peer(
            s,
            signer(s),
            options=options if s == 0 else None,
            soundness=ARGUMENT,
            rng=rng(golden.seed * 100 + s),
            seats=n,
        )
        for s in range(n)
    ]
    relay = run_table(peers, choosers(n, golden.seed))
    if relay.refused is not None or not relay.over:
        raise SystemExit(f"{golden.name}: the match did not end cleanly: {relay.refused}")
    if any(p.machine.records != relay.records for p in peers):
        raise SystemExit(f"{golden.name}: the peers' records differ")
    return relay.records


def file_bytes(records: list[Record]) -> bytes:
    return PREAMBLE + b"".join(frame(r) for r in records)


def _json(obj: object) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True) + "\n").encode()


def build() -> dict[Path, bytes]:
    files: dict[Path, bytes] = {}
    manifest = {}
    for golden in GOLDEN_TABLES:
        records = play(golden)
        report = verify_records(records).report
        files[TABLE / f"{golden.name}.p66"] = file_bytes(records)
        files[TABLE / f"{golden.name}.json"] = _json(report.to_json())
        manifest[f"{golden.name}.p66"] = {
            "about": golden.about,
            "preset": golden.preset,
            "summary": f"{golden.name}.json",
        }
    files[TABLE / "MANIFEST.json"] = _json(manifest)
    return files


def main(argv: list[str] | None = None) -> int:
    return regenerate_files(build(), check=check_wanted(__doc__, argv), clean=(TABLE,))


if __name__ == "__main__":
    sys.exit(main())
