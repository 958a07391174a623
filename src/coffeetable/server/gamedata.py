"""The game data a client needs to draw the games: Café card layouts and Coffee Rush
recipes, from the default deck and card files (`GET /api/games/{game}/data`, docs/server.md).

The views name Café cards by id (`P12`) and Coffee Rush orders by drink name; this is what
those names stand for. It holds only what is printed on the cards and the board: never a
deck's order.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from coffeetable.games.cafe.deck import COLOURS, default_deck, format_colours
from coffeetable.games.coffee_rush.cards import CORNERS, SIZE, default_cards


def cafe_data() -> dict[str, Any]:
    deck = default_deck()
    cards = []
    for card in deck.cards:
        cards.append(
            {
                "id": card.id,
                "kind": card.kind,
                "company": card.company,
                "star": card.star,
                "cup": card.has_cup,
                "cells": [[cell.token for cell in row] for row in card.cells],
                "shops": {
                    key: {
                        "city": shop.city,
                        "year": shop.year,
                        "requires": format_colours(shop.requires),
                        "vp": shop.vp,
                        **({"name": shop.name} if shop.name else {}),
                    }
                    for key, shop in card.shops.items()
                },
            }
        )
    return {
        "format": "coffeetable.web.cafe-data/1",
        "deck_sha256": deck.digest,
        "colours": COLOURS,
        "cards": cards,
    }


def coffee_rush_data() -> dict[str, Any]:
    cards = default_cards()
    return {
        "format": "coffeetable.web.coffee-rush-data/1",
        "cards_sha256": cards.digest,
        "ingredients": list(cards.ingredients),
        "box": dict(zip(cards.ingredients, cards.box, strict=True)),
        "rush": cards.rush,
        "board": [
            [cards.ingredients[cards.board[r * SIZE + c]] for c in range(SIZE)] for r in range(SIZE)
        ],
        "corners": sorted("abcd"[s % SIZE] + str(s // SIZE + 1) for s in CORNERS),
        "specialties": sorted(cards.ingredients[i] for i in cards.specialties),
        "drinks": [
            {
                "name": d.name,
                "recipe": cards.tokens_list(d.recipe),
                "copies": d.copies,
                "special": d.special,
            }
            for d in cards.drinks
        ],
    }


@cache
def game_data(game: str) -> dict[str, Any]:
    """The data of a registered game (KeyError for another name). Computed once."""
    return {"cafe": cafe_data, "coffee-rush": coffee_rush_data}[game]()


__all__ = ["cafe_data", "coffee_rush_data", "game_data"]
