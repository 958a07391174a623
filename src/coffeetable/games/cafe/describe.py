"""Café actions in words, for a game log: `CafeState.describe(seat, action)`.

Each action becomes one short sentence without a subject, read from the state before the
action is played, e.g. "takes P19 (a 2-VP Tomar 1911 shop), paying a yellow cube" or
"delivers a yellow cube to Lisbon 1782, completing it (2 VP)". Only public information is
used: the display, the areas, the supply and the auction; never the deck. An action that
is not legal now (or not a Café action at all) is written "plays NOTATION".

The sentences are built as data first (`say`: a message key and its parameters, see
`coffeetable.core.say`), so that a client can write them in other languages; `TEMPLATES`
holds the English text of every key.
"""

from __future__ import annotations

from collections.abc import Sequence

from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import Action
from coffeetable.core.say import Join, Say, Template, render
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
from coffeetable.games.cafe.area import FOOTPRINTS, AreaShop, BusinessArea, Pos
from coffeetable.games.cafe.deck import BEAN_LIKE, COLOURS, CardSpec, CellKind, ShopSpec
from coffeetable.games.cafe.state import CafeState, PlayerState, Stage

#: The English text of every log key Café produces (the web client's en.json has the same
#: under the same keys; tests check both).
TEMPLATES: dict[str, Template] = {
    "log.plays": "plays {notation}",
    "log.cafe.take": "takes {card} ({summary})",
    "log.cafe.take_paying": "takes {card} ({summary}), paying a {colour} cube",
    "log.cafe.discard": "discards {card} ({summary}), unable to pay for any card",
    "log.cafe.one_shop": "a {offer} shop",
    "log.cafe.shops": "shops: {offers}",
    "log.cafe.espresso_card": "an espresso card",
    "log.cafe.no_shop": "no shop",
    "log.cafe.offer": "{vp}-VP {shop}",
    "log.cafe.place": {
        "one": "places {card} at {pos}{turned}, covering {n} cell{losing}",
        "other": "places {card} at {pos}{turned}, covering {n} cells{losing}",
    },
    "log.cafe.turned": " turned {degrees}°",
    "log.cafe.losing": ", losing {shops}",
    "log.cafe.produce": "produces {cubes}",
    "log.cafe.produce_notes": "produces {cubes}, {notes}",
    "log.cafe.produce_none": "produces at {pos}: {notes}",
    "log.cafe.note_last": "the supply's last {colours}",
    "log.cafe.note_none_left": "no {colours} left",
    "log.cafe.note_supply_cells": {
        "one": "{n} supply cell to fill",
        "other": "{n} supply cells to fill",
    },
    "log.cafe.colour": "{colour}",
    "log.cafe.fill": "fills the {cell} with a {colour} cube",
    "log.cafe.fill_scarce": "puts a scarce {colour} cube on the {cell}",
    "log.cafe.dry": "dries {cubes}{origin} into the {cell}{making}",
    "log.cafe.roast": "roasts {cubes}{origin} into the {cell}{making}",
    "log.cafe.from": " from {pos}",
    "log.cafe.making": ", making {n}",
    "log.cafe.deliver_warehouse": "delivers a {colour} cube to the warehouse",
    "log.cafe.deliver_cell": "delivers a {colour} cube to the {cell}",
    "log.cafe.deliver_shop": "delivers a {colour} cube to {shop}{completing}",
    "log.cafe.completing": ", completing it ({vp} VP)",
    "log.cafe.clear": "clears {cubes} from the {cell}",
    "log.cafe.end": "ends the round's actions",
    "log.cafe.end_unspent": "ends the round's actions, leaving {n} AP unspent",
    "log.cafe.bid": "bids a {colour} cube (stake {stake})",
    "log.cafe.bid_ship": "bids a {colour} cube onto the ship at {pos} (stake {stake})",
    "log.cafe.bid_done": "closes the bid at a stake of {n}, taking the master token",
    "log.cafe.pass": "passes, leaving the auction",
    "log.cafe.pass_stake": "passes, leaving the auction with a stake of {n}",
    "log.cafe.shop_at": "{shop} at {pos}",
    "log.cafe.shop_city": "{city} {year}",
    "log.cafe.city": "{city}",
    "log.cafe.no_cubes": "no cubes",
    "log.cafe.cubes": {"one": "a {colour} cube", "other": "{n} {colour_pl} cubes"},
    "log.cafe.cubes_mixed": "{n} cubes ({parts})",
    "log.cafe.cube_part": {"one": "{n} {colour}", "other": "{n} {colour_gpl}"},
    **{
        f"log.cafe.cell.{kind.name.lower()}": f"{kind.name.lower()} cell at {{pos}}"
        for kind in CellKind
    },
}


