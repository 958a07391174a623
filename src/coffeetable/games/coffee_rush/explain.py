"""Plain-language reasons why a Coffee Rush action is not legal now."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffeetable.core.game import Action
from coffeetable.games.coffee_rush.actions import (
    UPGRADE_TITLES,
    Empty,
    End,
    Place,
    Pour,
    Serve,
    Step,
    Stop,
    Upgrade,
)
from coffeetable.games.coffee_rush.cards import ALL_NEIGHBOURS, ORTHOGONAL, square_name

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.state import RushState


def explain(state: RushState, seat: int, action: Action) -> str:
    text = action.notation()
    return f"{text}: {_reason(state, seat, action)}"


def _reason(state: RushState, seat: int, action: Action) -> str:
    from coffeetable.games.coffee_rush.state import (
        DIAGONAL,
        FREE_STEPS,
        UPGRADE_COST,
        Phase,
        Stage,
    )

    cards = state.cards
    phase, stage = state.phase, state.stage
    if phase is Phase.PLACE:
        if not isinstance(action, Place):
            return "the game is being set up: place your meeple first (place SQUARE)"
        return f"{square_name(action.square)} already has a meeple; meeples go on empty squares"
    if phase is Phase.SETUP_POUR:
        if isinstance(action, Pour):
            return f"you have no {action.ingredient} token left to put into a cup"
        return "put your set-up tokens into your cups first (pour INGREDIENT CUP)"
    if isinstance(action, Place):
        return "meeples are placed only during set-up"
    if isinstance(action, Upgrade):
        if state.upgrades[seat] & (1 << action.kind):
            return f"you already have {UPGRADE_TITLES[action.kind]}"
        if state.upgraded:
            return "one upgrade per turn (Ruling U1)"
        if stage is not Stage.MOVE or state.steps:
            return "upgrades are flipped at the start of your turn, before you move"
        have = len(state.completed[seat])
        return f"an upgrade costs {UPGRADE_COST} completed orders and you have {have}"
    if isinstance(action, Step):
        if stage is not Stage.MOVE:
            return "your movement is over for this turn"
        mine = state.meeples[seat]
        if action.frm < 0:
            return f"none of your meeples can step to {square_name(action.to)} now"
        if action.frm not in mine:
            return f"you have no meeple on {square_name(action.frm)}"
        if state.meeple >= 0 and action.frm != mine[state.meeple]:
            return f"a turn moves one meeple; you are moving the one on {square_name(mine[state.meeple])}"
        diagonal = bool(state.upgrades[seat] & DIAGONAL)
        if action.to not in (ALL_NEIGHBOURS if diagonal else ORTHOGONAL)[action.frm]:
            if action.to in ALL_NEIGHBOURS[action.frm]:
                return "diagonal steps need the Diagonal Move upgrade"
            return f"{square_name(action.to)} is not next to {square_name(action.frm)}"
        if state.steps >= FREE_STEPS and state.rush[seat] == 0:
            return "you have taken your 3 steps and have no rush token for another"
        return (
            f"{square_name(action.to)} has a meeple and you would have no steps left to leave it; "
            "a move may pass through meeples but not end on one"
        )
    if isinstance(action, Stop):
        if stage is not Stage.MOVE:
            return "your movement is already over"
        if not state.steps:
            return "take at least one step first (1 to 3 steps, more with rush tokens)"
        return f"you may not end your move on {square_name(state.meeples[seat][state.meeple])}: another meeple is there"
    if isinstance(action, Pour):
        if stage is Stage.MOVE:
            return "pour after moving (stop first)"
        if stage is Stage.SERVE:
            return "pouring ends once you serve an order (Ruling T1)"
        return f"you took no {action.ingredient} this turn that is not poured yet"
    if isinstance(action, Empty):
        return f"cup {action.cup + 1} is already empty"
    if isinstance(action, Serve):
        if stage is Stage.MOVE:
            return "orders are served after moving and pouring (stop first)"
        cup = state.cups[seat][action.cup]
        on_counter = state.counters[seat][action.counter]
        if action.drink is None:
            if not on_counter:
                return f"there is no order on counter {action.counter + 1}"
            return (
                f"cup {action.cup + 1} holds {cards.format_tokens(cup)}, which matches no order on "
                f"counter {action.counter + 1} (orders must match exactly)"
            )
        d = cards.drink_index(action.drink)
        if d not in on_counter:
            return f"there is no {action.drink} on counter {action.counter + 1}"
        return (
            f"cup {action.cup + 1} holds {cards.format_tokens(cup)} but {action.drink} needs exactly "
            f"{cards.format_tokens(cards.drinks[d].recipe)}"
        )
    if isinstance(action, End):
        return "finish moving first (stop)"
    return "not a legal action now"
