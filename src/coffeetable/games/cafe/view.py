"""Café views: the redacted JSON a client at a seat, or a spectator, may see (docs/views.md).

A view is the position JSON (docs/records.md) with the hidden part taken out, built field by
field from what is public (so a field added to positions later does not leak into views by
accident), plus what a UI derives from the state: who may act, the scores, the winners.

Hidden from everyone, and so from every view:

- the deck: only its size (`deck_size`) is shown, never its cards or their order;
- the cards removed at random at set-up (the extra removals, the cards promos replace):
  only their number (`removed_unseen`). The ★ cards removed by rule are public
  (`removed_by_rule`);
- the RNG state.

Nothing is private to one seat: every card a seat holds was taken from the public display
(Ruling D2), and placements, cubes and warehouses are open. All views are therefore equal
except for their `seat` field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coffeetable.core.game import view_header
from coffeetable.games.cafe.position import (
    area_to_json,
    auction_to_json,
    counts_to_json,
    player_to_json,
    shared_area_view,
)
from coffeetable.games.cafe.state import ROUNDS, Phase

if TYPE_CHECKING:
    from coffeetable.games.cafe.area import BusinessArea
    from coffeetable.games.cafe.state import CafeState, PlayerState


def state_view(state: CafeState, seat: int | None, *, shared: bool = False) -> dict[str, Any]:
    """The view of `state` for `seat` (None: a spectator); see the module docstring.
    `shared` (`State.view`): the caller never changes the view, so each seat's entry may be
    one kept from an earlier view of a seat with the same content (`_kept_entry`)."""
    entries = [_kept_entry(state, n) for n in range(state.num_players)] if shared else None
    out = view_header(
        state, seat, state.options, None if entries is None else [e[1] for e in entries]
    )
    by_rule = state.removed_by_rule()
    out.update(
        {
            "round": state.round,
            "rounds": ROUNDS,
            "phase": state.phase.name.lower(),
            "master": state.master,
            "display": list(state.display),
            "draft_order": list(state.draft_order),
            "deck_size": len(state.deck),
            "removed_by_rule": by_rule,
            "removed_unseen": len(state.removed) - len(by_rule),  # state.removed_unseen()
            "discard": list(state.discard),
        }
    )
    if state.phase is Phase.AUCTION:
        out["auction"] = auction_to_json(state)
    out["supply"] = counts_to_json(state.supply)
    out["seats"] = (
        [_seat_entry(player) for player in state.players]
        if entries is None
        else [e[0] for e in entries]
    )
    return out


def _seat_entry(player: PlayerState) -> dict[str, Any]:
    """A seat's entry in a view: its position JSON, with its area's view JSON
    (`_area_view`)."""
    return player_to_json(player, _area_view(player.area))


def _area_view(area: BusinessArea) -> dict[str, Any]:
    """An area's JSON in a view: its position JSON, and whether each shop can still be
    completed (derived, so not in positions)."""
    out = area_to_json(area)
    for shop_json, shop in zip(out["shops"], area.shops, strict=True):
        shop_json["available"] = shop.available
    return out


#: a seat's entry kept (`_kept_entry`): its area's view JSON, the seat's own fields and the
#: game's rules and size, the entry, the seat's score JSON
_Kept = tuple[dict[str, Any], tuple[Any, ...], dict[str, Any], dict[str, Any]]

#: how many areas' and seats' entries an area's `memo` keeps for views nobody changes (the
#: copies of one version of the cells share it, those of a start area between seats too)
KEPT_ENTRIES = 4


def _kept_entry(state: CafeState, seat: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The seat's entry (`_seat_entry`) and its score's JSON (`state.score(seat)`, which
    depends on the seat alone, the rules and the number of players) for a view nobody
    changes. The area's JSON is kept in the area's `memo` (which a placement renews: the
    cells and cards are the memo's) with what else it is made from (the cubes, the shops'
    cubes and availability: a shop's spec, cells and card are set by the placement that
    makes it), and the entry and score with the seat's own fields, each made afresh only
    when something it is made from differs. A move changes one seat, so the other seats
    keep theirs; a step that moves no cube keeps the mover's area."""
    player = state.players[seat]
    area = player.area
    memo = area.memo
    area_key = (
        area.layout(),
        tuple(area.cubes.items()),
        tuple([(shop.cubes, shop.available) for shop in area.shops]),
    )
    areas: list[tuple[Any, dict[str, Any]]] = memo.setdefault("view areas", [])
    for known, made in reversed(areas):  # the latest first
        if known == area_key:
            area_json = made
            break
    else:
        area_json = shared_area_view(area)
        if len(areas) >= KEPT_ENTRIES:
            del areas[0]
        areas.append((area_key, area_json))
    key = (
        player.company,
        player.stage,
        player.hand,
        player.ap,
        player.open_kind,
        player.open_group,
        player.open_colours,
        player.open_cells,
        player.pending_fill,
        player.pending_cells,
        player.pending_deliver,
        player.pending_supply,
        tuple(player.warehouse),
        state.rules,
        state.num_players,
    )
    entries: list[_Kept] = memo.setdefault("view entries", [])
    for its_area, its_key, kept, score in reversed(entries):
        if its_area is area_json and its_key == key:
            return kept, score
    entry = player_to_json(player, area_json)
    score = state.score(seat).to_json()
    if len(entries) >= KEPT_ENTRIES:
        del entries[0]
    entries.append((area_json, key, entry, score))
    return entry, score


__all__ = ["state_view"]
