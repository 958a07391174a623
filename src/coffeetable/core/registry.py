"""The game registry: `find_game("cafe")`.

Games register by dotted path so that `core` never imports a game module; the module is
imported the first time the game is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from coffeetable.core.errors import UnknownGameError

if TYPE_CHECKING:
    from coffeetable.core.game import Game

_FACTORIES: dict[str, str] = {
    "cafe": "coffeetable.games.cafe:CafeGame",
    "coffee-rush": "coffeetable.games.coffee_rush:CoffeeRushGame",
}
_CACHE: dict[str, Game] = {}


def register_game(name: str, factory_path: str) -> None:
    """Register a game class by "module:Class" path (called with no arguments)."""
    _FACTORIES[name] = factory_path
    _CACHE.pop(name, None)


def game_names() -> list[str]:
    return sorted(_FACTORIES)


def find_game(name: str) -> Game:
    """The game registered under `name` (with its default data)."""
    key = name.strip().lower()
    if key not in _FACTORIES:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    if key not in _CACHE:
        module_name, _, class_name = _FACTORIES[key].partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        _CACHE[key] = cls()
    return _CACHE[key]
