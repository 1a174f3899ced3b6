"""Options and presets of the games for three and four players (RULES.md "Options of these games").

Two typed, immutable option sets: ``ThreeHandedOptions`` (a two-player hand
per deal, the dealer sitting out) and ``BiddingOptions`` (bidding, trump by
the first card led, marks per 33: ``north-american``/``south-bend`` with four
seats in two partnerships, ``cut-throat`` with three seats and a widow).
``table_options(preset, values)`` is the one way options enter from outside;
it refuses unknown names, options the preset's game does not have ("-" in
the table of RULES.md) and values an option cannot take.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal, get_type_hints

from p2p66.engine.errors import RuleOptionError
from p2p66.engine.options import (
    PRESETS,
    RuleOptions,
    check_option_value,
    coerce_option_value,
    preset_name,
)

AllPass = Literal["redeal", "dealer-bids-1"]
DealerScores = Literal["as-winner-capped", "nothing"]
BiddingPlayers = Literal[3, 4]
ThreePlayers = Literal[3]


@dataclass(frozen=True, slots=True)
class BiddingOptions:
    """Rules of a bidding game: 4 seats = partnerships (north-american), 3 = cut-throat."""

    players: BiddingPlayers = 4
    all_pass: AllPass = "redeal"
    overtrump: bool = True
    last_trick_bonus: int = 0
    moon_marks: int = 5
    match_target: int = 10

    def __post_init__(self) -> None:
        _check_fields(self)

    @property
    def game(self) -> str:
        return "partnership" if self.players == 4 else "cut-throat"

    @property
    def hand_size(self) -> int:
        return 6 if self.players == 4 else 7

    @property
    def widow_size(self) -> int:
        return 24 - self.players * self.hand_size

    @property
    def max_bid(self) -> int:
        """5 (the moon) with partners; 4 in cut-throat (no partner to lay down)."""
        return 5 if self.players == 4 else 4

    @property
    def sides(self) -> int:
        """Scoring sides: two partnerships, or each of three players alone."""
        return 2 if self.players == 4 else 3

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def to_dict(self) -> dict[str, Any]:
        """The options of this game by name (the wire and replay headers)."""
        return {name: getattr(self, name) for name in _applicable(self)}


@dataclass(frozen=True, slots=True)
class ThreeHandedOptions:
    """Rules of ``three-handed``: each deal a two-player hand by ``hand_rules``."""

    players: ThreePlayers = 3
    hand_rules: RuleOptions = PRESETS["sixty-six"]
    dealer_scores: DealerScores = "as-winner-capped"
    match_target: int = 7

    def __post_init__(self) -> None:
        if not isinstance(self.hand_rules, RuleOptions):
            raise RuleOptionError("rule option hand_rules must be two-player rule options")
        _check_fields(self)

    @property
    def game(self) -> str:
        return "three-handed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "hand_rules": self.hand_rules.to_dict(),
            "dealer_scores": self.dealer_scores,
            "match_target": self.match_target,
        }


TableOptions = BiddingOptions | ThreeHandedOptions
RULE_OPTION_NAMES: Final = frozenset(f.name for f in fields(RuleOptions))


def _check_fields(options: TableOptions) -> None:
    hints = get_type_hints(type(options))
    for f in fields(options):
        if f.name != "hand_rules":
            check_option_value(f.name, hints[f.name], getattr(options, f.name))


def _applicable(options: TableOptions) -> tuple[str, ...]:
    names = tuple(f.name for f in fields(options))
    if isinstance(options, BiddingOptions) and options.players == 3:
        return tuple(n for n in names if n != "moon_marks")
    return names


TABLE_PRESETS: Final[dict[str, TableOptions]] = {
    "three-handed": ThreeHandedOptions(),
    "north-american": BiddingOptions(),
    "south-bend": BiddingOptions(match_target=15),
    "cut-throat": BiddingOptions(players=3, match_target=15),
}


def table_preset(name: str) -> TableOptions:
    """The options of a preset for three or four players, or a RuleOptionError."""
    try:
        return TABLE_PRESETS[name]
    except KeyError:
        raise RuleOptionError(
            f"unknown preset {name!r}; presets for three and four players: "
            f"{', '.join(TABLE_PRESETS)}"
        ) from None


def is_table_preset(name: str) -> bool:
    return name in TABLE_PRESETS


def any_preset(name: str) -> RuleOptions | TableOptions:
    """A preset of any game, two-player or table, by name (the CLI's ``--preset``)."""
    if name in TABLE_PRESETS:
        return TABLE_PRESETS[name]
    if name in PRESETS:
        return PRESETS[name]
    raise RuleOptionError(
        f"unknown preset {name!r}; presets: {', '.join([*PRESETS, *TABLE_PRESETS])}"
    )


def table_options(
    base: TableOptions | str, values: Mapping[str, Any], *, coerce: bool = True
) -> TableOptions:
    """``base`` (options or a preset name) with ``values`` over it; RuleOptionError says why not.

    ``players`` may be named only with its preset's value (it decides the game);
    ``hand_rules`` takes a two-player preset name or a full mapping of two-player
    options; ``coerce`` accepts command-line strings ("true", "15").
    """
    opts = table_preset(base) if isinstance(base, str) else base
    known = _applicable(opts)
    game = opts.game
    for name in sorted(values):
        if name not in known:
            every = {f.name for o in TABLE_PRESETS.values() for f in fields(o)}
            if name in every or name in RULE_OPTION_NAMES:
                hint = ""
                if game == "three-handed" and name in RULE_OPTION_NAMES:
                    hint = " (it is one of the hands' own rules: set it inside hand_rules)"
                raise RuleOptionError(f"rule option {name!r} does not apply to {game}{hint}")
            raise RuleOptionError(
                f"unknown rule option {name!r}; options of {game}: {', '.join(known)}"
            )
    hints = get_type_hints(type(opts))
    typed: dict[str, Any] = {}
    for name, value in values.items():
        if name == "hand_rules":
            typed[name] = _hand_rules(value, coerce=coerce)
        else:
            typed[name] = coerce_option_value(name, hints[name], value) if coerce else value
    if "players" in typed and typed["players"] != opts.players:
        raise RuleOptionError(
            f"rule option players is {opts.players} in {game}: the number of seats is the game "
            f"(4: north-american, south-bend; 3: cut-throat, three-handed)"
        )
    return replace(opts, **typed)


def table_options_from_wire(values: Mapping[str, Any]) -> TableOptions:
    """Options exactly as the wire and replays carry them: every option of the game, typed."""
    if "hand_rules" in values:
        base: TableOptions = TABLE_PRESETS["three-handed"]
    elif values.get("players") == 3:
        base = TABLE_PRESETS["cut-throat"]
    else:
        base = TABLE_PRESETS["north-american"]
    missing = sorted(set(_applicable(base)) - set(values))
    if missing:
        raise RuleOptionError(f"the rule options lack {', '.join(missing)}")
    return table_options(base, values, coerce=False)


def _hand_rules(value: Any, *, coerce: bool) -> RuleOptions:
    if isinstance(value, RuleOptions):
        return value
    if isinstance(value, str):
        if value not in PRESETS:
            raise RuleOptionError(
                f"rule option hand_rules names a two-player preset ({', '.join(PRESETS)}), "
                f"not {value!r}"
            )
        return PRESETS[value]
    if isinstance(value, Mapping):
        return RuleOptions.from_mapping(value) if coerce else RuleOptions.from_wire(value)
    raise RuleOptionError(f"rule option hand_rules cannot be {value!r}")


def table_preset_name(options: TableOptions) -> str | None:
    """The preset these options are exactly, if any."""
    for name, opts in TABLE_PRESETS.items():
        if opts == options:
            return name
    return None


def table_label(options: TableOptions) -> str:
    """A short name for people: the preset apart from the match target, or the game."""
    if isinstance(options, ThreeHandedOptions):
        rules = preset_name(options.hand_rules) or "custom"
        return "three-handed" if rules == "sixty-six" else f"three-handed ({rules})"
    if options.players == 3:
        return "cut-throat"
    return "south-bend" if options.match_target == 15 else "north-american"
