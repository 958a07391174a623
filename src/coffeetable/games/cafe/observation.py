"""Café observation tensors for learning agents (docs/rl.md has the layout slice by slice).

`observation_tensor(state, seat)` is a flat float32 vector of what `seat` may know: it reads
only the public parts of the state, the same information as `state.view(seat)` (the deck
only as its size, the cards removed at random only as their number, never the RNG). So it
never changes under `state.resample_hidden(seat, rng)`. `observation_shape(game, n,
options)` is its shape; `observation_layout(game, n)` names every slice.

Business areas are unbounded grids, so each is shown in a **frame**: a GRID x GRID window
whose top-left cell is two rows above and two columns left of the area's bounding box. A
placement covers 2-4 visible cells, so it grows the box's height plus width by at most 2;
the start card is 2 x 3 and eight cards are placed, so a box is at most 19 cells high or
wide (height + width <= 21), and the frame, with its margin of 2 for the top-left corner of
a placement, fits in 21 x 21. The visible cells of an area, at most 6 + 8 x 4 = 38, are
also numbered in row-major order: these **slots** name cells in the dense action space of
`coffeetable.rl` and in the `slots` table below.

Numeric features are scaled by a fixed divisor and declared with an upper bound (the lower
bound is always 0). Features with no bound in the rules (warehouse cubes, stakes, scores)
are clipped at a generous cap that no real game reaches.

This module needs numpy (the `rl` extra); nothing else in the game imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from coffeetable.core.errors import DataError
from coffeetable.core.game import ScoreBreakdown
from coffeetable.core.layout import Field, TensorLayout
from coffeetable.games.cafe.area import BusinessArea, Pos
from coffeetable.games.cafe.deck import COMPANIES, CardSpec, CellKind, Deck
from coffeetable.games.cafe.state import (
    CUBES_PER_COLOUR,
    MAX_AP,
    ROUNDS,
    CafeState,
    OpenKind,
    Phase,
    PlayerState,
)
from coffeetable.games.cafe.variant import PROMOS, CafeRules

if TYPE_CHECKING:
    from coffeetable.games.cafe.game import CafeGame

Tensor = npt.NDArray[np.float32]

GRID = 21  #: side of the frame an area is shown in
MARGIN = 2  #: rows / columns of the frame above and left of the area's bounding box
MAX_SLOTS = 38  #: visible cells of an area, at most (6 + 8 placements x 4 new cells)
MAX_DISPLAY = 5  #: cards on offer at most (advanced mode with 4 players)
MAX_PLAYERS = 4
KINDS = len(CellKind)  # 11
COLOURS = 4
TOTAL_CUBES = 4 * CUBES_PER_COLOUR
#: caps of the features the rules do not bound (values are clipped there)
WAREHOUSE_CAP = 40
STAKE_CAP = 40
SCORE_CAP = 100
CARDS_CAP = 18

#: the channels of one cell of an area's frame
CELL_CHANNELS: tuple[str, ...] = (
    *(f"kind={k.name.lower()}" for k in CellKind),
    *(f"printed colour {c}" for c in "YBGR"),
    "cake VP / max cake VP",
    *(f"cubes {c} / 4" for c in "YBGR"),
    *(f"shop still needs {c} / max requirement" for c in "YBGR"),
    "shop VP / max VP",
    "shop complete",
    "shop unavailable (a cell covered)",
    "shop anchor (its first cell: the delivery target)",
    "in the open Dry/Roast action's group",
    "filled by the open Dry/Roast action",
    "may take a scarce cube (pending fill)",
    "produced supply cell awaiting a colour",
    "roast cell being emptied (pending deliver)",
)
CH = len(CELL_CHANNELS)  # 33
_C_KIND, _C_COLOUR, _C_CAKE, _C_CUBES, _C_NEEDS, _C_VP = 0, 11, 15, 16, 20, 24
_C_COMPLETE, _C_UNAVAILABLE, _C_ANCHOR = 25, 26, 27
_C_OPEN_GROUP, _C_OPEN_CELL, _C_PENDING, _C_SUPPLY, _C_DELIVER = 28, 29, 30, 31, 32
#: features of one card (display, hands): 6 printed cells, then has-cup and star
CELL_FEATURES = KINDS + COLOURS + 1 + COLOURS + 1  # 21
CARD_FEATURES = 6 * CELL_FEATURES + 2  # 128
SLOT_FEATURES = 3 + CH
CARD_STATUS = ("display", "hand", "placed", "discard", "removed_by_rule", "unseen")
PHASES = (Phase.AUCTION, Phase.DRAFT, Phase.TURNS, Phase.OVER)


# ==== frames and slots ===========================================================================
def area_origin(area: BusinessArea) -> Pos:
    """The frame's top-left cell (row, col): MARGIN above and left of the bounding box.
    Raises DataError for an area too large for the frame (only a hand-made position)."""
    rows = [r for r, _ in area.top]
    cols = [c for _, c in area.top]
    r0, c0 = min(rows) - MARGIN, min(cols) - MARGIN
    if max(rows) - r0 >= GRID or max(cols) - c0 >= GRID:
        raise DataError(
            f"this business area spans {max(rows) - min(rows) + 1} x {max(cols) - min(cols) + 1} "
            f"cells; the RL observation shows at most {GRID - MARGIN} x {GRID - MARGIN}"
        )
    return r0, c0


def area_slots(area: BusinessArea) -> list[Pos]:
    """The visible cells in row-major order: slot k is the k-th. Raises DataError for more
    than MAX_SLOTS cells (only a hand-made position)."""
    cells = sorted(area.top)
    if len(cells) > MAX_SLOTS:
        raise DataError(
            f"this business area has {len(cells)} visible cells; the RL interface numbers at "
            f"most {MAX_SLOTS}"
        )
    return cells


# ==== the layout =================================================================================
class _DeckStats:
    """Per-deck constants: card features and the bounds they are scaled by."""

    def __init__(self, deck: Deck) -> None:
        shops = [s for c in deck.cards for s in c.shops.values()]
        self.max_req = max([1, *(max(s.requires) for s in shops)])
        self.max_vp = max([1, *(s.vp for s in shops)])
        self.max_cake = max(
            [1, *(cell.value for c in deck.cards for row in c.cells for cell in row)]
        )
        self.index = {c.id: i for i, c in enumerate(deck.cards)}
        self.ids = [c.id for c in deck.cards]
        self.plans = [c.id for c in deck.cards if c.kind == "plan"]
        self.espresso = [c.id for c in deck.cards if c.kind == "espresso"]
        self._in_game: dict[CafeRules, frozenset[str]] = {}
        self._in_game_rows: dict[CafeRules, Tensor] = {}
        self.card_table = np.zeros((len(deck.cards), CARD_FEATURES), dtype=np.float32)
        for i, card in enumerate(deck.cards):
            self.card_table[i] = self._card_features(card)

    def in_game(self, rules: CafeRules) -> frozenset[str]:
        """The cards of a game with these rules: the plans, the promos, the espresso cards
        if played (cached per rules)."""
        cards = self._in_game.get(rules)
        if cards is None:
            espresso = self.espresso if rules.espresso else ()
            cards = self._in_game[rules] = frozenset([*self.plans, *rules.promos, *espresso])
        return cards

    def in_game_row(self, rules: CafeRules) -> Tensor:
        """`in_game(rules)` as a row of the `cards` field: 1 at each of its cards' index
        (cached per rules, read-only)."""
        row = self._in_game_rows.get(rules)
        if row is None:
            row = np.zeros(len(self.ids), dtype=np.float32)
            row[[self.index[c] for c in self.in_game(rules)]] = 1
            row.flags.writeable = False
            self._in_game_rows[rules] = row
        return row

    def _card_features(self, card: CardSpec) -> Tensor:
        out = np.zeros(CARD_FEATURES, dtype=np.float32)
        for k, cell in enumerate(c for row in card.cells for c in row):
            base = k * CELL_FEATURES
            out[base + cell.kind] = 1
            if cell.colour >= 0:
                out[base + KINDS + cell.colour] = 1
            out[base + KINDS + COLOURS] = cell.value / self.max_cake
            if cell.kind is CellKind.SHOP:
                spec = card.shops[cell.shop]
                for colour, n in enumerate(spec.requires):
                    out[base + KINDS + COLOURS + 1 + colour] = n / self.max_req
                out[base + CELL_FEATURES - 1] = spec.vp / self.max_vp
        out[-2] = card.has_cup
        out[-1] = card.star
        return out


_STATS: dict[str, _DeckStats] = {}
_LAYOUTS: dict[tuple[str, int, bool], TensorLayout] = {}


class _SeatOffsets(NamedTuple):
    """Where one relative seat's fields start in a layout (`p{k}.company`, ...)."""

    company: int
    warehouse: int
    stage: int
    ap: int
    open: int
    pending_fill: int
    hand: int
    score: int
    area: int
    cells: int  #: `p{k}.grid` (the full layout) or `p{k}.slots` (the compact one)


