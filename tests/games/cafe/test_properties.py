"""Properties of random Café games (hypothesis chooses player counts and seeds).

The bot is seeded and mildly purposeful (it rarely ends a turn early and likes delivering to
shops) so that games reach the later parts of the production chain. Invariants are read from
the position JSON, the engine's public picture of a state.

Unmarked tests play a few hundred games in total; the `slow` test plays 1,000 more.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffeetable.core.errors import CoffeetableError, IllegalActionError, NotYourTurnError
from coffeetable.core.record import GameRecord
from coffeetable.games.cafe.actions import (
    Clear,
    Deliver,
    Dry,
    End,
    Fill,
    Place,
    Produce,
    Roast,
    Take,
    parse_action,
)
from coffeetable.games.cafe.deck import CellKind, default_deck
from coffeetable.games.cafe.state import OpenKind, Stage
from tests.games.cafe.conftest import GAME, step

PLAYERS = st.integers(min_value=1, max_value=4)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
COLOURS = "YBGR"
CARD_IDS = [c.id for c in default_deck().cards]


def game_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


def check_invariants(state, *, seats: bool = True) -> dict:
    """Check the invariants of a live or finished state; `seats` also checks every seat's
    legal-action list (the slowest part)."""
    data = state.to_json()
    on_cells = dict.fromkeys(COLOURS, 0)
    for seat in data["seats"]:
        cells = seat["area"]["cells"]
        cups = sum(1 for c in cells if c["cell"] == "cup")
        assert cups >= 1, "an area shows no cup"
        assert 0 <= seat["ap"] <= min(8, cups)
        for cell in cells:
            for ch in cell.get("cubes", ""):
                on_cells[ch] += 1
        for shop in seat["area"]["shops"]:
            for ch in shop["cubes"]:
                on_cells[ch] += 1
            for colour in COLOURS:
                assert shop["cubes"].count(colour) <= shop["requires"].count(colour)
        for ch in seat.get("pending", {}).get("fill", ""):
            on_cells[ch] += 1
    for colour in COLOURS:
        assert data["supply"][colour] >= 0
        assert data["supply"][colour] + on_cells[colour] == 35, colour
    if data["phase"] == "draft":
        assert len(data["display"]) == 3
        assert len(state.current_seats()) == 1
    for player, seat in zip(state.players, data["seats"], strict=True):
        # the per-kind cube counts (scoring and the bots' evaluation) agree with the cells
        shown: dict[CellKind, list[int]] = {}
        for cell in seat["area"]["cells"]:
            if cell.get("cubes"):
                kind = CellKind[cell["cell"].split("-")[0].upper()]
                counts = shown.setdefault(kind, [0, 0, 0, 0])
                for ch in cell["cubes"]:
                    counts[COLOURS.index(ch)] += 1
        assert player.area.cubes_per_kind() == shown
        # the visible cells of each kind per colour (cached by the area between placements)
        coloured: dict[CellKind, list[int]] = {}
        for cell in seat["area"]["cells"]:
            kind_name, _, colour = cell["cell"].partition("-")
            if colour and colour in COLOURS:
                counts = coloured.setdefault(CellKind[kind_name.upper()], [0, 0, 0, 0])
                counts[COLOURS.index(colour)] += 1
        # the visible cells of each kind present (cached by the area between placements,
        # read by the bots' evaluation)
        placed: dict[CellKind, list[tuple[int, int]]] = {}
        for cell in seat["area"]["cells"]:  # in row-major order
            kind = CellKind[cell["cell"].split("-")[0].upper()]
            placed.setdefault(kind, []).append((cell["at"][0], cell["at"][1]))
        assert player.area.kinds() == placed
        for kind in CellKind:
            assert player.area.cubes_on_kind(kind) == shown.get(kind, [0, 0, 0, 0]), kind
            assert list(player.area.cell_colours(kind)) == coloured.get(kind, [0] * 4), kind
        # whether an open action goes on without action points (checked after every step)
        # agrees with the legal steps it would list
        if (
            player.stage is Stage.ACT
            and player.open_kind is not OpenKind.NONE
            and player.pending_deliver is None
            and not any(player.pending_fill)
            and not state._supply_choice_pending(player)
        ):
            probe = player.copy()
            probe.ap = 0
            listed = [s for s in state._legal_steps(probe) if not isinstance(s, Clear | End)]
            assert state._open_action_continues(probe) == bool(listed), listed
    if not seats:
        return data
    for seat in range(state.num_players):
        actions = state.legal_actions(seat)
        if seat not in state.current_seats():
            assert actions == []
            continue
        assert actions, "a seat to act has no legal action"
        # searches skip the Clears of bean cells, and nothing else
        top = state.players[seat].area.top
        assert state.search_actions(seat) == [
            a for a in actions if not (isinstance(a, Clear) and top[a.at].kind is CellKind.BEAN)
        ]
    return data


def play_checked(players: int, seed: int, *, seats: bool = True) -> tuple[object, GameRecord]:
    state = GAME.new_initial_state(players, seed)
    record = GameRecord("cafe", [f"bot{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    check_invariants(state)
    while not state.is_over():
        seat, action = step(state, rng)
        record.actions.append((seat, action.notation()))
        data = check_invariants(state, seats=seats)
    assert data["phase"] == "over" and data["round"] == 8
    assert data["deck"] == [] and data["display"] == []
    assert state.current_seats() == frozenset()
    assert len(state.scores()) == players
    assert state.winners() and set(state.winners()) <= set(range(players))
    return state, record


def full_game_properties(players: int, seed: int, *, seats: bool = True) -> None:
    state, record = play_checked(players, seed, seats=seats)
    replayed = record.replay()
    assert replayed.to_json() == state.to_json()
    assert replayed.scores() == state.scores()


@game_settings(200)
@given(players=PLAYERS, seed=SEEDS)
def test_random_games_keep_the_invariants(players: int, seed: int) -> None:
    full_game_properties(players, seed)


@pytest.mark.slow
@game_settings(1000)
@given(players=PLAYERS, seed=SEEDS)
def test_random_games_keep_the_invariants_1000(players: int, seed: int) -> None:
    # the per-seat legal-action checks are left to the test above, to keep this one quicker
    full_game_properties(players, seed, seats=False)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_player_count_is_covered(players: int) -> None:
    # hypothesis may under-sample a player count; one fixed game each makes sure
    for seed in range(5):
        full_game_properties(players, seed)


def test_the_bot_reaches_shops() -> None:
    # the invariants above mean little if random games never deliver anything
    delivered = 0
    for seed in range(30):
        state, _ = play_checked(seed % 4 + 1, seed)
        delivered += sum(
            len(s["cubes"]) for p in state.to_json()["seats"] for s in p["area"]["shops"]
        )
    assert delivered > 0


# ==== JSON round trip =======================================================================


@game_settings(40)
@given(players=PLAYERS, seed=SEEDS, stops=st.lists(st.integers(0, 400), min_size=1, max_size=4))
def test_json_round_trip_is_identity_and_continues_identically(
    players: int, seed: int, stops: list[int]
) -> None:
    state = GAME.new_initial_state(players, seed)
    rng = random.Random(seed)
    count = 0
    for stop in sorted(set(stops)):
        while count < stop and not state.is_over():
            step(state, rng)
            count += 1
        data = state.to_json()
        restored = GAME.state_from_json(json.loads(json.dumps(data)))
        assert restored.to_json() == data
        for seat in range(players):
            assert restored.legal_actions(seat) == state.legal_actions(seat)
    # the restored state plays on exactly like the original: two bots with the same seed,
    # each choosing from its own state's legal actions, make the same choices throughout
    data = state.to_json()
    restored = GAME.state_from_json(json.loads(json.dumps(data)))
    bot_a, bot_b = random.Random(seed + 1), random.Random(seed + 1)
    while not state.is_over():
        assert not restored.is_over()
        assert restored.current_seats() == state.current_seats()
        seat_a, action_a = step(state, bot_a)
        seat_b, action_b = step(restored, bot_b)
        assert (seat_b, action_b) == (seat_a, action_a)
    assert restored.is_over()
    assert restored.to_json() == state.to_json()
    assert restored.scores() == state.scores()


# ==== notation and encoding =================================================================


@game_settings(25)
@given(players=PLAYERS, seed=SEEDS)
def test_every_legal_action_survives_notation_and_encoding(players: int, seed: int) -> None:
    state = GAME.new_initial_state(players, seed)
    rng = random.Random(seed)
    while not state.is_over():
        for seat in state.current_seats():
            legal = state.legal_actions(seat)
            assert len(set(legal)) == len(legal)  # no duplicates
            codes = set()
            for action in legal:
                text = action.notation()
                assert parse_action(text) == action, text
                assert GAME.parse_action(text) == action, text
                code = GAME.encode_action(action)
                assert isinstance(code, int) and code >= 0
                assert GAME.decode_action(code) == action, text
                codes.add(code)
            assert len(codes) == len(legal)
        step(state, rng)


# ==== illegal actions change nothing ========================================================

CELL = st.tuples(st.integers(-4, 6), st.integers(-4, 6))
COLOUR = st.integers(0, 3)
ACTIONS = st.one_of(
    st.builds(Take, st.sampled_from(CARD_IDS), st.integers(-1, 3), st.booleans()),
    st.builds(Place, st.integers(-4, 6), st.integers(-4, 6), st.integers(0, 3)),
    st.builds(Produce, CELL),
    st.builds(Fill, CELL),
    st.builds(Clear, CELL),
    st.builds(Dry, CELL, COLOUR, st.none() | CELL),
    st.builds(Roast, CELL, COLOUR, st.none() | CELL),
    st.builds(Deliver, CELL, st.none() | CELL),
    st.just(End()),
)


def mutations(action, rng: random.Random) -> list:
    """Near misses of a legal action: one field changed."""
    if isinstance(action, Take):
        return [Take(action.card, pay=rng.randrange(-1, 4)), Take(action.card, discard=True)]
    if isinstance(action, Place):
        return [Place(action.row + rng.choice((-2, 2)), action.col, action.rotation)]
    if isinstance(action, Dry | Roast):
        return [
            type(action)(action.to, (action.colour + 1) % 4, action.source),
            type(action)((action.to[0] + 1, action.to[1]), action.colour, action.source),
        ]
    if isinstance(action, Deliver):
        return [Deliver(action.source, (action.source[0], action.source[1] + 1))]
    if isinstance(action, Produce | Fill | Clear):
        return [type(action)((action.at[0], action.at[1] - 1))]
    return []


@game_settings(150)
@given(
    players=PLAYERS,
    seed=SEEDS,
    steps=st.integers(0, 500),
    candidates=st.lists(ACTIONS, min_size=1, max_size=25),
)
def test_checked_apply_of_an_illegal_action_changes_nothing(
    players: int, seed: int, steps: int, candidates: list
) -> None:
    state = GAME.new_initial_state(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        step(state, rng)
    before = state.to_json()
    for seat in range(players):
        legal = state.legal_actions(seat)
        pool = list(candidates)
        for action in legal[:10]:
            pool.extend(mutations(action, rng))
        for action in pool:
            canonical = state.canonical_action(seat, action)
            if canonical in legal:
                continue
            with pytest.raises(IllegalActionError) as info:
                state.apply(seat, action)
            assert str(info.value)  # says what was wrong
            if not state.is_over() and seat not in state.current_seats():
                assert isinstance(info.value, NotYourTurnError)
            assert state.to_json() == before
    # a seat that may not act cannot play another seat's legal action
    for seat in state.current_seats():
        for other in set(range(players)) - state.current_seats():
            for action in state.legal_actions(seat)[:3]:
                with pytest.raises(NotYourTurnError):
                    state.apply(other, action)
    assert state.to_json() == before


def test_out_of_range_seat_is_rejected() -> None:
    state = GAME.new_initial_state(2, 1)
    before = state.to_json()
    for seat in (-1, 2, 7):
        with pytest.raises(CoffeetableError):
            state.apply(seat, End())
    assert state.to_json() == before


# ==== random positions against an independent model of the action rules ===================
#
# Hypothesis draws small areas (beans, dry, roast, cups, one-cell shops, cubes); the model
# below works the rules out from the grid alone (its own flood fill for groups) and the
# engine's legal actions and their effects must agree with it.

KINDS = ["Y", "B", "G", "R", "d", "d", "r", "r", "c", "s", ".", "-", "0", "1"]


@st.composite
def areas(draw) -> tuple[str, list[dict]]:
    rows = draw(st.integers(2, 4))
    cols = draw(st.integers(2, 4))
    grid = [[draw(st.sampled_from(KINDS)) for _ in range(cols)] for _ in range(rows)]
    grid[0][0] = "c"  # at least one cup
    shops = []
    for sid in ("0", "1"):
        cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == sid]
        for n, (r, c) in enumerate(cells):  # one cell per shop, numbered in list order
            grid[r][c] = str(len(shops)) if n == 0 else "."
        if cells:
            need = draw(st.text(alphabet="YBGR", min_size=1, max_size=3))
            have = "".join(ch for ch in need if draw(st.booleans()))
            shops.append({"city": "Lisbon", "year": 1905, "requires": need, "vp": 2, "cubes": have})
    lines = []
    for row in grid:
        tokens = []
        for kind in row:
            cubes = ""
            if kind in ("Y", "B", "G", "R") and draw(st.booleans()):
                cubes = kind
            elif kind in ("d", "r") and draw(st.booleans()):
                cubes = draw(st.sampled_from("YBGR")) * draw(st.integers(1, 3))
            tokens.append(f"{kind}:{cubes}" if cubes else kind)
        lines.append(" ".join(tokens))
    return "\n".join(lines), shops


class Model:
    """The rules, worked out from the parsed grid only."""

    def __init__(self, grid: str, shops: list[dict]):
        from tests.games.cafe.conftest import parse_grid

        self.kind: dict[tuple[int, int], str] = {}
        self.cubes: dict[tuple[int, int], str] = {}
        for pos, kind, cubes in parse_grid(grid):
            self.kind[pos] = kind
            if cubes:
                self.cubes[pos] = cubes
        self.shops = {}
        for pos, kind in self.kind.items():
            if kind.isdigit():
                s = shops[int(kind)]
                self.shops[pos] = (s["requires"], s["cubes"])

    def family(self, pos) -> str:
        k = self.kind.get(pos, "-")
        return "bean" if k in "YBGR" and len(k) == 1 else k

    def group(self, pos) -> frozenset:
        fam = self.family(pos)
        seen, todo = {pos}, [pos]
        while todo:
            r, c = todo.pop()
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb in self.kind and nb not in seen and self.family(nb) == fam:
                    seen.add(nb)
                    todo.append(nb)
        return frozenset(seen)

    def cells(self, fam: str) -> list:
        return sorted(p for p in self.kind if self.family(p) == fam)

    def holders(self, fam: str, colour: str) -> list:
        return [p for p in self.cells(fam) if self.cubes.get(p, "")[:1] == colour]

    def transfers(self, target: str, source: str) -> set:
        out = set()
        for to in self.cells(target):
            if to in self.cubes:
                continue
            for colour in "YBGR":
                srcs = self.holders(source, colour)
                if srcs:
                    out.add((to, colour, None))
                    if len(srcs) > 1:
                        out.update((to, colour, s) for s in srcs)
        return out


def key(action) -> tuple:
    if isinstance(action, Dry | Roast):
        return (action.to, "YBGR"[action.colour], action.source)
    raise AssertionError(action)


@game_settings(300)
@given(area=areas(), ap=st.integers(1, 3))
def test_action_rules_match_an_independent_model(area, ap: int) -> None:
    from tests.games.cafe.conftest import load

    grid, shops = area
    cups = sum(1 for tok in grid.split() if tok == "c")
    ap = min(ap, cups)
    state = load(grid, shops, ap=ap)
    model = Model(grid, shops)
    legal = state.legal_actions(0)
    by_type: dict[type, list] = {}
    for action in legal:
        by_type.setdefault(type(action), []).append(action)

    # Produce: one per bean group with an empty cell
    want_groups = {model.group(p) for p in model.cells("bean") if p not in model.cubes}
    got_groups = [model.group(a.at) for a in by_type.get(Produce, [])]
    assert len(got_groups) == len(set(got_groups))
    assert set(got_groups) == want_groups
    # Dry and Roast: into empty cells, any colour held by a source cell, subsets by 'from'
    assert {key(a) for a in by_type.get(Dry, [])} == model.transfers("d", "bean")
    assert {key(a) for a in by_type.get(Roast, [])} == model.transfers("r", "d")
    # Deliver: every loaded roast cell, to the warehouse or a shop needing its colour
    want_deliveries = set()
    for pos in model.cells("r"):
        if pos in model.cubes:
            want_deliveries.add((pos, None))
            colour = model.cubes[pos][0]
            for at, (need, have) in model.shops.items():
                if have.count(colour) < need.count(colour):
                    want_deliveries.add((pos, at))
    assert {(a.source, a.to) for a in by_type.get(Deliver, [])} == want_deliveries
    # Clear: every cell holding cubes (shops are not cells that clear)
    assert {a.at for a in by_type.get(Clear, [])} == set(model.cubes)
    assert End() in legal
    assert set(by_type) <= {Produce, Dry, Roast, Deliver, Clear, End}

    base = state.to_json()
    supply0 = base["supply"]

    def after(action):
        twin = GAME.state_from_json(base)
        twin.apply(0, action)
        data = twin.to_json()
        cubes = {
            tuple(c["at"]): c["cubes"] for c in data["seats"][0]["area"]["cells"] if c.get("cubes")
        }
        return twin, data, cubes

    for action in by_type.get(Produce, []):
        twin, data, cubes = after(action)
        group = model.group(action.at)
        filled = {p: model.kind[p] for p in group if p not in model.cubes}
        assert cubes == {**model.cubes, **filled}
        for colour in "YBGR":
            used = sum(1 for k in filled.values() if k == colour)
            assert data["supply"][colour] == supply0[colour] - used
        if ap > 1:
            assert data["seats"][0]["ap"] == ap - 1

    for action in by_type.get(Dry, []) + by_type.get(Roast, []):
        twin, data, cubes = after(action)
        fam = "bean" if isinstance(action, Dry) else "d"
        colour = "YBGR"[action.colour]
        srcs = [action.source] if action.source else model.holders(fam, colour)
        moved = sum(len(model.cubes[s]) for s in srcs)
        expect = {p: c for p, c in model.cubes.items() if p not in srcs}
        expect[action.to] = colour * moved
        assert cubes == expect
        assert data["supply"] == supply0
        if ap > 1:
            assert data["seats"][0]["ap"] == ap - 1
            # another empty cell of the same group takes another colour for free
            group = model.group(action.to)
            target = "d" if isinstance(action, Dry) else "r"
            left = {p: c for p, c in expect.items() if model.family(p) == fam}
            for other in model.cells(target):
                if other in expect:
                    continue
                for c2 in sorted({c[0] for c in left.values()}):
                    follow = type(action)(other, "YBGR".index(c2))
                    assert follow in twin.legal_actions(0)
                    third = GAME.state_from_json(data)
                    third.apply(0, follow)
                    free = other in group and c2 != colour
                    spent = third.to_json()["seats"][0]["ap"]
                    assert spent == (ap - 1 if free else ap - 2), (action, follow)

    for action in by_type.get(Clear, []):
        twin, data, cubes = after(action)
        assert cubes == {p: c for p, c in model.cubes.items() if p != action.at}
        gone = model.cubes[action.at]
        assert data["supply"][gone[0]] == supply0[gone[0]] + len(gone)
        assert data["seats"][0]["ap"] == ap


def test_json_round_trip_at_every_step() -> None:
    # every step of a few games, so that open actions and pending choices are written too
    seen: set[str] = set()
    for seed in range(12):
        state = GAME.new_initial_state(seed % 4 + 1, seed)
        rng = random.Random(seed)
        while not state.is_over():
            data = state.to_json()
            for seat in data["seats"]:
                if "open" in seat:
                    seen.add(f"open {seat['open']['kind']}")
                seen.update(f"pending {k}" for k in seat.get("pending", {}) if k != "cells")
            restored = GAME.state_from_json(json.loads(json.dumps(data)))
            assert restored.to_json() == data
            assert restored.current_seats() == state.current_seats()
            for seat in state.current_seats():
                assert restored.legal_actions(seat) == state.legal_actions(seat)
            step(state, rng)
        assert GAME.state_from_json(state.to_json()).to_json() == state.to_json()
    assert {"open dry", "open roast", "open deliver", "pending deliver"} <= seen
