"""The engine's caches and incremental bookkeeping against a fresh recomputation.

A business area keeps derived data between placements (the coverage of every footprint and
the legal placements, the cells by kind, the action groups, the bean groups, the
observation's frame), shares it with its copies until either places a card, and brings the
placement bookkeeping up to date lazily. Over random games (every player count, the
advanced variant, Espresso and the promos), with copies taken at random and played on
apart from their originals, every step checks what the caches give against what the rules
give computed from scratch here, and against the same position read back from its JSON
(which builds every area anew, cell by cell).
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffeetable.games.cafe.area import COORD_LIMIT, FOOTPRINTS, BusinessArea
from coffeetable.games.cafe.deck import BEAN_LIKE, CardSpec, CellKind, default_deck
from coffeetable.games.cafe.game import CafeGame
from coffeetable.games.cafe.observation import observation_tensor
from coffeetable.games.cafe.state import CafeState
from tests.games.cafe.conftest import GAME

OPTIONS = st.sampled_from(
    [
        {},
        {"espresso": True},
        {"promos": ["leao", "coffee-mine", "atlas"]},
        {"variant": "advanced"},
        {"variant": "advanced", "espresso": True, "promos": ["atlas"]},
    ]
)
DECK = default_deck()
#: a plan card with a cup and one without, to list placements for whatever an area shows
CUP_CARD = next(c for c in DECK.of_kind("plan") if c.has_cup)
NO_CUP_CARD = next(c for c in DECK.of_kind("plan") if not c.has_cup)
FAMILY = {CellKind.BEAN: 1, CellKind.BONUS: 1, CellKind.SUPPLY: 1, CellKind.DRY: 2}
FAMILY[CellKind.ROAST] = 3


def fresh_placements(area: BusinessArea, card: CardSpec) -> list[tuple[int, int, int]]:
    """Every legal (row, col, rotation) by the rules, from the visible cells alone: the card
    covers 2-4 visible cells, stays in the grid, and leaves a cup visible (or shows one)."""
    top = area.top
    cups = sum(1 for cell in top.values() if cell.kind is CellKind.CUP)
    rows = [r for r, _ in top]
    cols = [c for _, c in top]
    out = []
    for shape in (0, 1):
        h, w = (2, 3) if shape == 0 else (3, 2)
        for row in range(min(rows) - h + 1, max(rows) + 1):
            for col in range(min(cols) - w + 1, max(cols) + 1):
                if row < -COORD_LIMIT or col < -COORD_LIMIT:
                    continue
                if row + h > COORD_LIMIT or col + w > COORD_LIMIT:
                    continue
                covered = [top[p] for p in footprint(row, col, shape) if p in top]
                hidden_cups = sum(1 for cell in covered if cell.kind is CellKind.CUP)
                if 2 <= len(covered) <= 4 and (card.has_cup or hidden_cups < cups):
                    out += [(row, col, shape), (row, col, shape + 2)]
    return out


def footprint(row: int, col: int, rotation: int) -> list[tuple[int, int]]:
    return [(row + dr, col + dc) for dr, dc in FOOTPRINTS[rotation]]


def fresh_groups(area: BusinessArea) -> dict[tuple[int, int], tuple[tuple[int, int], ...]]:
    """Cell -> its action group, by a depth-first search over orthogonal neighbours."""
    fam = {pos: FAMILY[cell.kind] for pos, cell in area.top.items() if cell.kind in FAMILY}
    out: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
    for start in fam:
        if start in out:
            continue
        seen = {start}
        todo = [start]
        while todo:
            r, c = todo.pop()
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if fam.get(nb) == fam[start] and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        group = tuple(sorted(seen))
        for pos in group:
            out[pos] = group
    return out


def check_area(area: BusinessArea) -> None:
    top = area.top
    for card in (CUP_CARD, NO_CUP_CARD):
        listed = area.legal_placements(card)
        assert listed == fresh_placements(area, card)
        for row, col, rotation in listed[:: max(1, len(listed) // 8)]:
            covered = [top[p] for p in footprint(row, col, rotation) if p in top]
            cups = sum(1 for cell in covered if cell.kind is CellKind.CUP)
            assert area.placement_coverage(row, col, rotation) == (len(covered), cups)
            assert area.placement_is_legal(card, row, col, rotation)
    groups = fresh_groups(area)
    assert area.groups() == groups
    kinds: dict[CellKind, list[tuple[int, int]]] = {}
    for pos in sorted(top):
        kinds.setdefault(top[pos].kind, []).append(pos)
    assert area.kinds() == kinds
    assert area.cups == len(kinds.get(CellKind.CUP, []))
    assert area.ships == len(kinds.get(CellKind.SHIP, []))
    bean = sorted({g for pos, g in groups.items() if top[pos].kind in BEAN_LIKE})
    assert area.bean_groups() == [(g[0], tuple((p, top[p].colour) for p in g)) for g in bean]


def check_state(state: CafeState) -> None:
    """Every area's caches, the seats to move, the legal actions and observations, against
    the same position read back from its JSON (its areas built anew)."""
    for player in state.players:
        check_area(player.area)
    again = GAME.state_from_json(state.to_json())
    assert state.current_seats() == again.current_seats()  # kept between steps, made anew
    for seat in range(state.num_players):
        assert state.legal_actions(seat) == again.legal_actions(seat)
        assert state.search_actions(seat) == again.search_actions(seat)
        assert np.array_equal(observation_tensor(state, seat), observation_tensor(again, seat))
    assert state.scores() == again.scores()


def play(state: CafeState, rng: random.Random, steps: int, check_every: int) -> None:
    for step in range(steps):
        if state.is_over():
            return
        if step % check_every == 0:
            check_state(state)
        seat = rng.choice(sorted(state.current_seats()))
        state.apply_unchecked(seat, rng.choice(state.legal_actions(seat)))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(1, 4), options=OPTIONS, seed=st.integers(0, 2**32 - 1))
def test_caches_match_a_fresh_recomputation(players: int, options: dict, seed: int) -> None:
    if options.get("variant") == "advanced" and players == 1:
        players = 2  # the advanced variant needs 2-4 players
    state = GAME.new_initial_state(players, seed % 100_000, options)
    rng = random.Random(seed)
    copies: list[CafeState] = []
    while not state.is_over():
        if rng.random() < 0.15:
            copies.append(state.clone())  # shares its areas' caches with the original
        play(state, rng, rng.randrange(1, 12), check_every=3)
    check_state(state)
    for copy in copies:  # each copy goes on its own way after the original has moved on
        play(copy, random.Random(rng.random()), 30, check_every=2)
        if not copy.is_over():
            check_state(copy)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 80))
def test_new_games_start_from_fresh_areas_whatever_earlier_games_did(seed: int, steps: int) -> None:
    """A game's business areas start as copies of one start area per start card, shared
    with every earlier game of the same `CafeGame`: whatever those played (cubes, placed
    cards, listings), a new game's areas are what its start card on an empty area gives."""
    game = CafeGame()  # its own start areas
    rng = random.Random(seed)
    first = game.new_initial_state(4, seed % 1000)  # the four companies
    play(first, rng, steps, check_every=steps)
    for player in first.players:
        player.area.legal_placements(NO_CUP_CARD)
    again = game.new_initial_state(4, seed % 1000 + 1)
    for player in again.players:
        area = player.area
        fresh = BusinessArea.starting(DECK.start_card(player.company))
        assert (area.top, area.shop_at, area.cubes, area.shops, area.cards) == (
            fresh.top,
            fresh.shop_at,
            fresh.cubes,
            fresh.shops,
            fresh.cards,
        )
        assert (area.cups, area.ships) == (fresh.cups, fresh.ships)
        check_area(area)


