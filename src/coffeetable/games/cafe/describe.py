"""Café actions in words, for a game log: `CafeState.describe(seat, action)`.

Each action becomes one short sentence without a subject, read from the state before the
action is played, e.g. "takes P19 (a 2-VP Tomar 1911 shop), paying a yellow cube" or
"delivers a yellow cube to Lisbon 1782, completing it (2 VP)". Only public information is
used: the display, the areas, the supply and the auction; never the deck. An action that
is not legal now (or not a Café action at all) is written "plays NOTATION".
"""

from __future__ import annotations

from collections.abc import Sequence

from coffeetable.core.errors import CoffeetableError
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
from coffeetable.games.cafe.area import FOOTPRINTS, AreaShop, BusinessArea, Pos
from coffeetable.games.cafe.deck import BEAN_LIKE, COLOUR_NAMES, CardSpec, CellKind, ShopSpec
from coffeetable.games.cafe.state import CafeState, PlayerState, Stage


def describe(state: CafeState, seat: int, action: Action) -> str:
    """One sentence saying what `seat` does with `action` in `state` (see the module doc)."""
    legal = _legal_form(state, seat, action)
    if legal is None:
        return f"plays {action.notation()}"
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
        where = _cell_name(player.area, legal.at)
        return f"clears {_cubes_of(colour, n)} from the {where}"
    if isinstance(legal, End):
        unspent = f", leaving {player.ap} AP unspent" if player.ap else ""
        return f"ends the round's actions{unspent}"
    if isinstance(legal, Bid):
        stake = state.stakes[seat] + 1
        onto = "" if legal.ship is None else f" onto the ship at {format_pos(legal.ship)}"
        return f"bids a {COLOUR_NAMES[legal.colour]} cube{onto} (stake {stake})"
    if isinstance(legal, BidDone):
        return f"closes the bid at a stake of {state.stakes[seat]}, taking the master token"
    if isinstance(legal, Pass):
        stake = state.stakes[seat]
        return "passes, leaving the auction" + (f" with a stake of {stake}" if stake else "")
    return f"plays {action.notation()}"  # pragma: no cover - every Café action is handled


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


def _take(state: CafeState, action: Take) -> str:
    card = state.card(action.card)
    what = f"{card.id} ({_card_summary(card)})"
    if action.discard:
        return f"discards {what}, unable to pay for any card"
    if action.pay >= 0:
        return f"takes {what}, paying a {COLOUR_NAMES[action.pay]} cube"
    return f"takes {what}"


def _card_summary(card: CardSpec) -> str:
    shops = list(card.shops.values())
    if len(shops) == 1:
        return f"a {_shop_offer(shops[0])} shop"
    if shops:
        return "shops: " + _join([_shop_offer(s) for s in shops])
    if card.kind == "espresso":
        return "an espresso card"
    return "no shop"


def _shop_offer(spec: ShopSpec) -> str:
    return f"{spec.vp}-VP {_shop_name(spec)}"


def _shop_name(spec: ShopSpec) -> str:
    """A named café by its name, any other shop by its city and year ("Lisbon 1782")."""
    if spec.name:
        return spec.name
    return spec.city if spec.year is None else f"{spec.city} {spec.year}"


def _place(state: CafeState, player: PlayerState, action: Place) -> str:
    assert player.hand is not None  # a legal placement: the seat holds a card
    area = player.area
    covered, _ = area.placement_coverage(action.row, action.col, action.rotation)
    footprint = {(action.row + dr, action.col + dc) for dr, dc in FOOTPRINTS[action.rotation]}
    lost = [
        _shop_label(area, shop)
        for shop in area.shops
        if shop.available and footprint.intersection(shop.cells)
    ]
    turned = f" turned {action.rotation * 90}°" if action.rotation else ""
    text = f"places {player.hand} at {action.row},{action.col}{turned}, covering {covered} cells"
    return f"{text}, losing {_join(lost)}" if lost else text


# --- actions -------------------------------------------------------------------------------


def _produce(state: CafeState, area: BusinessArea, action: Produce) -> str:
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
    notes = []
    short = [c for c in range(4) if 0 < supply[c] < wanted[c]]
    if short:
        notes.append(f"the supply's last {_join([COLOUR_NAMES[c] for c in short])}")
    none_left = [c for c in range(4) if wanted[c] and not supply[c]]
    if none_left:
        notes.append(f"no {_join([COLOUR_NAMES[c] for c in none_left])} left")
    if supply_cells and sum(supply) > sum(got):
        notes.append(f"{_count(supply_cells, 'supply cell')} to fill")
    if any(got):
        return ", ".join([f"produces {_cubes(got)}", *notes])
    return f"produces at {format_pos(action.at)}: " + ", ".join(notes)


def _fill(area: BusinessArea, action: Fill) -> str:
    where = _cell_name(area, action.at)
    if action.colour >= 0:
        return f"fills the {where} with a {COLOUR_NAMES[action.colour]} cube"
    return f"puts a scarce {COLOUR_NAMES[area.top[action.at].colour]} cube on the {where}"


def _transfer(area: BusinessArea, action: Dry | Roast) -> str:
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
    verb = "dries" if dry else "roasts"
    origin = "" if action.source is None else f" from {format_pos(action.source)}"
    text = (
        f"{verb} {_cubes_of(action.colour, moved)}{origin} into the {_cell_name(area, action.to)}"
    )
    held = area.cubes.get(action.to)
    return f"{text}, making {held[1] + moved}" if held else text


def _deliver(area: BusinessArea, action: Deliver) -> str:
    colour = area.cubes[action.source][0]
    cube = f"a {COLOUR_NAMES[colour]} cube"
    if action.to is None:
        return f"delivers {cube} to the warehouse"
    sid = area.shop_id_at(action.to)
    if sid < 0:
        return f"delivers {cube} to the {_cell_name(area, action.to)}"
    shop = area.shops[sid]
    text = f"delivers {cube} to {_shop_label(area, shop)}"
    if sum(shop.spec.requires) - sum(shop.cubes) == 1:
        return f"{text}, completing it ({shop.spec.vp} VP)"
    return text


# --- words ---------------------------------------------------------------------------------


def _shop_label(area: BusinessArea, shop: AreaShop) -> str:
    """The shop's name, with its first cell when another shop of the area has the same."""
    name = _shop_name(shop.spec)
    twins = sum(1 for other in area.shops if _shop_name(other.spec) == name)
    return f"{name} at {format_pos(shop.anchor)}" if twins > 1 else name


def _cell_name(area: BusinessArea, pos: Pos) -> str:
    """'dry cell at 0,2', 'bean cell at 0,0', ..."""
    return f"{area.top[pos].kind.name.lower()} cell at {format_pos(pos)}"


def _cubes_of(colour: int, n: int) -> str:
    counts = [0, 0, 0, 0]
    counts[colour] = n
    return _cubes(counts)


def _cubes(counts: Sequence[int]) -> str:
    """'a yellow cube', '2 yellow cubes', '4 cubes (2 yellow, 1 green, 1 red)'."""
    used = sorted(((n, c) for c, n in enumerate(counts) if n), key=lambda nc: -nc[0])
    total = sum(counts)
    if not used:
        return "no cubes"
    if len(used) == 1:
        n, c = used[0]
        return f"a {COLOUR_NAMES[c]} cube" if n == 1 else f"{n} {COLOUR_NAMES[c]} cubes"
    return f"{total} cubes (" + ", ".join(f"{n} {COLOUR_NAMES[c]}" for n, c in used) + ")"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _join(words: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


__all__ = ["describe"]
