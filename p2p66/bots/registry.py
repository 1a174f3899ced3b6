"""Bot names: built-in bots, ``vu:`` bots of the ``schnapsen`` package, external commands.

A bot spec is the text a user types: ``random``, ``strong:ms=50`` (a
built-in name with ``key=value`` options after a colon), ``vu:rdeep:16:4``
(a bot of the optional ``schnapsen`` package), or anything else, which is a
command line that starts an external bot speaking ``protocol/BOT.md``.
Specs are parsed once into a picklable ``BotSpec`` so worker processes can
build their own bots.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from p2p66.bots.api import Bot, BotError
from p2p66.engine.options import RuleOptions

BotFactory = Callable[[int, Mapping[str, str], RuleOptions], Bot]


@dataclass(frozen=True, slots=True)
class BuiltinBot:
    """A registered bot: its name, a one-line description, its options, and its factory."""

    name: str
    summary: str
    options: Mapping[str, str]
    factory: BotFactory


def _random(seed: int, opts: Mapping[str, str], rules: RuleOptions) -> Bot:
    from p2p66.bots.random_bot import RandomBot

    _no_options("random", opts, ())
    return RandomBot(seed)


def _greedy(seed: int, opts: Mapping[str, str], rules: RuleOptions) -> Bot:
    from p2p66.bots.greedy import GreedyBot

    _no_options("greedy", opts, ())
    return GreedyBot(seed)


def _expert(seed: int, opts: Mapping[str, str], rules: RuleOptions) -> Bot:
    from p2p66.bots.expert import ExpertBot

    _no_options("expert", opts, ())
    return ExpertBot(seed)


STRONG_OPTIONS = ("ms", "samples", "endgame", "solve", "search", "infer", "model", "reuse", "race")


def _strong_settings(opts: Mapping[str, str]) -> dict[str, str | float | int]:
    """Every setting of a ``strong`` bot, defaults filled in (what the results record)."""
    _no_options("strong", opts, STRONG_OPTIONS)
    from p2p66.bots.strong import INFER, MODEL, RACE, REUSE, SEARCHES, SOLVE_TALON

    search = opts.get("search", "auto")
    if search not in SEARCHES:
        raise BotError(f"bot strong: option search is auto, pimc or ismcts, not {search!r}")
    settings: dict[str, str | float | int] = {
        "ms": _number("strong", opts, "ms", 100.0),
        "samples": int(_number("strong", opts, "samples", 0)),
        "endgame": int(_number("strong", opts, "endgame", 0, zero_ok=True)),
        "solve": int(_number("strong", opts, "solve", SOLVE_TALON, zero_ok=True)),
        "search": search,
    }
    model = _number("strong", opts, "model", MODEL, zero_ok=True)
    if model > 1:
        raise BotError(f"bot strong: option model is a weight from 0 to 1, not {opts['model']!r}")
    optional = {
        "infer": _flag("strong", opts, "infer", INFER),
        "model": model,
        "reuse": _flag("strong", opts, "reuse", REUSE),
        "race": _number("strong", opts, "race", RACE, zero_ok=True),
    }
    defaults = {"infer": int(INFER), "model": MODEL, "reuse": int(REUSE), "race": RACE}
    # recorded only when they differ from the default
    settings.update({k: v for k, v in optional.items() if v != defaults[k]})
    return settings


def _strong(seed: int, opts: Mapping[str, str], rules: RuleOptions) -> Bot:
    from p2p66.bots.strong import INFER, MODEL, RACE, REUSE, SEARCHES, StrongBot

    settings = _strong_settings(opts)
    return StrongBot(
        seed,
        budget=float(settings["ms"]) / 1000.0,
        max_samples=int(settings["samples"]) or None,
        endgame=int(settings["endgame"]),
        solve_talon=int(settings["solve"]),
        search=SEARCHES[str(settings["search"])],
        infer=bool(settings.get("infer", INFER)),
        model=float(settings.get("model", MODEL)),
        reuse=bool(settings.get("reuse", REUSE)),
        race=float(settings.get("race", RACE)),
    )


BUILTINS: dict[str, BuiltinBot] = {
    b.name: b
    for b in (
        BuiltinBot("random", "uniformly random legal moves (seeded)", {}, _random),
        BuiltinBot("greedy", "grabs points now, never plans, no memory", {}, _greedy),
        BuiltinBot(
            "expert",
            "heuristic with card tracking: marriages, trumps, exchange, closes on a count",
            {},
            _expert,
        ),
        BuiltinBot(
            "strong",
            "determinised search (PIMC) with card inference and an exact endgame solver",
            {
                "ms": "thinking time per move in milliseconds (default 100)",
                "samples": "fixed number of determinisations instead of a time budget",
                "endgame": "solve playouts exactly once the talon is gone and "
                "hands hold at most N cards (default 0)",
                "solve": "solve worlds exactly once the talon holds at most N cards, every one "
                "when they are few (default 0: off)",
                "search": "pimc, ismcts, or auto (default: ismcts if the talon cannot be closed)",
                "infer": "1: weigh the guessed worlds by how well they explain the opponent's "
                "lead (default 0)",
                "model": "E in (0, 1]: weigh the guessed worlds by how well they explain the "
                "opponent's recent decisions, each one the expert would not have made counting "
                "E (default 0: off)",
                "reuse": "1: ISMCTS goes on with the tree of this seat's previous decision "
                "(default 0)",
                "race": "Z: PIMC stops solving a move (a close) shown Z standard errors worse "
                "than the best (default 2; 0: off)",
            },
            _strong,
        ),
    )
}


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A parsed bot spec; ``label`` is what tables and records show."""

    kind: Literal["builtin", "vu", "external"]
    name: str
    options: tuple[tuple[str, str], ...] = ()
    command: tuple[str, ...] = ()
    text: str = ""

    @property
    def label(self) -> str:
        return self.text or self.name


