"""Errors of the rules engine. Each says what was wrong and whose input it was."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class NotationError(EngineError):
    """Text that is not a card or a move in RULES.md notation (or its lenient forms)."""


class RuleOptionError(EngineError):
    """An unknown rule option, a value it cannot take, or an unknown preset."""


class DealError(EngineError):
    """A deck that is not a permutation of the cards the rule options call for."""


class IllegalMoveError(EngineError):
    """A move the rules do not allow in this state; ``reason`` says why in plain words."""

    def __init__(self, move: str, reason: str) -> None:
        super().__init__(f"illegal move {move}: {reason}")
        self.move = move
        self.reason = reason


class EngineInputError(EngineError):
    """An argument of the wrong type or range given to the engine (a seat of 2, a deck entry
    of None, a move that is no move, a result recorded after the match is over)."""
