"""Game-agnostic core: the game protocol, errors, RNG, registry, records."""

from coffeetable.core.errors import (
    CoffeetableError,
    DataError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
    UnknownGameError,
)
from coffeetable.core.game import Action, Game, GameInfo, ScoreBreakdown, State
from coffeetable.core.registry import find_game, game_names, register_game
from coffeetable.core.rng import Rng

__all__ = [
    "Action",
    "CoffeetableError",
    "DataError",
    "Game",
    "GameInfo",
    "GameOverError",
    "IllegalActionError",
    "NotYourTurnError",
    "NotationError",
    "Rng",
    "ScoreBreakdown",
    "State",
    "UnknownGameError",
    "find_game",
    "game_names",
    "register_game",
]
