"""The game data a client needs to draw the games: Café card layouts and Coffee Rush
recipes, from the default deck and card files (`GET /api/games/{game}/data`, docs/server.md),
or from a players' deck (`?deck=<sha256>`, and the deck routes' check answers).

The views name Café cards by id (`P12`) and Coffee Rush orders by drink name; this is what
those names stand for. It holds only what is printed on the cards and the board: never a
deck's order.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from coffeetable.games.cafe.deck import COLOURS, CardSpec, DeckReading, default_deck, format_colours
from coffeetable.games.coffee_rush.cards import (
    CORNERS,
    SIZE,
    CardsReading,
    Drink,
    default_cards,
)


def _card_json(card: CardSpec) -> dict[str, Any]:
    return {
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


def cafe_cards_data(sha256: str, cards: Iterable[tuple[int | None, CardSpec]]) -> dict[str, Any]:
    """The data of Café cards (with their positions in their file, when known)."""
    return {
        "format": "coffeetable.web.cafe-data/1",
        "deck_sha256": sha256,
        "colours": COLOURS,
        "cards": [
            {**_card_json(card), **({"index": index} if index is not None else {})}
            for index, card in cards
        ],
    }


def cafe_data() -> dict[str, Any]:
    deck = default_deck()
    return cafe_cards_data(deck.digest, ((None, card) for card in deck.cards))


def coffee_rush_cards_data(
    sha256: str,
    ingredients: tuple[str, ...],
    box: tuple[int, ...],
    rush: int,
    board: tuple[int, ...],
    specialties: Iterable[int],
    drinks: Iterable[tuple[int | None, Drink]],
) -> dict[str, Any]:
    """The data of a Coffee Rush card file (its drinks with their positions, when known)."""

    def names(counts: tuple[int, ...]) -> list[str]:
        return [ingredients[i] for i, n in enumerate(counts) for _ in range(n)]

    return {
        "format": "coffeetable.web.coffee-rush-data/1",
        "cards_sha256": sha256,
        "ingredients": list(ingredients),
        "box": dict(zip(ingredients, box, strict=False)),
        "rush": rush,
        "board": (
            [[ingredients[board[r * SIZE + c]] for c in range(SIZE)] for r in range(SIZE)]
            if len(board) == SIZE * SIZE
            else []
        ),
        "corners": sorted("abcd"[s % SIZE] + str(s // SIZE + 1) for s in CORNERS),
        "specialties": sorted(ingredients[i] for i in specialties),
        "drinks": [
            {
                "name": d.name,
                "recipe": names(d.recipe),
                "copies": d.copies,
                "special": d.special,
                **({"index": index} if index is not None else {}),
            }
            for index, d in drinks
        ],
    }


def coffee_rush_data() -> dict[str, Any]:
    cards = default_cards()
    return coffee_rush_cards_data(
        cards.digest,
        cards.ingredients,
        cards.box,
        cards.rush,
        cards.board,
        cards.specialties,
        ((None, d) for d in cards.drinks),
    )


def reading_data(sha256: str, reading: DeckReading | CardsReading) -> dict[str, Any]:
    """The data of a file read (valid or not: the cards that could be read)."""
    if isinstance(reading, DeckReading):
        return cafe_cards_data(sha256, reading.cards)
    return coffee_rush_cards_data(
        sha256,
        reading.ingredients,
        reading.box,
        reading.rush,
        reading.board,
        reading.specialties,
        reading.drinks,
    )


@cache
def game_data(game: str) -> dict[str, Any]:
    """The data of a registered game (KeyError for another name). Computed once."""
    return {"cafe": cafe_data, "coffee-rush": coffee_rush_data}[game]()


__all__ = ["cafe_data", "coffee_rush_data", "game_data", "reading_data"]
