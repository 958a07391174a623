"""Plain-language reasons why a Café action is not legal now (for error messages)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coffeetable.core.game import Action
from coffeetable.games.cafe.actions import (
    Bid,
    BidDone,
    Clear,
    Deliver,
    Dry,
    End,
    Fill,
    Pass,
    Place,
    Produce,
    Roast,
    Take,
    format_pos,
)
from coffeetable.games.cafe.deck import BEAN_LIKE, CLEARABLE, COLOURS, CellKind

if TYPE_CHECKING:
    from coffeetable.games.cafe.state import CafeState


def explain(state: CafeState, seat: int, action: Action) -> str:
    from coffeetable.games.cafe.state import Phase, Stage

    text = action.notation()
    player = state.players[seat]
    if isinstance(action, Bid | BidDone | Pass):
        return _explain_auction(state, seat, action)
    if state.phase is Phase.AUCTION:
        return f"{text}: the auction for the master token comes first ('bid COLOUR' or 'pass')"
    if isinstance(action, Take):
        if state.phase is not Phase.DRAFT:
            return f"{text}: cards are taken during the draft, not now"
        if action.card not in state.display:
            return f"{text}: {action.card} is not on offer (on offer: {', '.join(state.display)})"
        card = state.card(action.card)
        if action.discard:
            return f"{text}: you may only discard when you can take no card (Ruling D1)"
        if state.card_is_free(seat, card):
            if action.pay >= 0:
                return f"{text}: {action.card} is free for you; write 'take {action.card}'"
        elif action.pay < 0:
            return f"{text}: {action.card} shows a cup: pay a warehouse cube, e.g. 'take {action.card} pay Y'"
        elif player.warehouse[action.pay] == 0:
            return f"{text}: your warehouse has no {COLOURS[action.pay]} cube to pay with"
        return f"{text} is not legal now"
    if player.stage is Stage.PLACE and not isinstance(action, Place):
        return f"{text}: first place the card you took ({player.hand}) with 'place ROW,COL rotN'"
    if isinstance(action, Place):
        if player.stage is not Stage.PLACE or player.hand is None:
            return f"{text}: you have no card to place"
        covered, cups = player.area.placement_coverage(action.row, action.col, action.rotation)
        if not 2 <= covered <= 4:
            return f"{text}: the card would cover {covered} visible cells; it must cover 2, 3 or 4"
        if not state.card(player.hand).has_cup and cups >= player.area.cups:
            return f"{text}: no cup would stay visible; at least one must"
        return f"{text} is not a legal placement"
    if player.stage is not Stage.ACT:
        return f"{text}: you are not taking actions now"
    if player.pending_deliver is not None and not isinstance(action, Deliver):
        return (
            f"{text}: first deliver the remaining cubes of roast cell "
            f"{format_pos(player.pending_deliver)} (all its cubes go in one action)"
        )
    if (any(player.pending_fill) or player.pending_supply) and not isinstance(action, Fill):
        return (
            f"{text}: first finish your Produce: choose the cells for scarce cubes "
            "('fill ROW,COL') and a colour for each supply cell ('fill ROW,COL COLOUR')"
        )
    area = player.area
    cells = area.top
    if isinstance(action, Produce | Fill | Clear | Dry | Roast | Deliver):
        at = (
            action.at
            if isinstance(action, Produce | Fill | Clear)
            else (action.to if isinstance(action, Dry | Roast) else action.source)
        )
        if at not in cells:
            return f"{text}: there is no visible cell at {format_pos(at)} in your area"
    if isinstance(action, Clear):
        if cells[action.at].kind not in CLEARABLE:
            return f"{text}: only bean, dry and roast cells can be cleared"
        return f"{text}: that cell holds no cubes"
    if isinstance(action, Fill):
        if action.colour >= 0:
            if action.at not in player.pending_supply:
                return f"{text}: only a supply cell you just produced takes a named colour"
            return f"{text}: the supply has no {COLOURS[action.colour]} cube left"
        return f"{text}: nothing to fill there"
    if isinstance(action, End):
        return f"{text}: finish the action you started first"
    new_action_needed = player.ap == 0
    if isinstance(action, Produce):
        if cells[action.at].kind not in BEAN_LIKE:
            return f"{text}: {format_pos(action.at)} is not a bean cell"
        if new_action_needed:
            return f"{text}: you have no action points left"
        return (
            f"{text}: no empty bean cell of that group can get a cube (clear cells first, for free)"
        )
    if isinstance(action, Dry | Roast):
        want = CellKind.DRY if isinstance(action, Dry) else CellKind.ROAST
        if cells[action.to].kind is not want:
            return f"{text}: {format_pos(action.to)} is not a {want.name.lower()} cell"
        if action.to in area.cubes:
            return f"{text}: that cell already holds cubes (a cell never receives cubes while it holds any)"
        if action.source is not None and area.cubes.get(action.source, (-1, 0))[0] != action.colour:
            return f"{text}: {format_pos(action.source)} holds no {COLOURS[action.colour]} cube to move"
        if new_action_needed and state.transfer_costs_ap(player, action):
            return f"{text}: this would start a new action and you have no action points left"
        return f"{text}: there are no {COLOURS[action.colour]} cubes to move there"
    if isinstance(action, Deliver):
        if cells[action.source].kind is not CellKind.ROAST or action.source not in area.cubes:
            return f"{text}: {format_pos(action.source)} is not a roast cell holding cubes"
        if action.to is not None:
            if cells.get(action.to) is not None and cells[action.to].kind is CellKind.ESPRESSO:
                return f"{text}: that espresso cell already holds a cube"
            if action.to not in area.shop_at:
                return f"{text}: {format_pos(action.to)} is not a shop"
            shop = area.shops[area.shop_at[action.to]]
            if not shop.available:
                return f"{text}: that shop is partly covered and takes no cubes"
            return f"{text}: that shop needs no more {COLOURS[area.cubes[action.source][0]]} cubes"
        return f"{text}: you have no action points left"
    return f"{text} is not legal now"


def _explain_auction(state: CafeState, seat: int, action: Bid | BidDone | Pass) -> str:
    from coffeetable.games.cafe.state import Phase

    text = action.notation()
    if state.phase is not Phase.AUCTION:
        return f"{text}: there is no auction now (advanced mode, at the start of each round)"
    player = state.players[seat]
    high = state.highest_other_stake(seat)
    if isinstance(action, Pass):
        return f"{text}: finish the bid you started first ('bid done')"
    if isinstance(action, BidDone):
        if not state.bid_open:
            return f"{text}: you have not paid any cube into a bid"
        return f"{text}: your stake {state.stakes[seat]} must reach the highest stake {high}"
    if player.warehouse[action.colour] == 0:
        return f"{text}: your warehouse has no {COLOURS[action.colour]} cube"
    if action.ship is not None:
        cell = player.area.top.get(action.ship)
        if cell is None or cell.kind is not CellKind.SHIP or action.ship in player.area.cubes:
            return f"{text}: {format_pos(action.ship)} is not an empty visible ship of yours"
    return (
        f"{text}: your warehouse cannot bring your stake up to the highest stake ({high}); "
        "you can only pass"
    )
