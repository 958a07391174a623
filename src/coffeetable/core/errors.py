"""Typed errors. Every error a user can cause says what was wrong; none changes any state."""

from __future__ import annotations


class CoffeetableError(Exception):
    """Base of every error raised on purpose by coffeetable. The message is for people."""


class NotationError(CoffeetableError, ValueError):
    """A move written in notation could not be read."""


class IllegalActionError(CoffeetableError, ValueError):
    """A well-formed action that the rules do not allow now."""


class NotYourTurnError(IllegalActionError):
    """An action for a seat that may not act now."""


class GameOverError(IllegalActionError):
    """An action after the game has ended."""


class DataError(CoffeetableError, ValueError):
    """A deck file, record, position or option set that is malformed or inconsistent."""


class UnknownGameError(CoffeetableError, LookupError):
    """No game is registered under that name."""
