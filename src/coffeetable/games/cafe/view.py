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
from coffeetable.games.cafe.position import auction_to_json, counts_to_json, player_to_json
from coffeetable.games.cafe.state import ROUNDS, Phase

if TYPE_CHECKING:
    from coffeetable.games.cafe.state import CafeState


def state_view(state: CafeState, seat: int | None) -> dict[str, Any]:
    """The view of `state` for `seat` (None: a spectator); see the module docstring."""
    out = view_header(state, seat, state.options)
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
    seats = []
    for player in state.players:
        entry = player_to_json(player)
        # views add whether each shop can still be completed (not in positions: derived)
        for shop_json, shop in zip(entry["area"]["shops"], player.area.shops, strict=True):
            shop_json["available"] = shop.available
        seats.append(entry)
    out["seats"] = seats
    return out


__all__ = ["state_view"]