_SEAT_OFFSETS: dict[int, tuple[TensorLayout, list[_SeatOffsets]]] = {}


def _seat_offsets(layout: TensorLayout, num_players: int) -> list[_SeatOffsets]:
    """Per relative seat, its fields' offsets in `layout` (cached per layout)."""
    known = _SEAT_OFFSETS.get(id(layout))
    if known is None or known[0] is not layout:
        off = layout.offsets
        cells = "grid" if "p0.grid" in off else "slots"
        names = [*_SeatOffsets._fields[:-1], cells]
        known = _SEAT_OFFSETS[id(layout)] = (
            layout,
            [_SeatOffsets(*(off[f"p{k}.{name}"] for name in names)) for k in range(num_players)],
        )
    return known[1]


def _stats(deck: Deck) -> _DeckStats:
    stats = _STATS.get(deck.digest)
    if stats is None:
        stats = _STATS[deck.digest] = _DeckStats(deck)
    return stats


def observation_layout(game: CafeGame, num_players: int, compact: bool = False) -> TensorLayout:
    """The named slices of the observation for `num_players` (the same for every variant).
    Seats are relative: `p0` is the observing seat, `p1` the next seat clockwise, ...

    The full layout shows each seat's area as a dense grid (`p{k}.grid`, GRID x GRID x CH)
    and the observer's visible cells once more as the `slots` table. The **compact** layout
    (`compact=True`) has the same fields without the grids and the trailing `slots`; instead
    every seat has its own slots table, `p{k}.slots`, where its grid was (`p0.slots` is the
    observer's, the `slots` of the full layout). It holds the same information:
    `expand_observation` rebuilds the full tensor from it."""
    key = (game.deck.digest, num_players, bool(compact))
    layout = _LAYOUTS.get(key)
    if layout is not None:
        return layout
    if not 1 <= num_players <= MAX_PLAYERS:
        raise DataError(f"Café is played by 1 to 4 players, not {num_players}")
    cards = len(game.deck.cards)
    fields = [
        Field("players", (MAX_PLAYERS,), 1, "number of players, one-hot (index n-1)"),
        Field("options", (5,), 1, "advanced mode, espresso, promos leao, coffee-mine, atlas"),
        Field("seat", (MAX_PLAYERS,), 1, "the observing seat's number, one-hot"),
        Field("round", (ROUNDS,), 1, "round 1-8, one-hot"),
        Field("phase", (4,), 1, "auction, draft, turns, over; one-hot"),
        Field("counts", (3,), cards / 10, "deck size, cards removed unseen, discards; / 10"),
        Field("supply", (COLOURS,), 1, "cubes in the supply per colour Y B G R / 35"),
        Field("master", (MAX_PLAYERS,), 1, "the master token's seat, relative, one-hot"),
        Field(
            "draft_order",
            (MAX_PLAYERS, MAX_PLAYERS),
            1,
            "[relative seat, k]: the seat picks k-th among those still to pick",
        ),
        Field(
            "auction_stakes",
            (MAX_PLAYERS,),
            STAKE_CAP / 10,
            "auction phase: stake per relative seat / 10",
        ),
        Field("auction_passed", (MAX_PLAYERS,), 1, "auction phase: seat has passed"),
        Field("auction_bidder", (MAX_PLAYERS,), 1, "auction phase: the bidder, one-hot"),
        Field("auction_bid_open", (1,), STAKE_CAP / 10, "auction phase: cubes in the open bid"),
        Field(
            "cards",
            (len(CARD_STATUS), cards),
            1,
            "per deck card (file order): on display, in a hand, placed in an area, "
            "discarded, removed by rule (★), unseen (deck or removed at random)",
        ),
        Field(
            "display",
            (MAX_DISPLAY, 1 + CARD_FEATURES),
            1,
            "the cards on offer in display order: present, then the card's features",
        ),
    ]
    grid_high = [1.0] * CH
    for c in range(COLOURS):
        grid_high[_C_CUBES + c] = CUBES_PER_COLOUR / 4
    slot_high = (1.0, 1.0, 1.0, *grid_high)
    for i in range(num_players):
        p = f"p{i}."
        fields += [
            Field(p + "company", (len(COMPANIES),), 1, "company, one-hot"),
            Field(p + "warehouse", (COLOURS,), WAREHOUSE_CAP / 4, "warehouse cubes / 4"),
            Field(p + "stage", (4,), 1, "wait, place, act, done; one-hot"),
            Field(p + "ap", (1,), 1, "action points left / 8"),
            Field(
                p + "open",
                (8,),
                1,
                "open action: none, dry, roast, deliver (one-hot); colours used Y B G R",
            ),
            Field(
                p + "pending_fill",
                (COLOURS,),
                CUBES_PER_COLOUR / 4,
                "scarce cubes held after a short Produce / 4",
            ),
            Field(p + "hand", (1 + CARD_FEATURES,), 1, "holds a card; the card's features"),
            Field(
                p + "score",
                (3,),
                (SCORE_CAP / 10, TOTAL_CUBES / 10, TOTAL_CUBES / 10),
                "score as if the game ended now / 10; tie-breaks: roast, dry cubes / 10",
            ),
            Field(
                p + "area",
                (5,),
                (CARDS_CAP / 9, MAX_SLOTS / 8, MAX_SLOTS / 8, 1, 1),
                "cards placed / 9, visible cups / 8, visible ships / 8, "
                "bounding box height, width / 21",
            ),
        ]
        if compact:
            fields.append(
                Field(
                    p + "slots",
                    (MAX_SLOTS, SLOT_FEATURES),
                    slot_high,
                    "the seat's visible cells in row-major order (p0: the action space's "
                    "slots): present, frame row / 20, frame col / 20, then the cell's grid "
                    "channels",
                )
            )
        else:
            fields.append(
                Field(
                    p + "grid",
                    (GRID, GRID, CH),
                    tuple(grid_high),
                    "the area in its frame: [row, col, channel], channels as in CELL_CHANNELS",
                )
            )
    if not compact:
        fields.append(
            Field(
                "slots",
                (MAX_SLOTS, SLOT_FEATURES),
                slot_high,
                "the observer's visible cells in row-major order (the action space's slots): "
                "present, frame row / 20, frame col / 20, then the cell's grid channels",
            )
        )
    layout = _LAYOUTS[key] = TensorLayout(fields)
    return layout


