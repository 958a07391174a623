"""Coffee Rush (Euijin Han): the rules engine. See docs/coffee-rush-rules.md."""

from coffeetable.games.coffee_rush.actions import (
    UPGRADES,
    Empty,
    End,
    Place,
    Pour,
    RushAction,
    Serve,
    Step,
    Stop,
    Turn,
    Upgrade,
    format_turn,
)
from coffeetable.games.coffee_rush.cards import (
    CardSet,
    default_cards,
    load_cards,
    parse_square,
    square_name,
)
from coffeetable.games.coffee_rush.game import CoffeeRushGame
from coffeetable.games.coffee_rush.state import Phase, RushState, Stage

__all__ = [
    "UPGRADES",
    "CardSet",
    "CoffeeRushGame",
    "Empty",
    "End",
    "Phase",
    "Place",
    "Pour",
    "RushAction",
    "RushState",
    "Serve",
    "Stage",
    "Step",
    "Stop",
    "Turn",
    "Upgrade",
    "default_cards",
    "format_turn",
    "load_cards",
    "parse_square",
    "square_name",
]
