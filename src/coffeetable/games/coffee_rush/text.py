"""Text pictures of a Coffee Rush state for the terminal and for logs."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from coffeetable.games.coffee_rush.actions import UPGRADE_TITLES
from coffeetable.games.coffee_rush.cards import CORNERS, SIZE

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.state import RushState

CELL = 15


def _board(state: RushState) -> list[str]:
    cards = state.cards
    at: dict[int, str] = {}
    for seat, squares in enumerate(state.meeples):
        for m, sq in enumerate(squares):
            if sq >= 0:
                at[sq] = f"[{seat}{'ab'[m] if len(squares) > 1 else ''}]"
    lines = ["    " + "".join(f"{c:<{CELL}}" for c in "abcd")]
    for r in range(SIZE):
        row = []
        for c in range(SIZE):
            sq = r * SIZE + c
            ing = cards.board[sq]
            mark = "*" if ing in cards.specialties else ("+" if sq in CORNERS else "")
            row.append(f"{cards.ingredients[ing] + mark + at.get(sq, ''):<{CELL}}")
        lines.append(f" {r + 1}  " + "".join(row).rstrip())
    lines.append("    (* specialty square, + corner; [seat] a meeple, [1a] [1b] with two each)")
    return lines


def _orders(state: RushState, cards: list[int]) -> str:
    if not cards:
        return "-"
    counts = Counter(cards)
    return ", ".join(
        state.cards.drinks[d].name + (f" x{n}" if n > 1 else "") for d, n in counts.items()
    )


def _recipe(state: RushState, d: int) -> str:
    drink = state.cards.drinks[d]
    return f"{drink.name}{' (special)' if drink.special else ''} = {state.cards.format_tokens(drink.recipe)}"


def render(state: RushState, seat: int | None = None) -> str:
    """The board, each player's counters, cups, piles and upgrades, the supply and whose turn
    it is. `seat` marks that player's own board; everything shown is public anyway (only the
    deck order is hidden, and it is never shown)."""
    from coffeetable.games.coffee_rush.state import Phase, Stage

    cards = state.cards
    token = "CLOSED" if state.closed else "OPEN"
    lines = [
        f"Coffee Rush, {state.num_players} players; start player seat 0, token {token}; "
        f"{len(state.deck)} cards in the deck",
        *_board(state),
        "supply: "
        + ", ".join(f"{name} {n}" for name, n in zip(cards.ingredients, state.supply, strict=True))
        + f"; rush tokens {state.rush_supply}",
    ]
    for s in range(state.num_players):
        ups = [UPGRADE_TITLES[k] for k in range(4) if state.upgrades[s] & (1 << k)]
        you = " (you)" if seat == s else ""
        lines.append(
            f"seat {s}{you}: completed {len(state.completed[s])}, penalties {len(state.penalties[s])}, "
            f"rush {state.rush[s]}, upgrades: {', '.join(ups) or 'none'}"
        )
        lines.append(
            "  counters: "
            + " | ".join(f"{k + 1}: {_orders(state, state.counters[s][k])}" for k in range(4))
        )
        lines.append(
            "  cups: "
            + "  ".join(
                f"{c + 1}: {cards.format_tokens(cup)}" for c, cup in enumerate(state.cups[s])
            )
        )
    shown = sorted({d for cs in state.counters for k in cs for d in k})
    if shown:
        lines.append("recipes: " + "; ".join(_recipe(state, d) for d in shown))
    if state.phase is Phase.OVER:
        lines[0] += "; the game is over"
    elif state.phase is Phase.PLACE:
        lines.append(f"Set-up: seat {state.current} places a meeple.")
    elif state.phase is Phase.SETUP_POUR:
        lines.append(
            f"Set-up: seat {state.current} puts {cards.format_tokens(state.hand)} into cups."
        )
    else:
        free, rush = state.steps_left()
        if state.stage is Stage.MOVE:
            doing = (
                f"moving: {state.steps} step(s) taken, {free} free step(s) left, {rush} rush token(s)"
                if state.steps
                else "to move (1-3 steps; rush tokens give more)"
            )
        elif state.stage is Stage.POUR:
            doing = f"pouring: in hand {cards.format_tokens(state.hand)}"
        else:
            doing = f"serving ({state.served} served this turn)"
        lines.append(f"Seat {state.current}'s turn, {doing}.")
    return "\n".join(lines)