def observation_shape(
    game: CafeGame,
    num_players: int,
    options: Mapping[str, Any] | None = None,
    compact: bool = False,
) -> tuple[int]:
    """The shape of `observation_tensor` (one flat vector; the same for every variant)."""
    if options is not None:
        game.normalize_options(options)
    return (observation_layout(game, num_players, compact).size,)


# ==== the tensor =================================================================================
def _check_seat(state: CafeState, seat: int) -> None:
    n = state.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise DataError(f"there is no seat {seat!r} in a {n}-player game")


def observation_tensor(state: CafeState, seat: int, compact: bool = False) -> Tensor:
    """What `seat` may know about `state`, as a flat float32 vector (docs/rl.md), built from
    scratch (`Observer` keeps one per seat and rewrites only what changed); in the compact
    layout with `compact=True` (`observation_layout`)."""
    _check_seat(state, seat)
    n = state.num_players
    game = state.game
    layout = observation_layout(game, n, compact)
    stats = _stats(game.deck)
    out = np.zeros(layout.size, dtype=np.float32)
    _write_constants(state, seat, layout, out)
    removed_rule = state.removed_by_rule()
    _write_public(state, seat, removed_rule, layout, out)
    frames = [_frame(p.area, stats) for p in state.players]
    _write_cards(state, stats, removed_rule, layout, out)
    seat_offsets = _seat_offsets(layout, n)
    for s, player in enumerate(state.players):
        o = seat_offsets[(s - seat) % n]
        frame = frames[s]
        _write_seat(player, _score_values(state, s), frame, stats, o, out)
        if compact:
            table = out[o.cells : o.cells + MAX_SLOTS * SLOT_FEATURES]
            table.reshape(MAX_SLOTS, SLOT_FEATURES)[: len(frame.slot_cells), :3] = frame.slot_static
            _area_cells(player.area, player, stats, frame, frame.slots(), o.cells, out)
        else:
            _area_cells(player.area, player, stats, frame, frame.grid, o.cells, out)
    if not compact:
        _write_slots(state.players[seat].area, stats, layout, out)
    return out