def describe(state: CafeState, seat: int, action: Action) -> str:
    """One sentence saying what `seat` does with `action` in `state` (see the module doc)."""
    return render(say(state, seat, action), TEMPLATES)


def say(state: CafeState, seat: int, action: Action, *, listed: bool = False) -> Say:
    """The sentence of `describe` as a key and parameters (`coffeetable.core.say`);
    `listed`: `action` is an element of `state.legal_actions(seat)`, so legal and canonical
    as it stands (`State.say`)."""
    legal = action if listed else _legal_form(state, seat, action)
    if legal is None:
        return Say("log.plays", {"notation": action.notation()})
    player = state.players[seat]
    if isinstance(legal, Take):
        return _take(state, legal)
    if isinstance(legal, Place):
        return _place(state, player, legal)
    if isinstance(legal, Produce):
        return _produce(state, player.area, legal)
    if isinstance(legal, Fill):
        return _fill(player.area, legal)
    if isinstance(legal, Dry | Roast):
        return _transfer(player.area, legal)
    if isinstance(legal, Deliver):
        return _deliver(player.area, legal)
    if isinstance(legal, Clear):
        colour, n = player.area.cubes[legal.at]
        return Say(
            "log.cafe.clear",
            {"cubes": _cubes_of(colour, n), "cell": _cell(player.area, legal.at)},
        )
    if isinstance(legal, End):
        if player.ap:
            return Say("log.cafe.end_unspent", {"n": player.ap})
        return Say("log.cafe.end")
    if isinstance(legal, Bid):
        stake = state.stakes[seat] + 1
        if legal.ship is None:
            return Say("log.cafe.bid", {"colour": COLOURS[legal.colour], "stake": stake})
        return Say(
            "log.cafe.bid_ship",
            {"colour": COLOURS[legal.colour], "pos": format_pos(legal.ship), "stake": stake},
        )
    if isinstance(legal, BidDone):
        return Say("log.cafe.bid_done", {"n": state.stakes[seat]})
    if isinstance(legal, Pass):
        stake = state.stakes[seat]
        return Say("log.cafe.pass_stake", {"n": stake}) if stake else Say("log.cafe.pass")
    return Say("log.plays", {"notation": action.notation()})  # pragma: no cover


def _legal_form(state: CafeState, seat: int, action: Action) -> Action | None:
    """The canonical spelling of `action` if `seat` may play it now, else None."""
    if state.is_over() or seat not in state.current_seats():
        return None
    try:
        canonical = state.canonical_action(seat, action)
    except CoffeetableError:
        return None
    if isinstance(canonical, Place):  # one position checked alone: hundreds are legal
        player = state.players[seat]
        legal = (
            player.stage is Stage.PLACE
            and player.hand is not None
            and player.area.placement_is_legal(
                state.card(player.hand), canonical.row, canonical.col, canonical.rotation
            )
        )
        return canonical if legal else None
    return canonical if canonical in state.legal_actions(seat) else None


# --- the draft and placement ---------------------------------------------------------------


