"""Helpers for Café rules tests: hand-written positions from a compact grid description.

Positions are written as the documented position JSON (see games/cafe/position.py) and loaded
with ``state_from_json``, so every test that uses them also exercises the position format.

A grid is a multi-line string; each line is one row, tokens are separated by spaces and the
first token of the first line is cell (0, 0) (or ``origin``). A token is ``KIND`` or
``KIND:CUBES``:

    Y B G R   bean cell of that colour      d   dry        r   roast
    c         cup                           s   ship       .   empty cell
    0 1 ...   a cell of shop number n       -   no card here (hole)

``CUBES`` are colour letters: ``Y:Y`` a full yellow bean cell, ``d:BB`` a dry cell with two
brown cubes, ``r:GGG`` a roast cell with three green cubes.
"""

from __future__ import annotations

import random
from typing import Any

from coffeetable.core.registry import find_game
from coffeetable.games.cafe.actions import Bid, BidDone, Clear, Deliver, End, Pass, parse_action
from coffeetable.games.cafe.state import CafeState

GAME = find_game("cafe")

_KINDS = {
    "Y": "bean-Y",
    "B": "bean-B",
    "G": "bean-G",
    "R": "bean-R",
    "d": "dry",
    "r": "roast",
    "c": "cup",
    "s": "ship",
    ".": "empty",
}


def shop(
    requires: str, vp: int, city: str = "Lisbon", year: int | None = 1905, **extra: Any
) -> dict:
    """A shop entry for `grid_area` (its cells come from the grid unless `cells` is given)."""
    return {"city": city, "year": year, "requires": requires, "vp": vp, **extra}


def parse_grid(
    grid: str, origin: tuple[int, int] = (0, 0)
) -> list[tuple[tuple[int, int], str, str]]:
    """[(pos, kind token, cubes)] for every cell of the grid, holes left out."""
    rows = [line.split() for line in grid.strip("\n").splitlines() if line.strip()]
    out = []
    for r, tokens in enumerate(rows):
        for c, token in enumerate(tokens):
            kind, _, cubes = token.partition(":")
            if kind == "-":
                continue
            out.append(((origin[0] + r, origin[1] + c), kind, cubes))
    return out


def grid_area(
    grid: str,
    shops: list[dict] | tuple = (),
    origin: tuple[int, int] = (0, 0),
    kinds: dict[str, str] | None = None,
) -> dict:
    """The position JSON of a business area (`kinds` maps grid letters to cell tokens)."""
    kinds = _KINDS if kinds is None else kinds
    cells: list[dict] = []
    shop_cells: dict[int, list[list[int]]] = {}
    for (r, c), kind, cubes in parse_grid(grid, origin):
        if kind.isdigit():
            entry: dict[str, Any] = {"at": [r, c], "cell": "shop", "shop": int(kind)}
            shop_cells.setdefault(int(kind), []).append([r, c])
        else:
            entry = {"at": [r, c], "cell": kinds[kind]}
        if cubes:
            entry["cubes"] = cubes
        cells.append(entry)
    shop_list = []
    for i, s in enumerate(shops):
        s = dict(s)
        s.setdefault("cells", shop_cells.get(i, []))
        shop_list.append(s)
    return {"cells": cells, "shops": shop_list}


def count_cups(grid: str) -> int:
    return sum(1 for _, kind, _ in parse_grid(grid) if kind == "c")


def seat_json(
    grid: str,
    shops: list[dict] | tuple = (),
    *,
    ap: int | None = None,
    warehouse: str | dict = "YBGR",
    stage: str = "act",
    hand: str | None = None,
    cards: list[dict] | None = None,
) -> dict:
    if ap is None:
        ap = 0 if stage in ("place", "done") else min(8, count_cups(grid))
    area = grid_area(grid, shops)
    if cards is not None:
        area["cards"] = cards
    return {
        "company": "Brazil",
        "warehouse": warehouse,
        "stage": stage,
        "hand": hand,
        "ap": ap,
        "area": area,
    }


def position(
    *seats: dict,
    phase: str = "turns",
    round: int = 1,
    master: int = 0,
    deck: list[str] | None = None,
    **extra: Any,
) -> dict:
    """A position JSON with the given seats (from `seat_json`)."""
    data: dict[str, Any] = {
        "format": "coffeetable.position/1",
        "game": "cafe",
        "round": round,
        "phase": phase,
        "master": master,
        "display": [],
        "draft_order": [],
        "seats": list(seats),
        **extra,
    }
    if deck is not None:
        data["deck"] = deck
    return data


def load(grid: str, shops: list[dict] | tuple = (), **seat_kw: Any) -> CafeState:
    """A one-player state in the actions stage (round 1) with the area described by `grid`."""
    state = GAME.state_from_json(position(seat_json(grid, shops, **seat_kw)))
    assert isinstance(state, CafeState)
    return state


def play(state: CafeState, *moves: str, seat: int = 0) -> None:
    """Apply moves in notation through the checked path."""
    for move in moves:
        state.apply(seat, parse_action(move))


def legal(state: CafeState, seat: int = 0) -> set[str]:
    return {a.notation() for a in state.legal_actions(seat)}


def cubes_at(state: CafeState, seat: int = 0) -> dict[tuple[int, int], str]:
    """{pos: "YY"} for every bean/dry/roast cell holding cubes, read from the position JSON."""
    out = {}
    for cell in state.to_json()["seats"][seat]["area"]["cells"]:
        if cell.get("cubes"):
            out[tuple(cell["at"])] = cell["cubes"]
    return out


def supply(state: CafeState) -> dict[str, int]:
    return dict(state.to_json()["supply"])


def warehouse(state: CafeState, seat: int = 0) -> dict[str, int]:
    return dict(state.to_json()["seats"][seat]["warehouse"])


def seat_ap(state: CafeState, seat: int = 0) -> int:
    return int(state.to_json()["seats"][seat]["ap"])


def seat_stage(state: CafeState, seat: int = 0) -> str:
    return str(state.to_json()["seats"][seat]["stage"])


def shop_cubes(state: CafeState, seat: int = 0) -> list[str]:
    return [s["cubes"] for s in state.to_json()["seats"][seat]["area"]["shops"]]


# ==== random play used by the property and variant suites ==================================


def choose(rng: random.Random, actions: list) -> Any:
    """Rarely ends a turn early, likes shops and espresso cells; in the auction it passes
    often enough that auctions end with a mix of bids and passes."""
    if any(isinstance(a, Bid | BidDone | Pass) for a in actions):
        if BidDone() in actions and rng.random() < 0.6:
            return BidDone()
        if Pass() in actions and rng.random() < 0.45:
            return Pass()
        return rng.choice(actions)
    busy = [a for a in actions if not isinstance(a, End | Clear)]
    if busy and rng.random() < 0.93:
        targeted = [a for a in busy if isinstance(a, Deliver) and a.to is not None]
        if targeted and rng.random() < 0.7:
            return rng.choice(targeted)
        return rng.choice(busy)
    return rng.choice(actions)


def step(state: Any, rng: random.Random) -> tuple[int, Any]:
    """One random legal action by a random seat that may act (checked apply)."""
    seat = rng.choice(sorted(state.current_seats()))
    action = choose(rng, state.legal_actions(seat))
    applied = state.apply(seat, action)
    assert applied == action  # legal actions are listed in canonical form
    return seat, action