def expand_observation(game: CafeGame, num_players: int, compact: Tensor) -> Tensor:
    """The full observation (`observation_layout(game, num_players)`) of a compact one
    (`observation_layout(game, num_players, compact=True)`): every field copied, each
    seat's grid rebuilt from its slots table (a present slot's row and column give its cell
    of the frame, its channels the cell's channels; every other cell is 0), and the
    observer's `slots` table is `p0.slots`. Exact: `expand_observation(game, n,
    observation_tensor(state, seat, compact=True)) == observation_tensor(state, seat)`.
    `compact` may be a batch: any leading axes are kept. Raises DataError for an array of
    the wrong size."""
    small = observation_layout(game, num_players, compact=True)
    full = observation_layout(game, num_players)
    values = np.asarray(compact, dtype=np.float32)
    if values.ndim < 1 or values.shape[-1] != small.size:
        raise DataError(
            f"a compact {num_players}-player Café observation has {small.size} values, "
            f"not shape {values.shape}"
        )
    lead = values.shape[:-1]
    rows = values.reshape(-1, small.size)
    out = np.zeros((rows.shape[0], full.size), dtype=np.float32)
    for f in small.fields:
        start, stop = small.span(f.name)
        if f.name.endswith(".slots"):
            seat = f.name[: -len(".slots")]
            tables = rows[:, start:stop].reshape(-1, MAX_SLOTS, SLOT_FEATURES)
            if seat == "p0":
                a, b = full.span("slots")
                out[:, a:b] = rows[:, start:stop]
            a, b = full.span(seat + ".grid")
            grids = out[:, a:b].reshape(-1, GRID * GRID, CH)
            batch, slot = np.nonzero(tables[:, :, 0])
            row = np.rint(tables[batch, slot, 1] * (GRID - 1)).astype(np.intp)
            col = np.rint(tables[batch, slot, 2] * (GRID - 1)).astype(np.intp)
            grids[batch, row * GRID + col] = tables[batch, slot, 3:]
        else:
            a, b = full.span(f.name)
            out[:, a:b] = rows[:, start:stop]
    expanded: Tensor = out.reshape(*lead, full.size)
    return expanded


def _flush(out: Tensor, idx: list[int], sparse: dict[int, float]) -> None:
    """Set the flat positions `idx` to 1 and those of `sparse` to their values."""
    if idx:
        out[np.fromiter(idx, dtype=np.intp, count=len(idx))] = 1
    if sparse:
        k = len(sparse)
        out[np.fromiter(sparse.keys(), dtype=np.intp, count=k)] = np.fromiter(
            sparse.values(), dtype=np.float32, count=k
        )


def _option_flags(rules: CafeRules) -> tuple[bool, ...]:
    return (rules.advanced, rules.espresso, *(card in rules.promos for card in PROMOS.values()))


def _write_constants(state: CafeState, seat: int, layout: TensorLayout, out: Tensor) -> None:
    """`players`, `options`, `seat`: fixed for a game and a seat (into a zeroed `out`)."""
    off = layout.offsets
    idx = [off["players"] + state.num_players - 1, off["seat"] + seat]
    idx.extend(off["options"] + i for i, on in enumerate(_option_flags(state.rules)) if on)
    _flush(out, idx, {})


def _write_public(
    state: CafeState, seat: int, removed_rule: list[str], layout: TensorLayout, out: Tensor
) -> None:
    """`round` to `auction_bid_open` (all of it written, as one list): the round, phase,
    piles' sizes, supply, master, draft order and auction. `removed_rule` is
    `state.removed_by_rule()`."""
    n = state.num_players
    off = layout.offsets
    start = off["round"]
    values = [0.0] * (off["cards"] - start)

    def rel(s: int) -> int:
        return (s - seat) % n

    values[min(state.round, ROUNDS) - 1] = 1
    values[off["phase"] - start + PHASES.index(state.phase)] = 1
    k = off["counts"] - start
    # (state.removed_unseen(), without listing the ★ cards twice)
    values[k] = len(state.deck) / 10
    values[k + 1] = (len(state.removed) - len(removed_rule)) / 10
    values[k + 2] = len(state.discard) / 10
    k = off["supply"] - start
    for c, v in enumerate(state.supply):
        values[k + c] = v / CUBES_PER_COLOUR
    values[off["master"] - start + rel(state.master)] = 1
    k = off["draft_order"] - start
    for i, s in enumerate(state.draft_order[:MAX_PLAYERS]):
        values[k + rel(s) * MAX_PLAYERS + i] = 1
    if state.phase is Phase.AUCTION:  # the view shows the auction in its phase only
        stakes, passed = off["auction_stakes"] - start, off["auction_passed"] - start
        for s in range(n):
            r = rel(s)
            values[stakes + r] = min(state.stakes[s], STAKE_CAP) / 10
            if state.passed[s]:
                values[passed + r] = 1
        if 0 <= state.bidder < n:
            values[off["auction_bidder"] - start + rel(state.bidder)] = 1
        values[off["auction_bid_open"] - start] = min(state.bid_open, STAKE_CAP) / 10
    out[start : off["cards"]] = values


