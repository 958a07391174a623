"""Coffee Rush observation tensors for learning agents (docs/rl.md has the layout).

`observation_tensor(state, seat)` is a flat float32 vector of what `seat` may know: it reads
only the public parts of the state, the same information as `state.view(seat)`. The deck
appears only as its size and as its contents (every card not in sight: a player can count
them), never in its order, so the tensor never changes under
`state.resample_hidden(seat, rng)`. `observation_shape(game, n, options)` is its shape and
`observation_layout(game, n)` names every slice.

Counts are raw (small integers); each slice declares its upper bound (the lower bound is 0).
Seats are relative: `p0` is the observing seat, `p1` the next seat in turn order, ...

This module needs numpy (the `rl` extra); nothing else in the game imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from coffeetable.core.errors import DataError
from coffeetable.core.layout import Field, TensorLayout
from coffeetable.games.coffee_rush.actions import UPGRADES
from coffeetable.games.coffee_rush.cards import COUNTERS, CUPS, SQUARES, CardSet
from coffeetable.games.coffee_rush.state import FREE_STEPS, Phase, RushState

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.game import CoffeeRushGame

Tensor = npt.NDArray[np.float32]

MAX_PLAYERS = 4
MEEPLES = 2  #: meeples per seat at most (2 with two players, else 1)
PHASES = (Phase.PLACE, Phase.SETUP_POUR, Phase.TURN, Phase.OVER)
PILES = ("discarded", "removed", "unseen")

_LAYOUTS: dict[tuple[str, int], TensorLayout] = {}


def observation_layout(game: CoffeeRushGame, num_players: int) -> TensorLayout:
    """The named slices of the observation for `num_players` (the same with or without the
    less-luck option)."""
    cards = game.cards
    key = (cards.digest, num_players)
    layout = _LAYOUTS.get(key)
    if layout is not None:
        return layout
    if not 2 <= num_players <= MAX_PLAYERS:
        raise DataError(f"Coffee Rush is played by 2 to 4 players, not {num_players}")
    ings = len(cards.ingredients)
    box = tuple(float(n) for n in cards.box)
    copies = tuple(float(d.copies) for d in cards.drinks)
    total = float(cards.total_cards)
    fields = [
        Field("players", (MAX_PLAYERS,), 1, "number of players, one-hot (index n-1)"),
        Field("options", (1,), 1, "the less-luck set-up"),
        Field("seat", (MAX_PLAYERS,), 1, "the observing seat's number (0 starts), one-hot"),
        Field("phase", (4,), 1, "place, setup_pour, turn, over; one-hot"),
        Field("to_move", (MAX_PLAYERS,), 1, "the seat to act, relative, one-hot"),
        Field("closed", (1,), 1, "the start-player token is CLOSED (last round)"),
        Field("deck_size", (1,), total, "cards in the deck"),
        Field("supply", (ings,), box, "ingredient tokens in the supply (box order)"),
        Field("rush_supply", (1,), float(cards.rush), "rush tokens in the supply"),
        Field("board", (SQUARES, ings), 1, "the ingredient of each square a1..d4, one-hot"),
        Field("specialties", (ings,), 1, "the specialty ingredients"),
        Field("turn_stage", (3,), 1, "turn phase: move, pour, serve; one-hot"),
        Field("turn_moving", (SQUARES,), 1, "turn phase: the moving meeple's square"),
        Field(
            "turn_steps",
            (1,),
            float(FREE_STEPS + cards.rush),
            "turn phase: steps taken this turn",
        ),
        Field("hand", (ings,), box, "tokens taken and not poured yet (turn, setup_pour)"),
        Field("turn_served", (1,), float(CUPS), "turn phase: orders served this turn"),
        Field("turn_upgraded", (1,), 1, "turn phase: an upgrade was taken this turn"),
        Field(
            "piles",
            (len(PILES), len(copies)),
            copies,
            "cards per drink (file order): discarded for upgrades, removed (less luck), "
            "unseen (the deck's contents: every card not in sight)",
        ),
    ]
    for i in range(num_players):
        p = f"p{i}."
        fields += [
            Field(p + "meeples", (MEEPLES, SQUARES), 1, "each meeple's square, one-hot"),
            Field(p + "cups", (CUPS, ings), box, "tokens in cups 1-3"),
            Field(p + "counters", (COUNTERS, len(copies)), copies, "orders on counters 1-4"),
            Field(p + "piles", (2,), total, "completed orders, penalty cards"),
            Field(p + "upgrades", (len(UPGRADES),), 1, "upgrades taken: " + ", ".join(UPGRADES)),
            Field(p + "rush", (1,), float(cards.rush), "rush tokens"),
        ]
    layout = _LAYOUTS[key] = TensorLayout(fields)
    return layout


def observation_shape(
    game: CoffeeRushGame, num_players: int, options: Mapping[str, Any] | None = None
) -> tuple[int]:
    """The shape of `observation_tensor` (one flat vector; the same for both set-ups)."""
    if options is not None:
        game.normalize_options(options)
    return (observation_layout(game, num_players).size,)


_TEMPLATES: dict[tuple[int, int, bool], Tensor] = {}
_SEAT_FIELDS = ("meeples", "cups", "counters", "piles", "upgrades", "rush")
_SEAT_OFFSETS: dict[int, list[tuple[int, ...]]] = {}


def _seat_offsets(layout: TensorLayout, n: int) -> list[tuple[int, ...]]:
    """Per relative seat, where its fields (`_SEAT_FIELDS`) start (cached per layout, which
    lives as long as the program: `_LAYOUTS`)."""
    known = _SEAT_OFFSETS.get(id(layout))
    if known is None:
        off = layout.offsets
        known = _SEAT_OFFSETS[id(layout)] = [
            tuple(off[f"p{k}.{name}"] for name in _SEAT_FIELDS) for k in range(n)
        ]
    return known


def _template(state: RushState, layout: TensorLayout, seat: int) -> Tensor:
    """The values fixed for a game and a seat (players, options, seat, board, specialties),
    the rest zero; cached per layout (cards and players), seat and set-up. Copied, never
    handed out."""
    less_luck = bool(state.options.get("less_luck"))
    key = (id(layout), seat, less_luck)
    out = _TEMPLATES.get(key)
    if out is None:
        cards: CardSet = state.cards
        off = layout.offsets
        ings = len(cards.ingredients)
        out = np.zeros(layout.size, dtype=np.float32)
        out[off["players"] + state.num_players - 1] = 1
        out[off["options"]] = less_luck
        out[off["seat"] + seat] = 1
        start = off["board"]
        for sq, ing in enumerate(cards.board):
            out[start + sq * ings + ing] = 1
        start = off["specialties"]
        for ing in cards.specialties:
            out[start + ing] = 1
        _TEMPLATES[key] = out
    return out


def observation_tensor(state: RushState, seat: int) -> Tensor:
    """What `seat` may know about `state`, as a flat float32 vector (docs/rl.md)."""
    n = state.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise DataError(f"there is no seat {seat!r} in a {n}-player game")
    cards: CardSet = state.cards
    layout = observation_layout(state.game, n)
    off = layout.offsets
    out = _template(state, layout, seat).copy()
    ings = len(cards.ingredients)
    drinks = len(cards.drinks)

    def rel(s: int) -> int:
        return (s - seat) % n

    out[off["phase"] + PHASES.index(state.phase)] = 1
    if state.phase is not Phase.OVER:
        out[off["to_move"] + rel(state.current)] = 1
    out[off["closed"]] = state.closed
    out[off["deck_size"]] = len(state.deck)
    start = off["supply"]
    out[start : start + ings] = state.supply
    out[off["rush_supply"]] = state.rush_supply
    if state.phase is Phase.TURN:
        out[off["turn_stage"] + int(state.stage)] = 1
        if state.meeple >= 0:
            out[off["turn_moving"] + state.meeples[state.current][state.meeple]] = 1
        out[off["turn_steps"]] = state.steps
        out[off["turn_served"]] = state.served
        out[off["turn_upgraded"]] = state.upgraded
    if state.phase in (Phase.TURN, Phase.SETUP_POUR):
        start = off["hand"]
        out[start : start + ings] = state.hand

    # piles; unseen = every card not in sight (the deck's contents, not its order)
    start = off["piles"]
    unseen = [d.copies for d in cards.drinks]
    for d in state.discarded:
        out[start + d] += 1
    for d in state.removed:
        out[start + drinks + d] += 1
    visible = [state.discarded, state.removed]
    for s in range(n):
        visible += [*state.counters[s], state.completed[s], state.penalties[s]]
    for pile in visible:
        for d in pile:
            unseen[d] -= 1
    out[start + 2 * drinks : start + 3 * drinks] = unseen

    seat_offsets = _seat_offsets(layout, n)
    for s in range(n):
        meeples, cups, counters, piles, upgrades, rush = seat_offsets[rel(s)]
        start = meeples
        for m, sq in enumerate(state.meeples[s][:MEEPLES]):
            if sq >= 0:
                out[start + m * SQUARES + sq] = 1
        start = cups
        for c, cup in enumerate(state.cups[s]):
            out[start + c * ings : start + (c + 1) * ings] = cup
        start = counters
        for k, counter in enumerate(state.counters[s]):
            for d in counter:
                out[start + k * drinks + d] += 1
        out[piles] = len(state.completed[s])
        out[piles + 1] = len(state.penalties[s])
        bits = state.upgrades[s]
        for k in range(len(UPGRADES)):
            if bits >> k & 1:
                out[upgrades + k] = 1
        out[rush] = state.rush[s]
    return out


# ==== kept per seat, rewritten where the state changed =========================================
#: what seat `s`'s block (`p{k}.meeples` to `p{k}.rush`) is made of: its meeples, cups,
#: counters, completed orders, penalty cards, upgrades and rush tokens. `_seat_parts` gives
#: them live (the state's own lists, to compare), `_seat_copy` as copies (to keep); a live
#: tuple equals a kept one exactly when the block would be written the same.
_MEEPLES, _CUPS, _COUNTERS, _COMPLETED, _PENALTIES, _UPGRADES, _RUSH = range(7)


def _seat_parts(state: RushState, s: int) -> tuple[Any, ...]:
    """Seat `s`'s parts, the state's own lists (not copies: compare them at once)."""
    return (
        state.meeples[s],
        state.cups[s],
        state.counters[s],
        state.completed[s],
        state.penalties[s],
        state.upgrades[s],
        state.rush[s],
    )


def _seat_copy(parts: tuple[Any, ...]) -> tuple[Any, ...]:
    """`_seat_parts` copied, to keep (cups are tuples, replaced when they change)."""
    meeples, cups, counters, completed, penalties, upgrades, rush = parts
    return (
        list(meeples),
        list(cups),
        [list(c) for c in counters],
        list(completed),
        list(penalties),
        upgrades,
        rush,
    )


def _seat_block(
    state: RushState,
    s: int,
    start: int,
    drinks: int,
    out: Tensor,
    old: tuple[Any, ...] | None,
    new: tuple[Any, ...],
) -> bool:
    """Bring seat `s`'s block (`p{k}.meeples` to `p{k}.rush`, starting at `start`), written
    for the parts `old` (a `_seat_copy`; None: never), up to `new` (its `_seat_parts`):
    each part that differs (meeples; cups; counters and piles; upgrades and rush) is
    rewritten in `out` from the state, the same values as `observation_tensor`. True when the seat's cards
    in sight (counters, completed, penalties) changed."""
    k = start + MEEPLES * SQUARES
    if old is None or old[_MEEPLES] != new[_MEEPLES]:
        out[start:k] = 0
        for m, sq in enumerate(state.meeples[s][:MEEPLES]):
            if sq >= 0:
                out[start + m * SQUARES + sq] = 1.0
    cups = state.cups[s]
    stop = k + CUPS * len(cups[0])
    if old is None or old[_CUPS] != new[_CUPS]:
        out[k:stop] = [v for cup in cups for v in cup]
    k = stop
    stop = k + COUNTERS * drinks
    cards = old is None or old[_COUNTERS:_UPGRADES] != new[_COUNTERS:_UPGRADES]
    if cards:
        out[k:stop] = 0
        for counter in state.counters[s]:
            for d in counter:
                out[k + d] += 1
            k += drinks
        out[stop] = len(state.completed[s])
        out[stop + 1] = len(state.penalties[s])
    k = stop + 2
    if old is None or old[_UPGRADES:] != new[_UPGRADES:]:
        bits = state.upgrades[s]
        out[k : k + len(UPGRADES) + 1] = [
            *(bits >> u & 1 for u in range(len(UPGRADES))),
            state.rush[s],
        ]
    return cards


def _piles(state: RushState, cards: CardSet) -> list[int]:
    """The `piles` field: cards per drink discarded, removed, unseen."""
    drinks = len(cards.drinks)
    discarded = [0] * drinks
    for d in state.discarded:
        discarded[d] += 1
    removed = [0] * drinks
    for d in state.removed:
        removed[d] += 1
    unseen = [d.copies for d in cards.drinks]
    for pile in (state.discarded, state.removed):
        for d in pile:
            unseen[d] -= 1
    for s in range(state.num_players):
        for pile in (*state.counters[s], state.completed[s], state.penalties[s]):
            for d in pile:
                unseen[d] -= 1
    return discarded + removed + unseen


class _Offsets:
    """The layout's offsets that `Observer.write` needs, looked up once per layout."""

    __slots__ = (
        "hand",
        "phase",
        "piles",
        "piles_end",
        "seats",
        "turn_moving",
        "turn_served",
        "turn_stage",
        "turn_steps",
        "turn_upgraded",
    )

    def __init__(self, layout: TensorLayout, n: int, drinks: int) -> None:
        off = layout.offsets
        self.phase: int = off["phase"]
        self.turn_stage: int = off["turn_stage"]
        self.turn_moving: int = off["turn_moving"]
        self.turn_steps: int = off["turn_steps"]
        self.hand: int = off["hand"]
        self.turn_served: int = off["turn_served"]
        self.turn_upgraded: int = off["turn_upgraded"]
        self.piles: int = off["piles"]
        self.piles_end: int = off["piles"] + len(PILES) * drinks
        #: per relative seat, where its block starts
        self.seats: list[int] = [offsets[0] for offsets in _seat_offsets(layout, n)]