def _take(state: CafeState, action: Take) -> Say:
    card = state.card(action.card)
    params: dict[str, object] = {"card": card.id, "summary": _card_summary(card)}
    if action.discard:
        return Say("log.cafe.discard", params)
    if action.pay >= 0:
        return Say("log.cafe.take_paying", {**params, "colour": COLOURS[action.pay]})
    return Say("log.cafe.take", params)


def _card_summary(card: CardSpec) -> Say:
    shops = list(card.shops.values())
    if len(shops) == 1:
        return Say("log.cafe.one_shop", {"offer": _shop_offer(shops[0])})
    if shops:
        return Say("log.cafe.shops", {"offers": [_shop_offer(s) for s in shops]})
    if card.kind == "espresso":
        return Say("log.cafe.espresso_card")
    return Say("log.cafe.no_shop")


def _shop_offer(spec: ShopSpec) -> Say:
    return Say("log.cafe.offer", {"vp": spec.vp, "shop": _shop_name(spec)})


def _shop_name(spec: ShopSpec) -> Say | str:
    """A named café by its name, any other shop by its city and year ("Lisbon 1782"); the
    city is a typed parameter (`city`), so that clients write it in their language."""
    if spec.name:
        return spec.name
    if spec.year is None:
        return Say("log.cafe.city", {"city": spec.city})
    return Say("log.cafe.shop_city", {"city": spec.city, "year": spec.year})


def _place(state: CafeState, player: PlayerState, action: Place) -> Say:
    assert player.hand is not None  # a legal placement: the seat holds a card
    area = player.area
    covered, _ = area.placement_coverage(action.row, action.col, action.rotation)
    footprint = {(action.row + dr, action.col + dc) for dr, dc in FOOTPRINTS[action.rotation]}
    lost = [
        _shop_label(area, shop)
        for shop in area.shops
        if shop.available and footprint.intersection(shop.cells)
    ]
    return Say(
        "log.cafe.place",
        {
            "card": player.hand,
            "pos": format_pos((action.row, action.col)),
            "row": action.row,
            "col": action.col,
            "turned": (
                Say("log.cafe.turned", {"degrees": action.rotation * 90}) if action.rotation else ""
            ),
            "n": covered,
            "losing": Say("log.cafe.losing", {"shops": lost}) if lost else "",
        },
    )


# --- actions -------------------------------------------------------------------------------


def _produce(state: CafeState, area: BusinessArea, action: Produce) -> Say:
    wanted = [0, 0, 0, 0]
    supply_cells = 0
    for pos in area.groups()[action.at]:
        if pos in area.cubes:
            continue  # full cells are skipped
        cell = area.top[pos]
        if cell.kind is CellKind.BEAN:
            wanted[cell.colour] += 1
        elif cell.kind is CellKind.BONUS:
            wanted[cell.colour] += 2
        elif cell.kind is CellKind.SUPPLY:
            supply_cells += 1
    supply = state.supply
    got = [min(w, s) for w, s in zip(wanted, supply, strict=True)]
    notes: list[Say] = []
    short = [c for c in range(4) if 0 < supply[c] < wanted[c]]
    if short:
        notes.append(Say("log.cafe.note_last", {"colours": _colours(short)}))
    none_left = [c for c in range(4) if wanted[c] and not supply[c]]
    if none_left:
        notes.append(Say("log.cafe.note_none_left", {"colours": _colours(none_left)}))
    if supply_cells and sum(supply) > sum(got):
        notes.append(Say("log.cafe.note_supply_cells", {"n": supply_cells}))
    if any(got):
        if not notes:
            return Say("log.cafe.produce", {"cubes": _cubes(got)})
        return Say("log.cafe.produce_notes", {"cubes": _cubes(got), "notes": Join(notes, ", ")})
    return Say("log.cafe.produce_none", {"pos": format_pos(action.at), "notes": Join(notes, ", ")})