def _write_cards(
    state: CafeState,
    stats: _DeckStats,
    removed_rule: list[str],
    layout: TensorLayout,
    out: Tensor,
) -> None:
    """`cards` and `display` (cleared first): where every card is, and the cards on offer."""
    off = layout.offsets
    base = off["cards"]
    out[base : off["p0.company"]] = 0
    cards = len(stats.ids)
    index = stats.index
    hands = [p.hand for p in state.players if p.hand is not None]
    placed = [pl.card for p in state.players for pl in p.area.cards]
    piles = (state.display, hands, placed, state.discard, removed_rule)
    idx: list[int] = []
    seen: list[int] = []
    for status, pile in enumerate(piles):
        row = base + status * cards
        for card in pile:
            i = index.get(card)
            if i is not None:
                idx.append(row + i)
                seen.append(i)
    _flush(out, idx, {})
    # unseen: every card of this game that is nowhere in sight (the deck and the random
    # removals together, worked out from what is visible, as a player would): the game's
    # cards, less those seen
    row = base + 5 * cards
    unseen = out[row : row + cards]
    unseen[:] = stats.in_game_row(state.rules)
    if seen:
        unseen[np.fromiter(seen, dtype=np.intp, count=len(seen))] = 0
    shown = [index[card] for card in state.display[:MAX_DISPLAY]]
    if shown:
        start = off["display"]
        table = out[start : start + MAX_DISPLAY * (1 + CARD_FEATURES)]
        rows = table.reshape(MAX_DISPLAY, 1 + CARD_FEATURES)[: len(shown)]
        rows[:, 0] = 1
        rows[:, 1:] = stats.card_table[shown]


def _score_values(state: CafeState, s: int) -> tuple[float, float, float]:
    """Seat `s`'s `score` field: the score as if the game ended now and its tie-breaks."""
    return _score_features(state.score(s))


def _score_features(score: ScoreBreakdown) -> tuple[float, float, float]:
    """The `score` field of a seat whose `state.score(seat)` is `score`."""
    tiebreak = (*score.tiebreak, 0, 0)[:2]
    return (min(max(score.total, 0), SCORE_CAP) / 10, tiebreak[0] / 10, tiebreak[1] / 10)


def _write_seat(
    player: PlayerState,
    score: tuple[float, float, float],
    frame: _Frame,
    stats: _DeckStats,
    o: _SeatOffsets,
    out: Tensor,
) -> None:
    """A seat's fields before its grid, at the offsets `o` (all of them written: company to
    pending_fill as one list, the hand, then score and area). `score` is `_score_values`."""
    head = [0.0] * (o.hand - o.company)
    if player.company in COMPANIES:
        head[COMPANIES.index(player.company)] = 1
    k = o.warehouse - o.company
    for c, v in enumerate(player.warehouse):
        head[k + c] = min(v, WAREHOUSE_CAP) / 4
    head[o.stage - o.company + int(player.stage)] = 1
    head[o.ap - o.company] = min(player.ap, MAX_AP) / MAX_AP
    k = o.open - o.company
    head[k + int(player.open_kind)] = 1
    for c in range(COLOURS):
        if player.open_colours >> c & 1:
            head[k + 4 + c] = 1
    k = o.pending_fill - o.company
    for c, v in enumerate(player.pending_fill):
        head[k + c] = v / 4
    out[o.company : o.hand] = head
    if player.hand is None:
        out[o.hand : o.score] = 0
    else:
        out[o.hand] = 1
        out[o.hand + 1 : o.score] = stats.card_table[stats.index[player.hand]]
    area = player.area
    height, width = frame.size
    out[o.score : o.cells] = (
        *score,
        min(len(area.cards), CARDS_CAP) / 9,
        area.cups / 8,
        area.ships / 8,
        min(height / GRID, 1.0),
        min(width / GRID, 1.0),
    )


def _write_slots(area: BusinessArea, stats: _DeckStats, layout: TensorLayout, out: Tensor) -> None:
    """The observer's `slots` table: frame coordinates and a copy of each slot's channels
    from `p0.grid`, which must be written already."""
    start, stop = layout.span("p0.grid")
    cells = out[start:stop].reshape(GRID * GRID, CH)
    start, stop = layout.span("slots")
    _fill_slots(_frame(area, stats), cells, out[start:stop].reshape(MAX_SLOTS, SLOT_FEATURES))


def _fill_slots(frame: _Frame, cells: Tensor, table: Tensor) -> None:
    """`table` (the slots, MAX_SLOTS x SLOT_FEATURES) from `cells` (p0.grid, GRID² x CH)."""
    k = len(frame.slot_cells)
    table[:k, :3] = frame.slot_static
    table[:k, 3:] = cells[frame.slot_cells]
    table[k:] = 0


# ==== kept per seat, rewritten where the state changed =========================================
def _grid_key(player: PlayerState, frame: _Frame) -> tuple[Any, ...]:
    """Everything a seat's grid is made of: the frame (one object per version of the cells),
    the cubes, the shops (immutable, replaced when a cube goes in), the open and pending
    cells. Equal keys, equal grids."""
    area = player.area
    return (frame, area.cubes.copy(), tuple(area.shops), _marks_key(player))


def _marks_key(player: PlayerState) -> tuple[Any, ...]:
    """What the seat's open and pending channels (`_C_OPEN_GROUP` on) are made of."""
    return (
        player.open_kind,
        player.open_group,
        player.open_cells,
        player.pending_fill,
        player.pending_cells,
        player.pending_supply,
        player.pending_deliver,
    )


