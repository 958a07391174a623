"""The browser client's copy of the game data: Café card layouts and Coffee Rush recipes.

The server's views name cards by id (`P12`) and drinks by name, and no HTTP route serves
their contents yet, so the client reads them from static JSON files generated here from the
default deck and card files. `python3 -m tests.web.gamedata` rewrites them;
`tests/web/test_static.py` checks that they are up to date.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coffeetable.games.cafe.deck import COLOURS, default_deck, format_colours
from coffeetable.games.coffee_rush.cards import CORNERS, SIZE, default_cards

STATIC = Path(__file__).resolve().parents[2] / "src" / "coffeetable" / "web" / "static"
DATA = STATIC / "data"


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


def rendered() -> dict[Path, str]:
    """Each data file's path and its text."""
    return {
        DATA / "cafe.json": json.dumps(cafe_data(), ensure_ascii=False, indent=1) + "\n",
        DATA / "coffee-rush.json": json.dumps(coffee_rush_data(), ensure_ascii=False, indent=1)
        + "\n",
    }


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for path, text in rendered().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