class _Kept:
    """One observer seat's tensor and copies of what is written in it: per absolute seat
    its parts (`_seat_copy`), and the discarded and removed piles."""

    __slots__ = ("offsets", "out", "piles", "seats", "template")

    def __init__(self, template: Tensor, layout: TensorLayout, n: int, drinks: int) -> None:
        self.template = template
        self.offsets = _Offsets(layout, n, drinks)
        self.out: Tensor = template.copy()
        self.seats: list[tuple[Any, ...] | None] = [None] * n
        self.piles: tuple[list[int], list[int]] | None = None


class Observer:
    """The observation tensors of one stream of states (an environment's games), kept per
    observing seat: the values fixed for a game and seat (`_template`) are written once,
    the public header at every call (three slices, each one assignment of a list, and the
    turn's few values), each seat's block only where what it is made of (`_seat_parts`)
    differs from the copy kept when it was written last, and the `piles` field only when
    a pile or a seat's cards changed, so a step rewrites the header and a part of the acting
    seat's block. `observe(state, seat)` equals `observation_tensor(state, seat)`, the
    from-scratch reference, for any sequence of states (tests/rl/test_incremental.py); it
    returns a new array each call."""

    def __init__(self, game: CoffeeRushGame) -> None:
        self.game = game
        self._kept: dict[int, _Kept] = {}

    def observe(self, state: RushState, seat: int) -> Tensor:
        """What `seat` may know about `state` (the same values as `observation_tensor`)."""
        return self.write(state, seat).copy()

    def write(self, state: RushState, seat: int) -> Tensor:
        """Bring `seat`'s kept tensor up to date and return it (not a copy: the next call
        changes it)."""
        n = state.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise DataError(f"there is no seat {seat!r} in a {n}-player game")
        layout = observation_layout(state.game, n)
        template = _template(state, layout, seat)
        kept = self._kept.get(seat)
        if kept is None or kept.template is not template:
            kept = self._kept[seat] = _Kept(template, layout, n, len(state.cards.drinks))
        out = kept.out
        off = kept.offsets
        phase = state.phase
        # phase .. rush_supply
        head = [0.0] * 8
        head[PHASES.index(phase)] = 1.0
        if phase is not Phase.OVER:
            head[4 + (state.current - seat) % n] = 1.0
        head.append(state.closed)
        head.append(len(state.deck))
        head += state.supply
        head.append(state.rush_supply)
        start = off.phase
        out[start : start + len(head)] = head
        # turn_stage .. hand: cleared, then the turn's values
        start = off.turn_stage
        out[start : off.piles] = 0
        if phase is Phase.TURN:
            out[start + int(state.stage)] = 1.0
            if state.meeple >= 0:
                out[off.turn_moving + state.meeples[state.current][state.meeple]] = 1.0
            out[off.turn_steps] = state.steps
            out[off.turn_served] = state.served
            out[off.turn_upgraded] = state.upgraded
        if phase is Phase.TURN or phase is Phase.SETUP_POUR:
            k = off.hand
            out[k : k + len(state.hand)] = state.hand
        seats = kept.seats
        drinks = len(state.cards.drinks)
        in_sight = False
        for s in range(n):
            parts = _seat_parts(state, s)
            old = seats[s]
            if old != parts:
                start = off.seats[(s - seat) % n]
                in_sight |= _seat_block(state, s, start, drinks, out, old, parts)
                seats[s] = _seat_copy(parts)
        piles = kept.piles
        if in_sight or piles is None or piles[0] != state.discarded or piles[1] != state.removed:
            out[off.piles : off.piles_end] = _piles(state, state.cards)
            kept.piles = (list(state.discarded), list(state.removed))
        return out


__all__ = ["Observer", "observation_layout", "observation_shape", "observation_tensor"]