def _seat_key(player: PlayerState, grid_key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Everything a seat's fields before its grid are made of (its score is a function of
    its area and warehouse)."""
    return (
        grid_key,
        player.company,
        tuple(player.warehouse),
        player.stage,
        player.hand,
        player.ap,
        player.open_colours,
    )


class _Kept:
    """One observer seat's tensor and the keys of what is written in it."""

    __slots__ = (
        "cards",
        "cells",
        "constants",
        "grids",
        "layout",
        "out",
        "removed",
        "seat",
        "seats",
        "table",
    )

    def __init__(self, layout: TensorLayout, constants: tuple[Any, ...], n: int, seat: int) -> None:
        self.layout = layout
        self.seat = seat
        self.constants = constants
        self.out: Tensor = np.zeros(layout.size, dtype=np.float32)
        # the full layout: p0's grid and the observer's slots table, views of `out` (the
        # compact layout has neither: the slots tables are the seats' own fields)
        self.cells: Tensor | None = None
        self.table: Tensor | None = None
        if "slots" in layout.offsets:
            start, stop = layout.span("p0.grid")
            self.cells = self.out[start:stop].reshape(GRID * GRID, CH)
            start, stop = layout.span("slots")
            self.table = self.out[start:stop].reshape(MAX_SLOTS, SLOT_FEATURES)
        self.cards: tuple[Any, ...] | None = None
        self.removed: tuple[tuple[str, ...], list[str]] = ((), [])  # removed, by rule
        self.grids: list[tuple[Any, ...] | None] = [None] * n  # per absolute seat
        self.seats: list[tuple[Any, ...] | None] = [None] * n

    def fill_slots(self, frame: _Frame, rows: list[int] | None = None) -> None:
        """The full layout's `slots` table from the kept `p0.grid`: whole, or only `rows`."""
        cells, table = self.cells, self.table
        assert cells is not None and table is not None  # the full layout only
        if rows is None:
            _fill_slots(frame, cells, table)
        else:
            table[rows, 3:] = cells[frame.slot_cells[rows]]