def test_a_copy_keeps_its_placements_when_the_original_places() -> None:
    """Copies share the placement bookkeeping of a version of the cells; a placement by
    either (and the lazy update it defers) leaves the other's listing as it was."""
    state = GAME.new_initial_state(1, 7)
    rng = random.Random(7)
    while not state.players[0].area.cards[1:]:  # until a card has been placed
        state.apply_unchecked(0, rng.choice(state.legal_actions(0)))
    area = state.players[0].area
    before = area.legal_placements(CUP_CARD)
    copy = area.copy()
    row, col, rotation = before[len(before) // 2]
    copy.place(CUP_CARD, row, col, rotation)
    assert copy.legal_placements(CUP_CARD) == fresh_placements(copy, CUP_CARD)
    assert copy.legal_placements(CUP_CARD) != before
    assert area.legal_placements(CUP_CARD) == before == fresh_placements(area, CUP_CARD)
    area.place(NO_CUP_CARD, *before[0])
    assert area.legal_placements(NO_CUP_CARD) == fresh_placements(area, NO_CUP_CARD)
    assert copy.legal_placements(NO_CUP_CARD) == fresh_placements(copy, NO_CUP_CARD)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_placed_cards_count_footprints_as_cells_put_one_by_one(seed: int) -> None:
    """`place` counts a card's new cells into the footprints as one change per card (summed
    per footprint, cups apart); `set_cell` one cell at a time. Over a random game's areas,
    both give the same coverage of every footprint and the same ordered fits."""
    rng = random.Random(seed)
    state = GAME.new_initial_state(rng.randint(1, 4), seed % 100_000)
    while not state.is_over():
        seat = rng.choice(sorted(state.current_seats()))
        state.apply_unchecked(seat, rng.choice(state.legal_actions(seat)))
    for player in state.players:
        placed = player.area
        cells = sorted(placed.top.items())
        rng.shuffle(cells)  # any order of the cells gives the same bookkeeping
        by_cell = BusinessArea()
        for pos, cell in cells:
            by_cell.set_cell(pos, cell)
        made, expected = placed._footprints(), by_cell._footprints()
        assert made.cover == expected.cover
        assert made.ordered == expected.ordered == sorted(made.ordered)
