"""``p2p66 config``: show and change the player's settings (name, preset, bot, colours)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from p2p66.net.identity import data_dir, home_dir
from p2p66.ui.config import (
    DESCRIPTIONS,
    Config,
    ConfigError,
    config_path,
    load_config,
    save_config,
    with_setting,
)


def register(app: typer.Typer) -> None:
    """Add the ``config`` command group to ``app``."""
    group = typer.Typer(
        name="config",
        help="Show or change your settings (stored in your config directory or $P2P66_HOME).",
        invoke_without_command=True,
        no_args_is_help=False,
    )

    @group.callback()
    def config_main(
        ctx: typer.Context,
        as_json: Annotated[
            bool, typer.Option("--json", help="The settings and paths as one JSON object.")
        ] = False,
    ) -> None:
        """Without a subcommand: show the settings."""
        if ctx.invoked_subcommand is None:
            _show(_load(), as_json=as_json)

    @group.command("show")
    def show(
        as_json: Annotated[
            bool, typer.Option("--json", help="The settings and paths as one JSON object.")
        ] = False,
    ) -> None:
        """Show every setting, its value and what it means."""
        _show(_load(), as_json=as_json)

    @group.command("set")
    def set_value(
        key: Annotated[str, typer.Argument(help=f"One of: {', '.join(DESCRIPTIONS)}.")],
        value: Annotated[str, typer.Argument(help="The new value.")],
    ) -> None:
        """Change one setting."""
        try:
            config = with_setting(_load(), key, value)
        except ConfigError as exc:
            raise typer.BadParameter(str(exc)) from None
        path = save_config(config)
        typer.echo(f"{key} = {_shown(asdict(config)[key])}  (saved in {path})")

    @group.command("reset")
    def reset() -> None:
        """Put every setting back to its default."""
        path = save_config(Config())
        typer.echo(f"Settings reset to defaults in {path}")

    app.add_typer(group)


def _load() -> Config:
    try:
        return load_config()
    except ConfigError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(2) from None


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _show(config: Config, *, as_json: bool = False) -> None:
    if as_json:
        paths = {
            "config": str(config_path()),
            "home": str(home_dir()),
            "replays": str(data_dir() / "replays"),
            "logs": str(data_dir() / "logs"),
        }
        typer.echo(json.dumps({"settings": asdict(config), "paths": paths}, indent=2))
        return
    typer.echo(f"# settings: {config_path()}")
    typer.echo(f"# keys and known peers: {home_dir()}")
    typer.echo(f"# replays and logs: {data_dir()}")
    for key, value in asdict(config).items():
        shown = "(not set)" if value is None else _shown(value)
        typer.echo(f"{key:7} = {shown:12} # {DESCRIPTIONS[key]}")
