"""Bots: players that see only their seat's view (DESIGN.md "Bots and matches").

The API (``Bot``, ``Turn``, ``Action``) is in ``api``; built-in bots are
``random``, ``greedy``, ``expert`` and ``strong`` (``registry``); external
bots in any language speak ``protocol/BOT.md`` (``external``); the exact
endgame solver is ``solver.Solver``, and ``exploit.ExploitSolver`` is its
variant for playing on in lost endgames against an opponent who may err.
"""

from p2p66.bots.api import Action, Bot, BotError, BotFault, PublicMove, Turn, as_action
from p2p66.bots.registry import BUILTINS, BotSpec, make_bot, parse_bot_spec

__all__ = [
    "BUILTINS",
    "Action",
    "Bot",
    "BotError",
    "BotFault",
    "BotSpec",
    "PublicMove",
    "Turn",
    "as_action",
    "make_bot",
    "parse_bot_spec",
]
