"""Shared helpers for the Coffee Rush tests: hand-written positions and short-hands.

Positions are written as the documented position JSON (games/coffee_rush/position.py) and
loaded with ``state_from_json``, so every test that uses them also exercises that format.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from coffeetable.core.registry import find_game

GAME = find_game("coffee-rush")
CARDS = GAME.cards
INGREDIENTS = CARDS.ingredients


def player(
    *meeples: str | None,
    cups: list[list[str]] | None = None,
    counters: list[list[str]] | None = None,
    completed: list[str] | None = None,
    penalties: list[str] | None = None,
    upgrades: list[str] | None = None,
    rush: int = 0,
) -> dict[str, Any]:
    """One entry of a position's `players` list (missing parts empty)."""
    return {
        "meeples": list(meeples),
        "cups": cups if cups is not None else [[], [], []],
        "counters": counters if counters is not None else [[], [], [], []],
        "completed": completed or [],
        "penalties": penalties or [],
        "upgrades": upgrades or [],
        "rush": rush,
    }


def position_json(
    players: list[dict[str, Any]],
    *,
    to_move: int | None = 0,
    phase: str = "turn",
    closed: bool = False,
    turn: dict[str, Any] | None = None,
    deck_top: list[str] | None = None,
    deck_size: int | None = None,
    discarded: list[str] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Position JSON. The deck is `deck_top` (top first) followed by every other card not in
    play, in file order; with `deck_size`, only the top `deck_size` cards stay in the deck and
    the rest are set aside in `removed` (out of the game), so draws can run the deck out."""
    used: Counter[str] = Counter()
    for p in players:
        for pile in (*p["counters"], p["completed"], p["penalties"]):
            used.update(pile)
    used.update(discarded or [])
    top = list(deck_top or [])
    used.update(top)
    rest: list[str] = []
    for d in CARDS.drinks:
        left = d.copies - used[d.name]
        assert left >= 0, f"too many {d.name} cards in the position"
        rest.extend([d.name] * left)
    deck = top + rest
    removed: list[str] = []
    if deck_size is not None:
        deck, removed = deck[:deck_size], deck[deck_size:]
    data: dict[str, Any] = {
        "format": "coffeetable.position/1",
        "game": "coffee-rush",
        "phase": phase,
        "to_move": to_move,
        "closed": closed,
        "players": players,
        "deck": deck,
        "discarded": discarded or [],
        "removed": removed,
    }
    if options is not None:
        data["options"] = options
    if turn is not None:
        data["turn"] = turn
    return data


def position(players: list[dict[str, Any]], **kwargs: Any) -> Any:
    """A RushState from `position_json(players, **kwargs)`."""
    return GAME.state_from_json(position_json(players, **kwargs))


def legal_texts(state: Any, seat: int | None = None) -> list[str]:
    """The notations of the legal actions of `seat` (default: the seat to move), sorted."""
    if seat is None:
        seats = state.current_seats()
        if not seats:
            return []
        (seat,) = seats
    return sorted(a.notation() for a in state.legal_actions(seat))


def play(state: Any, *texts: str) -> Any:
    """Apply each text (checked) for the seat to move; returns the state."""
    for text in texts:
        (seat,) = state.current_seats()
        state.apply(seat, GAME.parse_action(text))
    return state


def supply(state: Any, ingredient: str) -> int:
    return state.supply[INGREDIENTS.index(ingredient)]


def hand(state: Any, ingredient: str) -> int:
    return state.hand[INGREDIENTS.index(ingredient)]


def cup(state: Any, seat: int, number: int) -> list[str]:
    """The tokens in a seat's cup (numbered 1-3), as sorted ingredient names."""
    return sorted(CARDS.tokens_list(state.cups[seat][number - 1]))


def names(cards: list[int]) -> list[str]:
    """Drink names of a pile of card indices (in pile order)."""
    return [CARDS.drinks[d].name for d in cards]


def counter_names(state: Any, seat: int) -> list[list[str]]:
    """A seat's counters 1-4 as lists of drink names."""
    return [names(k) for k in state.counters[seat]]


def deck_top(state: Any, k: int) -> list[str]:
    """The names of the top k cards of the deck, top first."""
    return names(list(reversed(state.deck))[:k])


def total_tokens(state: Any) -> list[int]:
    """Tokens per ingredient in supply + hand + every cup (always the box)."""
    out = list(state.supply)
    for i, h in enumerate(state.hand):
        out[i] += h
    for cups in state.cups:
        for c in cups:
            for i, k in enumerate(c):
                out[i] += k
    return out
