"""coffeetable: exact rules engines for Café and Coffee Rush, and a place to play them."""

from coffeetable.core.registry import find_game, game_names

__all__ = ["find_game", "game_names"]
__version__ = "0.1.0"
