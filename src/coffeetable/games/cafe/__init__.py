"""Café (Rola & Costa): the rules engine. See docs/cafe-rules.md."""

from coffeetable.games.cafe.actions import (
    CafeAction,
    Clear,
    Deliver,
    Dry,
    End,
    Fill,
    Place,
    Produce,
    Roast,
    Take,
    parse_action,
)
from coffeetable.games.cafe.area import BusinessArea
from coffeetable.games.cafe.deck import Deck, default_deck, load_deck
from coffeetable.games.cafe.game import CafeGame
from coffeetable.games.cafe.state import CafeState, Phase, Stage

__all__ = [
    "BusinessArea",
    "CafeAction",
    "CafeGame",
    "CafeState",
    "Clear",
    "Deck",
    "Deliver",
    "Dry",
    "End",
    "Fill",
    "Phase",
    "Place",
    "Produce",
    "Roast",
    "Stage",
    "Take",
    "default_deck",
    "load_deck",
    "parse_action",
]
