"""What ``play``, ``host`` and ``join`` share: their exit codes, and reading the settings."""

from __future__ import annotations

from typing import Final

import typer

from p2p66.ui.config import Config, ConfigError, load_config

EXIT_OK, EXIT_USAGE, EXIT_NETWORK, EXIT_CHEAT, EXIT_REFUSED, EXIT_REPLAY = 0, 2, 3, 4, 5, 6
EXIT_LEFT: Final = 7
EXIT_HELP: Final = (
    "Exit codes: 0 played to the end; 2 bad input; 3 no connection, it was lost, or the "
    "other player left (resigned or abandoned the match); "
    "4 the other player cheated or broke the protocol; 5 the rules were refused; "
    "6 the replay could not be written (what was written is kept); 7 you left early "
    "(resigned: q, Ctrl-C twice, SIGTERM, or the terminal closed)."
)


EXIT_INTERNAL: Final = 70
EXIT_INTERRUPTED: Final = 130
_ALWAYS = (
    f"{EXIT_INTERNAL} internal error (a bug: the message names the crash log); "
    f"{EXIT_INTERRUPTED} interrupted (Ctrl-C). Output closed early (piped into head) "
    "changes no code."
)
VERIFY_HELP: Final = (
    "Exit codes: 0 valid (or valid so far and unfinished); 1 invalid (the first bad record, "
    "what is wrong and who is to blame are printed), or a fork proof beside the replay "
    "proves that a player forked; 2 unreadable or not a replay. With --fork FILE: 0 the "
    "proof holds, 1 it proves nothing (the reason is printed), 2 it is not a readable fork "
    "proof. The highest code wins; " + _ALWAYS
)
MATCH_HELP: Final = (
    "Exit codes: 0 every game was played; 1 a bot forfeited at least one game (crash, "
    "timeout or illegal move: see the results and its log); 2 bad input; 141 the reader "
    "of --out - left; " + _ALWAYS
)
BOT_CHECK_HELP: Final = (
    "Exit codes: 0 the bot speaks the protocol; 1 the check found faults (listed); "
    "2 bad input; " + _ALWAYS
)


def ending_code(
    failure: str | None, *, finished: bool, refused: bool = False, left: bool | None = None
) -> int:
    """The exit code: ``failure`` is a ``LiveGameError`` kind (or None if none stopped it);
    ``left`` True if we resigned or were found to have abandoned, False if the other did."""
    if failure == "replay":
        return EXIT_REPLAY
    if left is not None:
        return EXIT_LEFT if left else EXIT_NETWORK
    if failure in ("cheating", "protocol", "diverged"):
        return EXIT_CHEAT
    if failure is not None:
        return EXIT_NETWORK
    if refused:
        return EXIT_REFUSED
    return EXIT_OK if finished else EXIT_LEFT


def user_config() -> Config:
    """The player's settings; a broken config file is bad input (exit 2), naming the file."""
    try:
        return load_config()
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="config file") from None
