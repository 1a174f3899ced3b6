"""The ``p2p66`` command: a typer app on which each command module registers.

Start-up time matters (``p2p66 host`` should print its code at once), and
importing every command module costs more than a second of imports nobody
uses (bots, prompt_toolkit, the match runner). So ``main`` registers only
the module of the command given (``p2p66 host ...`` loads ``net_cmd``
alone); everything else (no command, ``--help``, an unknown or misspelt
command, shell completion) gets the whole app, as does ``app`` for importers.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Annotated, Any, Final

import typer

from p2p66 import __version__
from p2p66.cli.crash import report_crash
from p2p66.cli.output import flags_as_flags, forgiving_streams, markup_mode

COMMAND_MODULES: Final = {
    "play": "play_cmd",
    "host": "net_cmd",
    "join": "net_cmd",
    "net": "netcheck_cmd",
    "replay": "replay_cmd",
    "verify": "replay_cmd",
    "match": "match_cmd",
    "tournament": "tournament_cmd",
    "bot": "bot_cmd",
    "deals": "deals_cmd",
    "peers": "peers_cmd",
    "config": "config_cmd",
}
"""Which module registers each top-level command (in the order of ``p2p66 --help``)."""

flags_as_flags()
_root = typer.Typer(
    name="p2p66",
    help="Sixty-Six and Schnapsen between two peers: no server, no trust.",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=markup_mode(),
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"p2p66 {__version__}")
        raise typer.Exit()


@_root.callback()
def _root_options(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Sixty-Six and Schnapsen between two peers: no server, no trust."""


@_root.command()
def version() -> None:
    """Print the p2p66 version."""
    typer.echo(__version__)


def _register(module_name: str) -> None:
    module = importlib.import_module(f"p2p66.cli.{module_name}")
    if module_name == "play_cmd":
        from p2p66.live.loopback import loopback_table

        module.register(_root, table_factory=loopback_table)
    else:
        module.register(_root)


_registered: list[str] = []


def build(command: str | None = None) -> typer.Typer:
    """The app with ``command``'s module registered (every module when ``None``)."""
    wanted = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMAND_MODULES.values()
    for module_name in dict.fromkeys(wanted):
        if module_name not in _registered:
            _registered.append(module_name)
            _register(module_name)
    return _root


def _command(argv: list[str]) -> str | None:
    """The command named first on the line (``None``: none, an option, or completion)."""
    if not argv or argv[0].startswith("-") or "_P2P66_COMPLETE" in os.environ:
        return None
    return argv[0] if argv[0] in COMMAND_MODULES else None


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, for importers (tests, documentation tools)
        return build()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the command; an exception nobody handled is reported as a bug (exit 70)."""
    forgiving_streams()
    try:
        cli = globals().get("app") or build(_command(sys.argv[1:]))  # a test may set ``app``
        cli()
    except Exception as exc:  # the last line of defence: every known failure has its exit code
        sys.exit(report_crash(exc))


if __name__ == "__main__":
    main()