def parse_bot_spec(text: str) -> BotSpec:
    """Parse what the user typed; BotError explains a bad built-in spec."""
    raw = text.strip()
    if not raw:
        raise BotError("empty bot spec: give a built-in name (random, expert, ...) or a command")
    head, _, rest = raw.partition(":")
    if head in BUILTINS and " " not in raw:
        options: list[tuple[str, str]] = []
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise BotError(f"bot option {item!r} in {raw!r} is not key=value")
            options.append((key.strip(), value.strip()))
        return BotSpec("builtin", head, tuple(options), text=raw)
    if head == "vu":
        if not rest:
            raise BotError("vu bots are named vu:rand, vu:rdeep[:SAMPLES:DEPTH] or vu:bully")
        return BotSpec("vu", rest, text=raw)
    try:
        command = tuple(shlex.split(raw))
    except ValueError as exc:
        raise BotError(f"cannot split the bot command {raw!r}: {exc}") from None
    return BotSpec("external", command[0], command=command, text=raw)


def make_bot(
    spec: BotSpec,
    seed: int,
    rules: RuleOptions,
    *,
    margin: float = 0.05,
    stderr: Path | None = None,
) -> Bot:
    """Build a fresh bot for one game; ``margin`` and ``stderr`` (a log file): external only."""
    if spec.kind == "builtin":
        bot = BUILTINS[spec.name].factory(seed, dict(spec.options), rules)
        bot.name = spec.label
        return bot
    if spec.kind == "vu":
        from p2p66.bots.vu import make_vu_bot

        return make_vu_bot(spec.name, seed, rules)
    from p2p66.bots.external import ExternalBot

    return ExternalBot(spec.command, rules, name=spec.label, margin=margin, stderr=stderr)


def bot_settings(spec: BotSpec) -> dict[str, object]:
    """What the results file records of a bot: its spec, every option, and reproducibility.

    ``reproducible`` is False for a bot budgeted by time (its play depends on
    the machine's speed, so ``--seed`` cannot repeat it), None when unknown
    (an external command).
    """
    record: dict[str, object] = {"spec": spec.label, "kind": spec.kind}
    if spec.kind == "builtin":
        options: dict[str, object] = dict(spec.options)
        reproducible = True
        if spec.name == "strong":
            options = dict(_strong_settings(dict(spec.options)))
            reproducible = bool(options["samples"])  # samples=N replaces the time budget
        record |= {"options": options, "reproducible": reproducible}
    elif spec.kind == "vu":
        record |= {"options": {}, "reproducible": True}
    else:
        record |= {"command": list(spec.command), "reproducible": None}
    return record


def _no_options(bot: str, opts: Mapping[str, str], allowed: tuple[str, ...]) -> None:
    for key in opts:
        if key not in allowed:
            known = ", ".join(allowed) if allowed else "none"
            raise BotError(f"bot {bot} has no option {key!r} (options: {known})")


def _flag(bot: str, opts: Mapping[str, str], key: str, default: bool) -> int:
    """A 0-or-1 option."""
    value = opts.get(key, str(int(default)))
    if value not in ("0", "1"):
        raise BotError(f"bot {bot}: option {key} is 0 or 1, not {value!r}")
    return int(value)


def _number(
    bot: str, opts: Mapping[str, str], key: str, default: float, *, zero_ok: bool = False
) -> float:
    if key not in opts:
        return default
    try:
        value = float(opts[key])
    except ValueError:
        raw = opts[key]
        hint = f" (separate options with commas: {bot}:ms=50,samples=20)" if ":" in raw else ""
        raise BotError(f"bot {bot}: option {key} must be a number, not {raw!r}{hint}") from None
    if not math.isfinite(value):  # float() takes "nan" and "inf": no budget or weight is either
        raise BotError(f"bot {bot}: option {key} must be a finite number, not {opts[key]!r}")
    if value < 0 or (value == 0 and not zero_ok):
        raise BotError(f"bot {bot}: option {key} must be positive, not {opts[key]!r}")
    return value
