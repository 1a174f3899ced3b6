"""Benchmark the replay verifier: hands verified per second, proofs off and on.

    python scripts/bench_verify.py [--matches 4] [--proof-hands 3] [--soundness 80 256]
    python scripts/bench_verify.py --per-proof    # each proof: checked as sent, and with seeds

Plays matches with the real protocol (the golden generator's bots and fixed
keys), writes them as ``.p66`` bytes, then times ``verify_bytes`` on them:
reading, framing, chain, signatures, every proof (when on), every key, the
end-of-hand audits and the rules. Targets on the 2-core development machine:
at least 50 hands per second with proofs off, and (issue 17) at least 50 hands
per CPU-second with proofs on; soundness 80 is the legacy cut-and-choose,
256 the shuffle argument. The verifier checks the proofs and keys of each
hand in its audit, with the revealed seeds (SPEC.md 9.4). The first line says
which group arithmetic ran: the optional compiled accelerator
(``python scripts/build_r255.py``) or rbcl alone (also with ``P2P66_PURE=1``).

Measured with ``--matches 4 --proof-hands 3 --soundness 256 --rounds 1``, 5 runs
alternating with the code before (SPEC.md 9.3, "Verifier cost"): proofs on,
37.2-39.0 hands per CPU-second before, 41.1-43.7 with rbcl alone, 56.7-63.9
with the accelerator (16-18 CPU-ms a hand); proofs off, 62-65 before, 72-77
after. The rest of a hand's time is the session layer's rules and records in
Python (about 7 ms) and its 38 signatures (about 2 ms).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_replays as gen

from p2p66.crypto.backlog import PendingProof, ProofBacklog
from p2p66.crypto.config import ARGUMENT, HandConfig
from p2p66.crypto.fastgroup import BACKEND
from p2p66.crypto.handkeys import HandSecrets, RevealedSecrets
from p2p66.crypto.memory import MemoryTable
from p2p66.crypto.party import DealParty
from p2p66.crypto.sigcheck import sodium_available
from p2p66.crypto.state import HandState, forget_public_openings
from p2p66.engine import preset
from p2p66.replay.report import Status
from p2p66.replay.verify import verify_bytes


def games(matches: int, soundness: int, target: int) -> list[bytes]:
    out = []
    presets = ("sixty-six", "schnapsen", "vu")
    for i in range(matches):
        options = preset(presets[i % len(presets)]).with_options(match_target=target)
        policy = gen.Policy(close_at=50)
        game = gen.Game(options, 1000 + i, (policy, policy), soundness=soundness)
        out.append(gen.file_bytes(gen.play(game)))
    return out


def bench(label: str, files: list[bytes], rounds: int) -> None:
    """Wall-clock and CPU time (the machine may be shared: CPU time is the fairer figure)."""
    hands = records = 0
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(rounds):
        for data in files:
            forget_public_openings()  # no file profits from an earlier one's openings
            report = verify_bytes(data).report
            assert report.status is Status.VALID, report.headline()
            hands += len(report.hands)
            records += report.records
    elapsed = time.perf_counter() - start
    used = time.process_time() - cpu
    size = sum(len(d) for d in files) / max(1, hands // rounds)
    print(
        f"{label:28s} {hands / elapsed:6.1f} hands/s wall, {hands / used:6.1f} per CPU-second  "
        f"{1000 * used / hands:6.1f} CPU-ms/hand  {records / used:6.0f} records/CPU-s  "
        f"{size / 1024:5.1f} KiB/hand  ({hands} hands)"
    )


def per_proof(rounds: int = 20) -> None:
    """CPU per proof of one real Sixty-Six deal: the check of SPEC.md 9.2/9.3, and 9.4's."""
    config = HandConfig.for_game(preset("sixty-six"), bytes(32), 0, 0, ARGUMENT)
    seeds = [bytes([seat + 1]) * 32 for seat in range(2)]
    table = MemoryTable([DealParty(config, seat, seed) for seat, seed in enumerate(seeds)])
    table.deal()
    state = HandState(config)
    state.backlog = ProofBacklog()
    for payload in table.parties[0].state.payloads:
        state.apply(payload)
    known = {s: RevealedSecrets.of(HandSecrets.derive(config, s, seeds[s])) for s in range(2)}
    for item in state.backlog.pending(config):
        if not isinstance(item, PendingProof):
            continue
        times = []
        for secrets in (None, known[item.seat]):
            assert item.verdict(secrets) is None
            cpu = time.process_time()
            for _ in range(rounds):
                item.verdict(secrets)
            times.append(1000 * (time.process_time() - cpu) / rounds)
        what = type(item.statement).__name__.removesuffix("Statement").lower()
        print(
            f"seat {item.seat} {what:8s} as sent {times[0]:5.2f} CPU-ms, "
            f"with the seeds {times[1]:5.2f} CPU-ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6, help="matches with proofs off")
    parser.add_argument("--proof-hands", type=int, default=3, help="one-hand games with proofs")
    parser.add_argument(
        "--soundness", type=int, nargs="+", default=[80, 256], help="proof soundness values"
    )
    parser.add_argument("--rounds", type=int, default=2, help="times each file is verified")
    parser.add_argument("--per-proof", action="store_true", help="time each proof check alone")
    args = parser.parse_args()
    signatures = "libsodium, cryptography for refusals" if sodium_available() else "cryptography"
    print(f"verifier group arithmetic: {BACKEND}; Ed25519: {signatures}")
    if args.per_proof:
        per_proof()
        return
    print("playing the games to verify...", flush=True)
    off = games(args.matches, 0, 7)
    on = {s: games(args.proof_hands, s, 1) for s in args.soundness}
    bench("proofs off (full matches)", off, args.rounds)
    for soundness, files in on.items():
        bench(f"proofs on (soundness {soundness})", files, 1)


if __name__ == "__main__":
    main()
