"""The player's settings: name, default preset, default bot, colours, ASCII suits.

Stored as a small TOML file in the user's config directory (or in
``$P2P66_HOME`` when set, which tests and portable installs use). Reading
uses ``tomllib``; writing is done here by hand because the file only ever
holds a handful of strings and booleans.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Final, Literal

import platformdirs

from p2p66.engine import PRESETS
from p2p66.engine.table import TABLE_PRESETS

ColorMode = Literal["auto", "always", "never"]
COLOR_MODES: Final = ("auto", "always", "never")
HOME_ENV: Final = "P2P66_HOME"
FILE_NAME: Final = "config.toml"
MAX_NAME = 32


class ConfigError(ValueError):
    """A setting the user gave (on the command line or in the file) is not acceptable."""


DEFAULT_NAME: Final = "Player"  # at a local table when no name was chosen
OLD_DEFAULT_NAME: Final = "Player"  # what files written before names were optional hold


@dataclass(frozen=True, slots=True)
class Config:
    """The settings; every field has a default so a missing file is fine."""

    name: str | None = None  # None: never chosen, so the identity's own name (login name)
    preset: str = "sixty-six"
    bot: str = "expert"
    color: ColorMode = "auto"
    ascii: bool = False


DESCRIPTIONS: Final = {
    "name": "your player name, shown to opponents (not set: your login name)",
    "preset": f"default rules for new matches ({', '.join(PRESETS)}; or, for `p2p66 play` "
    f"at the local table, {', '.join(TABLE_PRESETS)})",
    "bot": "default bot for `p2p66 play`",
    "color": "colours: auto (on a terminal unless NO_COLOR is set), always, never",
    "ascii": "suit letters C D H S instead of symbols (true/false)",
}


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$P2P66_HOME`` if set, else the platform's per-user config directory."""
    env = os.environ if env is None else env
    home = env.get(HOME_ENV)
    return Path(home) if home else Path(platformdirs.user_config_dir("p2p66"))


def config_path(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / FILE_NAME


def load_config(path: Path | None = None) -> Config:
    """The stored settings, or the defaults if there is no file yet."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the config file {path} is not valid TOML: {exc}") from None
    if data.get("name") == OLD_DEFAULT_NAME:
        del data["name"]  # an old file's default, not a choice the player made
    config = Config()
    for key, value in data.items():
        try:
            config = with_setting(config, key, value)
        except ConfigError as exc:
            raise ConfigError(f"in {path}: {exc}") from None
    return config


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write the settings (creating the directory) and return the file's path."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# p2p66 settings: edit here or use `p2p66 config set KEY VALUE`"]
    for f in fields(config):
        value = getattr(config, f.name)
        if value is None:
            continue  # not set: TOML has no null, and absent means "the default"
        shown = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value)
        lines.append(f"{f.name} = {shown}")
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def with_setting(config: Config, key: str, value: object) -> Config:
    """A copy with one setting changed; strings from the command line are accepted."""
    if key not in DESCRIPTIONS:
        raise ConfigError(f"unknown setting {key!r}; settings: {', '.join(DESCRIPTIONS)}")
    if key == "ascii":
        return replace(config, ascii=_boolean(key, value))
    if not isinstance(value, str):
        raise ConfigError(f"setting {key} must be text, not {value!r}")
    text = value.strip()
    if key == "name":
        return replace(config, name=_name(text))
    if key == "preset":
        if text not in PRESETS and text not in TABLE_PRESETS:
            every = ", ".join([*PRESETS, *TABLE_PRESETS])
            raise ConfigError(f"unknown preset {text!r}; presets: {every}")
        return replace(config, preset=text)
    if key == "bot":
        from p2p66.ui.bots import UnknownBotError, check_bot_spec

        try:
            return replace(config, bot=check_bot_spec(text))
        except UnknownBotError as exc:
            raise ConfigError(str(exc)) from None
    low = text.lower()
    if low not in COLOR_MODES:
        raise ConfigError(f"color must be one of {', '.join(COLOR_MODES)}, not {text!r}")
    return replace(config, color=low)  # type: ignore[arg-type]


def _boolean(key: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    low = str(value).strip().lower()
    if low in ("true", "yes", "on", "1"):
        return True
    if low in ("false", "no", "off", "0"):
        return False
    raise ConfigError(f"setting {key} must be true or false, not {value!r}")


def _name(text: str) -> str:
    if not text:
        raise ConfigError("the player name cannot be empty")
    if len(text) > MAX_NAME:
        raise ConfigError(f"the player name is at most {MAX_NAME} characters, not {len(text)}")
    if not text.isprintable():
        raise ConfigError("the player name cannot contain control characters")
    return text


def use_color(config: Config, env: Mapping[str, str], is_tty: bool) -> bool:
    """Colour on or off: ``always``/``never`` win; ``auto`` honours NO_COLOR, then the tty."""
    if config.color != "auto":
        return config.color == "always"
    if env.get("NO_COLOR"):
        return False
    return is_tty
