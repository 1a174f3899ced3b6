"""Helpers of the replay tests: the golden generator as a module, and rule features of a game."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from p2p66.engine import HowEnded
from p2p66.engine.moves import CLOSE, EXCHANGE, MARRY_BASE
from p2p66.engine.options import base_preset
from p2p66.replay.report import Ending, Status
from p2p66.replay.story import hand_stories
from p2p66.replay.verify import Verification

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"


def load_generator() -> ModuleType:
    """``scripts/make_replays.py`` as a module (its keys, bots and cheating tools)."""
    name = "make_replays"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "make_replays.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def features(v: Verification) -> set[str]:
    """The rule features a verified game shows, recomputed from its hands."""
    report = v.report
    out: set[str] = set()
    if report.status is Status.UNFINISHED:
        out.add("unfinished")
    if report.ending is Ending.RESIGNED:
        out.add("resigned")
    if report.ending is Ending.REFUSED:
        out.add("refused")
    if report.soundness:
        out.add("proofs")
    options = report.options
    if options is not None and base_preset(options) is None:
        out.add("custom")
    for h in report.hands:
        out.update(f"marriage-{m.points}" for m in h.marriages)
        if h.exchanges and options is not None:
            out.add(f"exchange-{options.exchange_rank}")
        r = h.result
        if r is None:
            continue
        how = {
            HowEnded.DECLARED_66: "declare-auto"
            if options is not None and options.declare == "automatic"
            else "declare-true",
            HowEnded.FALSE_DECLARATION: "declare-false",
            HowEnded.CLOSER_SUCCEEDED: "close-succeeded",
            HowEnded.CLOSER_FAILED: "close-failed",
            HowEnded.LAST_TRICK: "last-trick",
            HowEnded.MORE_POINTS: "more-points",
            HowEnded.TIE: "tie",
        }[r.how]
        out.add(how)
    for story in hand_stories(v):
        for step in story.steps:
            if MARRY_BASE <= step.code < EXCHANGE and not step.before.talon_open:
                out.add("marriage-when-closed")
            if step.code == CLOSE and step.before.tricks_played == 0:
                out.add("close-before-first-trick")
    return out