class Observer:
    """The observation tensors of one stream of states (an environment's games), kept per
    seat and brought up to date: each part of the tensor (the public header, the cards, each
    seat's fields, each seat's grid, the slots) is rewritten only when what it is made of
    differs from what was written last (compared by value: `_grid_key`, `_seat_key`), so an
    action that changes one seat's area rewrites that area's frame only. `observe(state,
    seat)` equals `observation_tensor(state, seat)`, the from-scratch reference, for any
    sequence of states (tests/rl/test_incremental.py checks it after every step of random
    games); it returns a new array each call (the kept one is not handed out).

    `compact=True` keeps the compact layout's tensors (`observation_layout`): each seat's
    slots table instead of its grid, rewritten the same way (whole when a card was placed,
    else only the cells whose cubes, shop or marks changed), equal to
    `observation_tensor(state, seat, compact=True)`."""

    def __init__(self, game: CafeGame, compact: bool = False) -> None:
        self.game = game
        self.compact = bool(compact)
        self.stats = _stats(game.deck)
        self._kept: dict[int, _Kept] = {}
        #: per seat: the key of its score, the `score` field, `state.score(seat)`
        self._scores: dict[
            int, tuple[tuple[Any, ...], tuple[float, float, float], ScoreBreakdown]
        ] = {}

    def _score(self, state: CafeState, s: int, grid: tuple[Any, ...]) -> tuple[float, float, float]:
        """`_score_values(state, s)`, computed again only when what the score is made of (the
        area's cells and cubes, the warehouse, the rules) differs from the last time."""
        key = (grid[:3], tuple(state.players[s].warehouse), state.rules)
        known = self._scores.get(s)
        if known is None or known[0] != key:
            score = state.score(s)
            known = self._scores[s] = (key, _score_features(score), score)
        return known[1]

    def score(self, state: CafeState, seat: int) -> ScoreBreakdown:
        """`state.score(seat)` (the score as if the game ended now), taken from the last
        observation when what it is made of has not changed since (CafeSoloEnv's
        `info["score"]` right after its observation)."""
        _check_seat(state, seat)
        player = state.players[seat]
        stats = self.stats if state.game is self.game else _stats(state.game.deck)
        self._score(state, seat, _grid_key(player, _frame(player.area, stats)))
        return self._scores[seat][2]

    def observe(self, state: CafeState, seat: int) -> Tensor:
        """What `seat` may know about `state` (the same values as `observation_tensor`)."""
        return self.write(state, seat).copy()

    def write(self, state: CafeState, seat: int) -> Tensor:
        """Bring `seat`'s kept tensor up to date and return it (not a copy: the next call
        changes it)."""
        _check_seat(state, seat)
        n = state.num_players
        stats = self.stats if state.game is self.game else _stats(state.game.deck)
        compact = self.compact
        layout = observation_layout(state.game, n, compact)
        constants = (n, stats, state.rules)
        kept = self._kept.get(seat)
        if kept is None or kept.layout is not layout or kept.constants != constants:
            kept = self._kept[seat] = _Kept(layout, constants, n, seat)
            _write_constants(state, seat, layout, kept.out)
        out = kept.out
        removed = tuple(state.removed)
        if removed != kept.removed[0]:
            kept.removed = (removed, state.removed_by_rule())
        removed_rule = kept.removed[1]
        _write_public(state, seat, removed_rule, layout, out)
        players = state.players
        frames = [_frame(p.area, stats) for p in players]
        cards = (
            tuple(state.display),
            tuple(p.hand for p in players),
            tuple(frames),
            tuple(state.discard),
            removed,
        )
        # the other seats' kept tensors of the same layout: a part whose key equals one of
        # theirs is copied from it (the cards, a seat's grid or fields are the same values
        # for every observer, at the observer's offsets) instead of being computed again
        others = [
            k
            for k in self._kept.values()
            if k is not kept and k.layout is layout and k.constants == constants
        ]
        if cards != kept.cards:
            donor = next((k for k in others if k.cards == cards), None)
            if donor is None:
                _write_cards(state, stats, removed_rule, layout, out)
            else:
                start, stop = layout.offsets["cards"], layout.offsets["p0.company"]
                out[start:stop] = donor.out[start:stop]
            kept.cards = cards
        seat_offsets = _seat_offsets(layout, n)
        size = MAX_SLOTS * SLOT_FEATURES if compact else GRID * GRID * CH
        for s, player in enumerate(players):
            o = seat_offsets[(s - seat) % n]
            frame = frames[s]
            grid = _grid_key(player, frame)
            before = kept.grids[s]
            if grid != before:
                observer = s == seat and not compact  # the full layout's `slots` follow
                donor = next((k for k in others if k.grids[s] == grid), None)
                if donor is not None:  # the same grid written for another observer
                    d = seat_offsets[(s - donor.seat) % n].cells
                    out[o.cells : o.cells + size] = donor.out[d : d + size]
                    if observer:
                        kept.fill_slots(frame)
                elif before is None or before[0] is not frame:  # a card placed: all of it
                    out[o.cells : o.cells + size] = 0
                    if compact:
                        table = out[o.cells : o.cells + size].reshape(MAX_SLOTS, SLOT_FEATURES)
                        table[: len(frame.slot_cells), :3] = frame.slot_static
                        _area_cells(player.area, player, stats, frame, frame.slots(), o.cells, out)
                    else:
                        _area_cells(player.area, player, stats, frame, frame.grid, o.cells, out)
                    if observer:
                        kept.fill_slots(frame)
                else:  # cubes, shops or open cells: the cells they are on
                    cells = frame.slots() if compact else frame.grid
                    touched = _update_cells(before, grid, cells, stats, o.cells, out)
                    if observer and touched:
                        at, slot_at = frame.grid.at, frame.slot_at
                        slots = [slot_at[at[pos] // CH] for pos in touched]
                        kept.fill_slots(frame, slots)
                kept.grids[s] = grid
            fields = _seat_key(player, grid)
            if fields != kept.seats[s]:
                donor = next((k for k in others if k.seats[s] == fields), None)
                if donor is None:
                    _write_seat(player, self._score(state, s, grid), frame, stats, o, out)
                else:
                    their = seat_offsets[(s - donor.seat) % n]
                    out[o.company : o.cells] = donor.out[their.company : their.cells]
                kept.seats[s] = fields
        return out


class _Cells(NamedTuple):
    """A frame's visible cells as written in one layout's field: `p{k}.grid` (the full
    layout; a cell's channel c at (row * GRID + col) * CH + c) or `p{k}.slots` (the compact
    one; at slot * SLOT_FEATURES + 3 + c). Offsets are relative to the field's first value.

    `at` is each visible cell's channel 0; `ones` are set to 1 (the printed kind and
    colour, a shop's anchor, an unavailable shop), `value_at` get the frame's `values` (cake
    and shop VP); `shops` lists the available shops (index, offsets of their cells), whose
    needs and completion follow their cubes."""

    at: dict[Pos, int]
    ones: npt.NDArray[np.intp]
    value_at: npt.NDArray[np.intp]
    shops: list[tuple[int, list[int]]]


class _Frame:
    """What an area's frame shows that changes only when a card is placed (cached per
    version of the cells in `BusinessArea.memo`): `grid`, the cells as the full layout's
    `p{k}.grid` addresses them, `slots()` as the compact layout's `p{k}.slots` does (made
    on first use), `values` (cake and shop VP, at each one's `value_at`); `size` is the
    area's (height, width), `origin` the frame's top-left cell."""

    __slots__ = (
        "_slots",
        "grid",
        "origin",
        "size",
        "slot_at",
        "slot_cells",
        "slot_static",
        "values",
    )

    def __init__(self, area: BusinessArea, stats: _DeckStats) -> None:
        top = area.top
        rows = [r for r, _ in top]
        cols = [c for _, c in top]
        low, left = min(rows), min(cols)
        self.size = (max(rows) - low + 1, max(cols) - left + 1)  # of the area
        r0, c0 = low - MARGIN, left - MARGIN
        if max(self.size) > GRID - MARGIN or len(top) > MAX_SLOTS:
            area_origin(area)  # the errors for an area too large
            area_slots(area)
        self.origin = (r0, c0)
        slots = sorted(top)
        slot_cells = [(r - r0) * GRID + c - c0 for r, c in slots]
        k = len(slot_cells)
        #: the slots' cells (row * GRID + col), each cell's slot, their first three features
        self.slot_cells = np.fromiter(slot_cells, dtype=np.intp, count=k)
        self.slot_at = {cell: i for i, cell in enumerate(slot_cells)}
        # present, frame row / 20, frame col / 20 (divided as float64, as Python divides)
        static = np.empty((k, 3), dtype=np.float32)
        static[:, 0] = 1
        static[:, 1] = self.slot_cells // GRID / (GRID - 1)
        static[:, 2] = self.slot_cells % GRID / (GRID - 1)
        self.slot_static = static
        shop_at, shops = area.shop_at, area.shops
        ones: list[int] = []
        value_at: list[int] = []
        values: list[float] = []
        cells: dict[int, list[int]] = {}
        cell_at: dict[Pos, int] = {}
        for pos, cell in area.top.items():
            b = ((pos[0] - r0) * GRID + pos[1] - c0) * CH
            cell_at[pos] = b
            ones.append(b + int(cell.kind))
            if cell.colour >= 0:
                ones.append(b + _C_COLOUR + cell.colour)
            if cell.value:
                value_at.append(b + _C_CAKE)
                values.append(cell.value / stats.max_cake)
            sid = shop_at.get(pos)
            if sid is not None:
                shop = shops[sid]
                if shop.available:
                    cells.setdefault(sid, []).append(b)
                else:
                    ones.append(b + _C_UNAVAILABLE)
                value_at.append(b + _C_VP)
                values.append(shop.spec.vp / stats.max_vp)
                if pos == shop.cells[0]:
                    ones.append(b + _C_ANCHOR)
        self.grid = _Cells(
            cell_at,
            np.fromiter(ones, dtype=np.intp, count=len(ones)),
            np.fromiter(value_at, dtype=np.intp, count=len(value_at)),
            sorted(cells.items()),
        )
        self.values = np.fromiter(values, dtype=np.float32, count=len(values))
        self._slots: _Cells | None = None

    def slots(self) -> _Cells:
        """The cells as the compact layout's `p{k}.slots` table addresses them."""
        made = self._slots
        if made is None:
            slot_of = np.zeros(GRID * GRID, dtype=np.intp)
            slot_of[self.slot_cells] = np.arange(len(self.slot_cells)) * SLOT_FEATURES + 3

            def move(offsets: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
                moved: npt.NDArray[np.intp] = slot_of[offsets // CH] + offsets % CH
                return moved

            grid = self.grid
            made = self._slots = _Cells(
                {pos: int(slot_of[b // CH]) for pos, b in grid.at.items()},
                move(grid.ones),
                move(grid.value_at),
                [
                    (sid, move(np.array(offsets, dtype=np.intp)).tolist())
                    for sid, offsets in grid.shops
                ],
            )
        return made


def _frame(area: BusinessArea, stats: _DeckStats) -> _Frame:
    key = ("observation frame", id(stats))
    frame: _Frame | None = area.memo.get(key)
    if frame is None:
        frame = area.memo[key] = _Frame(area, stats)
    return frame


def _area_cells(
    area: BusinessArea,
    player: PlayerState,
    stats: _DeckStats,
    frame: _Frame,
    cells: _Cells,
    base: int,
    out: Tensor,
) -> None:
    """The frame's cells into a cleared field at `base` (addressed by `cells`, the frame's
    `grid` or `slots()`): the placement-constant part, then the cubes, the shops' needs and
    the seat's open and pending cells (`_area_dynamic`)."""
    out[cells.ones + base] = 1
    out[cells.value_at + base] = frame.values
    _area_dynamic(area, player, stats, cells, base, out)


def _area_dynamic(
    area: BusinessArea,
    player: PlayerState,
    stats: _DeckStats,
    cells: _Cells,
    base: int,
    out: Tensor,
) -> None:
    """The channels of the frame's cells that follow the cubes (cubes, shop needs and
    completion) and the seat's open and pending actions, which must be cleared."""
    idx: list[int] = []
    sparse: dict[int, float] = {}
    cell_at = cells.at
    for pos, (colour, n) in area.cubes.items():
        sparse[base + cell_at[pos] + _C_CUBES + colour] = n / 4
    shops = area.shops
    max_req = stats.max_req
    for sid, offsets in cells.shops:
        shop = shops[sid]
        requires, cubes = shop.spec.requires, shop.cubes
        for b in offsets:
            b += base
            for colour in range(COLOURS):
                need = requires[colour] - cubes[colour]
                if need > 0:
                    sparse[b + _C_NEEDS + colour] = need / max_req
            if cubes == requires:
                idx.append(b + _C_COMPLETE)

    idx += _marks(cells, base, _marks_key(player))
    _flush(out, idx, sparse)


def _marks(
    cells: _Cells, base: int, marks: tuple[Any, ...], touched: set[Pos] | None = None
) -> list[int]:
    """The flat offsets of the open and pending channels set to 1 (`marks` is a
    `_marks_key`), for the field at `base`; their cells are added to `touched`. Only visible
    cells are marked (the open group may hold covered cells; the pending cells are always
    visible: they hold cubes, or will)."""
    open_kind, open_group, open_cells, pending_fill, pending_cells, supply, deliver = marks
    at = cells.at
    marked: list[tuple[Pos, int]] = []
    if open_kind is not OpenKind.NONE:
        marked.extend((pos, _C_OPEN_GROUP) for pos in open_group)
        marked.extend((pos, _C_OPEN_CELL) for pos in open_cells)
    if any(pending_fill):
        marked.extend((pos, _C_PENDING) for pos in pending_cells)
    marked.extend((pos, _C_SUPPLY) for pos in supply)
    if deliver is not None:
        marked.append((deliver, _C_DELIVER))
    idx: list[int] = []
    for pos, channel in marked:
        b = at.get(pos)
        if b is not None:
            idx.append(base + b + channel)
            if touched is not None:
                touched.add(pos)
    return idx


def _update_cells(
    before: tuple[Any, ...],
    grid: tuple[Any, ...],
    cells: _Cells,
    stats: _DeckStats,
    base: int,
    out: Tensor,
) -> set[Pos]:
    """Bring a field (addressed by `cells`) written for the `_grid_key` `before` up to
    `grid` (the same frame): only the cells whose cubes differ, the cells of the shops
    replaced (a cube went in) and the cells marked by the open and pending actions before or
    now are rewritten. Returns those cells' positions."""
    touched: set[Pos] = set()
    cell_at = cells.at
    old, new = before[1], grid[1]
    if old != new:
        for pos in old.keys() | new.keys():
            cube = new.get(pos)
            if cube != old.get(pos):
                b = base + cell_at[pos] + _C_CUBES
                out[b : b + COLOURS] = 0
                if cube is not None:
                    out[b + cube[0]] = cube[1] / 4
                touched.add(pos)
    old, new = before[2], grid[2]
    if old != new:
        max_req = stats.max_req
        for sid, offsets in cells.shops:
            shop = new[sid]
            if shop is old[sid]:
                continue
            requires, cubes = shop.spec.requires, shop.cubes
            needs = [max(requires[c] - cubes[c], 0) / max_req for c in range(COLOURS)]
            complete = cubes == requires
            for b in offsets:
                out[base + b + _C_NEEDS : base + b + _C_NEEDS + COLOURS] = needs
                out[base + b + _C_COMPLETE] = complete
            touched.update(pos for pos in shop.cells if pos in cell_at)
    old, new = before[3], grid[3]
    if old != new:
        gone = _marks(cells, base, old, touched)
        marked = _marks(cells, base, new, touched)
        out[gone] = 0
        out[marked] = 1
    return touched


__all__ = [
    "CARD_FEATURES",
    "CELL_CHANNELS",
    "GRID",
    "MARGIN",
    "MAX_DISPLAY",
    "MAX_SLOTS",
    "Observer",
    "area_origin",
    "area_slots",
    "expand_observation",
    "observation_layout",
    "observation_shape",
    "observation_tensor",
]
