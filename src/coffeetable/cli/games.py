"""The game a command names, with the deck (Café) or card file (Coffee Rush) it was given:
shared by the commands in cli/ (main, inspect, review)."""

from __future__ import annotations

from coffeetable.core.errors import DataError
from coffeetable.core.game import Game
from coffeetable.core.registry import find_game


def game_for(name: str, deck_path: str | None, cards_path: str | None = None) -> Game:
    """The named game; Café with another deck (--deck), Coffee Rush with other cards (--cards)."""
    game = find_game(name)
    if deck_path is not None:
        if game.info.name != "cafe":
            raise DataError(f"--deck applies to Café only, not {game.info.title} (use --cards)")
        from coffeetable.games.cafe import CafeGame, load_deck

        return CafeGame(load_deck(deck_path))
    if cards_path is not None:
        if game.info.name != "coffee-rush":
            raise DataError(
                f"--cards applies to Coffee Rush only, not {game.info.title} (use --deck)"
            )
        from coffeetable.games.coffee_rush import CoffeeRushGame, load_cards

        return CoffeeRushGame(load_cards(cards_path))
    return game
