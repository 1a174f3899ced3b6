"""Rule options and presets (RULES.md "All options, per preset").

Every option of RULES.md is a field of the immutable ``RuleOptions``; a preset
is nothing but a named bundle of values. ``RuleOptions.from_mapping`` is the
one way options enter from outside (CLI, network, replay header), and it
rejects unknown names and values with a message that lists what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from functools import cache
from typing import Any, Final, Literal, get_args, get_type_hints

from p2p66.engine.errors import RuleOptionError

DealLayout = Literal["packets", "alternate"]
ExchangeRank = Literal["9", "J"]
MarriageNeedsTrick = Literal["credit-later", "forbidden"]
MarriageLead = Literal["either", "king"]
MarriageCredit = Literal["immediate", "next-trick"]
DeclareMode = Literal["manual", "automatic"]
ExhaustedEnd = Literal["unclaimed-end", "last-trick-wins", "last-trick-1"]
UnclaimedEnd = Literal["last-trick", "points"]
CloserScoredAt = Literal["close", "declare"]
Schwarz = Literal["no-trick", "no-points"]
DeckSize = Literal[24, 20]


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The complete rule set of a hand and match; see RULES.md for each field."""

    deck_size: DeckSize = 24
    deal_layout: DealLayout = "packets"
    exchange_rank: ExchangeRank = "9"
    exchange_requires_trick: bool = True
    exchange_min_talon: int = 2
    marriage_when_closed: bool = False
    marriage_needs_trick: MarriageNeedsTrick = "credit-later"
    marriage_lead: MarriageLead = "either"
    marriage_credit: MarriageCredit = "immediate"
    declare: DeclareMode = "manual"
    last_trick_bonus: int = 10
    exhausted_end: ExhaustedEnd = "unclaimed-end"
    unclaimed_end: UnclaimedEnd = "last-trick"
    allow_close: bool = True
    close_before_draw: bool = True
    close_before_first_trick: bool = True
    closer_scored_at: CloserScoredAt = "close"
    schwarz: Schwarz = "no-trick"
    match_target: int = 7

    def __post_init__(self) -> None:
        hints = _hints()
        for f in fields(self):
            _check_value(f.name, hints[f.name], getattr(self, f.name))
        if self.deck_size == 20 and self.exchange_rank == "9":
            raise RuleOptionError(
                "exchange_rank '9' needs deck_size 24: a 20-card deck has no nines"
            )

    @property
    def hand_size(self) -> int:
        return 6 if self.deck_size == 24 else 5

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, for replay headers and the wire (JSON/msgpack friendly)."""
        return asdict(self)

    @classmethod
    def from_wire(cls, values: Mapping[str, Any]) -> RuleOptions:
        """Options exactly as the wire and replays carry them: every option, typed, no coercion."""
        names = {f.name for f in fields(cls)}
        missing = sorted(names - set(values))
        if missing:
            raise RuleOptionError(f"the rule options lack {', '.join(missing)}")
        return cls.from_mapping(values, coerce=False)

    @classmethod
    def from_mapping(
        cls, values: Mapping[str, Any], base: RuleOptions | None = None, *, coerce: bool = True
    ) -> RuleOptions:
        """Options from a mapping of names to values, over ``base`` (default: sixty-six).

        ``coerce`` accepts command-line strings ("true", "24"); the wire never needs it.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise RuleOptionError(
                f"unknown rule option {unknown[0]!r}; known options: {', '.join(sorted(known))}"
            )
        hints = _hints()
        if coerce:
            values = {k: _coerce(k, hints[k], v) for k, v in values.items()}
        return replace(base or cls(), **values)

    def with_options(self, **values: Any) -> RuleOptions:
        return RuleOptions.from_mapping(values, base=self)


@cache
def _hints() -> dict[str, Any]:
    """The options' types, resolved once (``get_type_hints`` costs a millisecond a call)."""
    return get_type_hints(RuleOptions)


def _allowed(hint: Any) -> tuple[Any, ...] | None:
    args = get_args(hint)
    return args or None


def _check_value(name: str, hint: Any, value: Any) -> None:
    allowed = _allowed(hint)
    if allowed is not None:
        if not any(type(value) is type(a) and value == a for a in allowed):
            shown = ", ".join(repr(a) for a in allowed)
            raise RuleOptionError(f"rule option {name} cannot be {value!r}; allowed: {shown}")
        return
    if hint is bool:
        if not isinstance(value, bool):
            raise RuleOptionError(f"rule option {name} must be true or false, not {value!r}")
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RuleOptionError(f"rule option {name} must be a whole number >= 0, not {value!r}")
    if name == "match_target" and value < 1:
        raise RuleOptionError("rule option match_target must be at least 1")


_TRUE: Final = frozenset({"true", "yes", "1", "on"})
_FALSE: Final = frozenset({"false", "no", "0", "off"})


def _coerce(name: str, hint: Any, value: Any) -> Any:
    """Accept the string forms a command line gives ("true", "24", "j") for typed options.

    Anything else is passed through unchanged, for ``_check_value`` to accept or refuse.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if hint is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise RuleOptionError(f"rule option {name} must be true or false, not {value!r}")
    allowed = _allowed(hint) or ()
    if hint is int or (allowed and all(isinstance(a, int) for a in allowed)):
        try:
            return int(text)
        except ValueError:
            raise RuleOptionError(
                f"rule option {name} must be a whole number, not {value!r}"
            ) from None
    for candidate in (text, text.upper(), text.lower()):
        if candidate in allowed:
            return candidate
    return value


PRESETS: Final[dict[str, RuleOptions]] = {
    "sixty-six": RuleOptions(),
    "schnapsen": RuleOptions(
        deck_size=20,
        exchange_rank="J",
        exchange_requires_trick=False,
        exchange_min_talon=4,
        marriage_when_closed=True,
        last_trick_bonus=0,
        exhausted_end="last-trick-wins",
        close_before_draw=False,
    ),
    "vu": RuleOptions(
        deck_size=20,
        deal_layout="alternate",
        exchange_rank="J",
        exchange_requires_trick=False,
        exchange_min_talon=2,
        marriage_when_closed=True,
        marriage_lead="king",
        marriage_credit="next-trick",
        declare="automatic",
        last_trick_bonus=0,
        exhausted_end="last-trick-1",
        allow_close=False,
        close_before_draw=False,
        close_before_first_trick=False,
        schwarz="no-points",
    ),
}


def preset(name: str) -> RuleOptions:
    """The options of a named preset, or a RuleOptionError listing the presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RuleOptionError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None


def preset_name(options: RuleOptions) -> str | None:
    """The preset these options are exactly, if any."""
    for name, opts in PRESETS.items():
        if opts == options:
            return name
    return None


def base_preset(options: RuleOptions) -> str | None:
    """The preset these options are, apart from the match target (bot matches shorten it)."""
    return preset_name(replace(options, match_target=7))


def preset_label(options: RuleOptions) -> str:
    """A short name for people and file names: the base preset, or "custom"."""
    return base_preset(options) or "custom"


# The same checks and command-line coercion for the options of the games for
# three and four players (engine/table/options.py).
check_option_value = _check_value
coerce_option_value = _coerce
