"""Coffee Rush views: the redacted JSON a client at a seat, or a spectator, may see
(docs/views.md).

A view is the position JSON (docs/coffee-rush-records.md) with the hidden part taken out,
built field by field from what is public (so a field added to positions later does not leak
into views by accident), plus what a UI derives from the state: who may act, the scores, the
winners.

Only the order of the deck is hidden (docs/coffee-rush-rules.md, "Hidden information"), from
every player alike: the view shows the deck's size (`deck_size`) and no card of it. The
less-luck cards left out (`removed`) are public, and so are the board, the hand, the cups,
the counters and every pile. Nothing is private to one seat, so all views are equal except
for their `seat` field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coffeetable.core.game import view_header
from coffeetable.games.coffee_rush.position import pile_to_json, player_to_json, turn_to_json
from coffeetable.games.coffee_rush.state import Phase

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.state import RushState


def state_view(state: RushState, seat: int | None) -> dict[str, Any]:
    """The view of `state` for `seat` (None: a spectator); see the module docstring."""
    out = view_header(state, seat, state.options)
    out.update(
        {
            "phase": state.phase.name.lower(),
            "to_move": state.current if state.phase is not Phase.OVER else None,
            "closed": state.closed,
            "deck_size": len(state.deck),
            "discarded": pile_to_json(state, state.discarded),
            "removed": pile_to_json(state, state.removed),
            "players": [player_to_json(state, s) for s in range(state.num_players)],
            "supply": dict(zip(state.cards.ingredients, state.supply, strict=True)),
            "rush_supply": state.rush_supply,
        }
    )
    turn = turn_to_json(state)
    if turn is not None:
        out["turn"] = turn
    return out


__all__ = ["state_view"]