def _fill(area: BusinessArea, action: Fill) -> Say:
    cell = _cell(area, action.at)
    if action.colour >= 0:
        return Say("log.cafe.fill", {"cell": cell, "colour": COLOURS[action.colour]})
    return Say(
        "log.cafe.fill_scarce", {"cell": cell, "colour": COLOURS[area.top[action.at].colour]}
    )


def _transfer(area: BusinessArea, action: Dry | Roast) -> Say:
    dry = isinstance(action, Dry)
    if action.source is not None:
        sources = [action.source]
    else:
        sources = [
            pos
            for pos, (colour, _) in area.cubes.items()
            if colour == action.colour
            and (area.top[pos].kind in BEAN_LIKE if dry else area.top[pos].kind is CellKind.DRY)
        ]
    moved = sum(area.cubes[pos][1] for pos in sources)
    held = area.cubes.get(action.to)
    return Say(
        "log.cafe.dry" if dry else "log.cafe.roast",
        {
            "cubes": _cubes_of(action.colour, moved),
            "origin": (
                ""
                if action.source is None
                else Say("log.cafe.from", {"pos": format_pos(action.source)})
            ),
            "cell": _cell(area, action.to),
            "making": Say("log.cafe.making", {"n": held[1] + moved}) if held else "",
        },
    )


def _deliver(area: BusinessArea, action: Deliver) -> Say:
    colour = COLOURS[area.cubes[action.source][0]]
    if action.to is None:
        return Say("log.cafe.deliver_warehouse", {"colour": colour})
    sid = area.shop_id_at(action.to)
    if sid < 0:
        return Say("log.cafe.deliver_cell", {"colour": colour, "cell": _cell(area, action.to)})
    shop = area.shops[sid]
    completing = sum(shop.spec.requires) - sum(shop.cubes) == 1
    return Say(
        "log.cafe.deliver_shop",
        {
            "colour": colour,
            "shop": _shop_label(area, shop),
            "completing": Say("log.cafe.completing", {"vp": shop.spec.vp}) if completing else "",
        },
    )


# --- words ---------------------------------------------------------------------------------


def _shop_label(area: BusinessArea, shop: AreaShop) -> Say | str:
    """The shop's name, with its first cell when another shop of the area has the same."""
    name = _shop_name(shop.spec)
    twins = sum(1 for other in area.shops if _shop_name(other.spec) == name)
    if twins > 1:
        return Say("log.cafe.shop_at", {"shop": name, "pos": format_pos(shop.anchor)})
    return name


def _cell(area: BusinessArea, pos: Pos) -> Say:
    """'dry cell at 0,2', 'bean cell at 0,0', ..."""
    return Say(f"log.cafe.cell.{area.top[pos].kind.name.lower()}", {"pos": format_pos(pos)})


def _colours(colours: Sequence[int]) -> list[Say]:
    return [Say("log.cafe.colour", {"colour": COLOURS[c]}) for c in colours]


def _cubes_of(colour: int, n: int) -> Say:
    counts = [0, 0, 0, 0]
    counts[colour] = n
    return _cubes(counts)


def _cubes(counts: Sequence[int]) -> Say:
    """'a yellow cube', '2 yellow cubes', '4 cubes (2 yellow, 1 green, 1 red)'."""
    used = sorted(((n, c) for c, n in enumerate(counts) if n), key=lambda nc: -nc[0])
    if not used:
        return Say("log.cafe.no_cubes")
    if len(used) == 1:
        n, c = used[0]
        return Say("log.cafe.cubes", {"n": n, "colour": COLOURS[c]})
    parts = [Say("log.cafe.cube_part", {"n": n, "colour": COLOURS[c]}) for n, c in used]
    return Say("log.cafe.cubes_mixed", {"n": sum(counts), "parts": Join(parts, ", ")})


__all__ = ["TEMPLATES", "describe", "say"]
