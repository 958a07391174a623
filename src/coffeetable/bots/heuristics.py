"""Position evaluation for the greedy bot and for ISMCTS leaves (docs/bots.md).

`value(state, seat)` estimates, in the game's own points, what the seat's position is worth
at the end of the game: the score so far plus the expected worth of work in progress. It reads
only what the seat may see (the public state; hidden cards are never looked at), so it can be
called on any determinization. `rewards(state)` turns the values of all seats into numbers in
[0, 1] for search: the final result when the game is over, otherwise a logistic of the lead.
"""

from __future__ import annotations

import functools
import math
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from coffeetable.core.game import Action, State
from coffeetable.games.cafe.area import FOOTPRINTS, BusinessArea
from coffeetable.games.cafe.deck import CellKind
from coffeetable.games.cafe.state import (
    MAX_AP,
    ROUNDS,
    CafeState,
    OpenKind,
    Phase,
    PlayerState,
    Stage,
    cake_bonus,
)

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.state import RushState

Evaluator = Callable[[State, int], float]


# ==== Café =====================================================================================
# The estimate is "score now + what the work in progress and the area should still bring",
# in victory points. Every weight below is a share of a point.
# chance that a cube on a bean / dry / roast cell is delivered. Bean 0.4 (was 0.55): cubes
# early in the pipeline were overvalued; 0.4 gains 2.1 points over 200 solo deals (docs/bots.md)
CAFE_STAGE = (0.4, 0.75, 0.9)
CAFE_CUBES_PER_CELL_ROUND = 0.35  # cubes a bean cell yields per round still to come
# an action point (a cup) in each round still to come, beyond the above. Cups predict the
# final score better than anything else at every stage of a solo game; at 0.35 the bots
# shunned the cup cards that cost a warehouse cube (docs/bots.md, "What worked")
CAFE_AP_PER_ROUND = 1.2
CAFE_MISSING_COLOUR = 0.3  # per colour with no cube in the warehouse
# an area with no dry or no roast cell: the share of its pipeline's, production's and
# action points' worth that a later card may still rescue (docs/bots.md, "Blocked areas":
# any share from 0 to 0.6 played alike; none at all once no card is to come)
CAFE_BLOCKED = 0.3
_BEAN, _DRY, _ROAST = CellKind.BEAN, CellKind.DRY, CellKind.ROAST
_SUPPLY, _BONUS = CellKind.SUPPLY, CellKind.BONUS
_SHIP, _ESPRESSO = CellKind.SHIP, CellKind.ESPRESSO
_ACT, _DONE, _WAIT = Stage.ACT, Stage.DONE, Stage.WAIT
_FIRST = operator.itemgetter(0)


def cafe_value(state: State, seat: int) -> float:
    """Café estimate, per colour: the cubes the seat will have to spend (in the pipeline,
    weighted by how far along they are, plus what its bean cells should still produce)
    go first to its shops under way (a shop counts in proportion to how much of it they
    cover, squared, so nearly complete shops count most) and the rest to the warehouse,
    scored by the warehouse rule on the result."""
    assert isinstance(state, CafeState)
    if state.phase is Phase.OVER:
        return float(state.score(seat).total)
    if _cafe_done(state, seat):
        # its score is final, as once the game is over. Estimated, it read about a point
        # high, so the seats that act before the last one in the last round chose their
        # last turn by the estimate and the last seat by its score
        return float(state.score(seat).total)
    player = state.players[seat]
    if player.hand is None:
        return _cafe_area_value(state, player)
    # a card in hand (drafted, not placed yet) is worth what its best placement makes of the
    # area: valued flat, it made the draft blind whenever the seat's turn ended at its pick
    area = player.area
    key = (
        player.hand,
        state.round,
        player.stage,
        player.ap,
        player.pending_fill,
        tuple(player.warehouse),
        area.layout(),
        tuple(sorted(area.cubes.items())),
        tuple(shop.cubes for shop in area.shops),
    )
    known = _HAND_VALUES.get(key)
    if known is not None:
        return known
    if len(_HAND_VALUES) >= _HAND_VALUES_MAX:
        _HAND_VALUES.clear()
    _HAND_VALUES[key] = best = _best_placement_value(state, player)
    return best


def _cafe_done(state: CafeState, seat: int) -> bool:
    """Café: `seat` has ended its turn of the last round while other seats still act. Its
    score is then final: the areas are the seats' own, and the supply, the only thing they
    share (Ruling A1), is no longer drawn on by it."""
    return (
        state.phase is Phase.TURNS and state.round >= ROUNDS and state.players[seat].stage is _DONE
    )


def score_is_final(state: State, seat: int) -> bool:
    """Whether nothing can change `seat`'s score any more: the game is over, or (Café) the
    seat has ended its last turn while others still act (`value` is then its score)."""
    if state.is_over():
        return True
    return isinstance(state, CafeState) and _cafe_done(state, seat)


# A search meets the same area with the same card in hand many times (every determinization
# of a draft), and finding the best placement takes a few milliseconds: the results are
# remembered, a few MB at most
_HAND_VALUES: dict[tuple[object, ...], float] = {}
_HAND_VALUES_MAX = 1 << 13


def _best_placement_value(state: CafeState, player: PlayerState) -> float:
    assert player.hand is not None
    card = state.card(player.hand)
    area = player.area
    top, cubes, shop_at = area.top, area.cubes, area.shop_at
    # Without cake cells the evaluation does not depend on where cells lie, only on which
    # are visible: placements that cover alike cells (kind and colour, cubes, shop) are
    # worth the same, and one of them is evaluated. Cakes score by adjacency.
    alike = not area.cells_of(CellKind.CAKE) and not any(
        cell.kind is CellKind.CAKE for cells in card.cells for cell in cells
    )
    seen: set[frozenset[tuple[object, int]]] = set()
    best = -math.inf
    for row, col, rotation in area.legal_placements(card):
        if alike:
            covered = [
                (cell, cubes.get(pos), shop_at.get(pos, -1))
                for pos in ((row + dr, col + dc) for dr, dc in FOOTPRINTS[rotation])
                if (cell := top.get(pos)) is not None
            ]
            kind = frozenset(Counter(covered).items())
            if kind in seen:
                continue
            seen.add(kind)
        placed = player.copy()
        _, to_warehouse = placed.area.place(card, row, col, rotation)
        for colour, n in enumerate(to_warehouse):
            placed.warehouse[colour] += n
        placed.hand = None
        best = max(best, _cafe_area_value(state, placed, card_placed=True))
    if best == -math.inf:  # nowhere to put it: the card is discarded
        placed = player.copy()
        placed.hand = None
        return _cafe_area_value(state, placed, card_placed=True)
    return best


def _cafe_area_value(state: CafeState, player: PlayerState, card_placed: bool = False) -> float:
    """`cafe_value` of a seat with no card in hand, from its player state (`card_placed`: the
    seat's card of this round was just placed, in a trial of where to put it). This runs for
    every state a search looks at, so it is written for speed: one pass over the cubes, what
    depends on the area's cells alone (or on them and the shops' cubes) cached in the area's
    `memo` until its next placement, the four colours written out instead of looped over
    (the sums are made in the same order as the plain reading of the estimate, so every
    value is the same to the last bit: tests/bots/test_heuristics_speed.py)."""
    area = player.area
    top = area.top
    memo = area.memo
    cells = memo.get(_CELLS)
    if cells is None:
        cells = memo[_CELLS] = _area_cells(area)
    no_dry, no_roast, bean_cells, has_cake = cells
    # cubes per colour on the pipeline's cells, and the dry cells that hold cubes
    bean = [0, 0, 0, 0]
    dry = [0, 0, 0, 0]
    roast = [0, 0, 0, 0]
    rare: dict[CellKind, list[int]] | None = None  # supply, bonus, ship, espresso (by kind)
    dry_full = 0
    for pos, (colour, n) in area.cubes.items():
        kind = top[pos].kind
        if kind is _BEAN:
            bean[colour] += n
        elif kind is _DRY:
            dry[colour] += n
            dry_full += 1
        elif kind is _ROAST:
            roast[colour] += n
        else:
            if rare is None:
                rare = {}
            counts = rare.get(kind)
            if counts is None:
                counts = rare[kind] = [0, 0, 0, 0]
            counts[colour] += n
    b0, b1, b2, b3 = bean
    d0, d1, d2, d3 = dry
    r0, r1, r2, r3 = roast
    future = ROUNDS - state.round  # whole rounds still to come after this one
    ap = area.cups
    if ap > MAX_AP:
        ap = MAX_AP
    # the actions the work in progress still needs against the action points left: roast
    # cubes need one Deliver (all roast cells at once); dry cubes a Roast per filled dry
    # cell first; bean cubes a Dry per colour before that. Cubes that cannot get through in
    # time are worth less (each stage shares what is left after the later stages).
    stage = player.stage
    acting = stage is _ACT
    # this round's action points: those left while acting, none once the seat has ended
    # its turn (unspent points are lost), a full round's before it has begun acting. In
    # 2-4 player games the seats that finish first are evaluated here, before the round
    # ends: counting their unspent points as still to come made ending early look free
    # and, in the last round, kept cubes in the pipeline instead of delivering them
    this_round = player.ap if acting else 0 if stage is _DONE else ap
    available = this_round + ap * future
    # an open Deliver takes more roast cells at no further cost
    roast_in_time = (
        1.0
        if available >= 1
        or (acting and (player.pending_deliver is not None or player.open_kind is OpenKind.DELIVER))
        else 0.0
    )
    dry_in_time = max(0.0, min(1.0, (available - 1) / dry_full)) if dry_full else 1.0
    bean_colours = (b0 > 0) + (b1 > 0) + (b2 > 0) + (b3 > 0)
    bean_in_time = (
        max(0.0, min(1.0, (available - 2 - dry_full) / bean_colours)) if bean_colours else 1.0
    )
    # an area with no dry cell (or no roast cell) in sight moves no cube past that stage
    # until a later card brings one: its pipeline, its production and its action points
    # are worth only a share of their usual worth, and nothing once no card is to come.
    # Without this the last round's placement covered the last dry cell of an area full
    # of bean cubes, and in 2-player games areas were left that way for rounds
    blocked = 1.0
    if no_dry or no_roast:
        # this round's card is still to come only to a seat that has not drafted yet
        blocked = CAFE_BLOCKED if future or (stage is _WAIT and not card_placed) else 0.0
        bean_in_time *= blocked
        if not no_dry:  # the dry cubes are stuck only without a roast cell
            dry_in_time *= blocked
    # cubes expected to come out of the pipeline, per colour
    b_share, d_share, r_share = CAFE_STAGE
    e0 = b_share * b0 * bean_in_time + d_share * d0 * dry_in_time + r_share * r0 * roast_in_time
    e1 = b_share * b1 * bean_in_time + d_share * d1 * dry_in_time + r_share * r1 * roast_in_time
    e2 = b_share * b2 * bean_in_time + d_share * d2 * dry_in_time + r_share * r2 * roast_in_time
    e3 = b_share * b3 * bean_in_time + d_share * d3 * dry_in_time + r_share * r3 * roast_in_time
    # cubes on supply and bonus cells, and scarce cubes held to place, count as bean cubes
    # (in that order, as the plain sum adds them)
    extra: list[Sequence[int]] = (
        [] if rare is None else [rare[k] for k in (_SUPPLY, _BONUS) if k in rare]
    )
    fill = player.pending_fill
    if fill != _NO_FILL:
        extra.append(fill)
    for n0, n1, n2, n3 in extra:
        if n0:
            e0 += b_share * n0
        if n1:
            e1 += b_share * n1
        if n2:
            e2 += b_share * n2
        if n3:
            e3 += b_share * n3
    if future:
        # a full cycle (produce, dry, roast, deliver) takes about 4 actions
        cycles = min(1.0, ap / 4)
        step = CAFE_CUBES_PER_CELL_ROUND * future * cycles * blocked
        c0, c1, c2, c3 = bean_cells
        # one cell at a time, as the plain sum adds them
        for _ in range(c0):
            e0 += step
        for _ in range(c1):
            e1 += step
        for _ in range(c2):
            e2 += step
        for _ in range(c3):
            e3 += step
    # shops under way take the cubes they need first: the most VP per missing cube first
    shop_cubes = tuple([shop.cubes for shop in area.shops])
    shops = memo.get(shop_cubes)
    if shops is None:
        shops = memo[shop_cubes] = _shops_under_way(area)
    shops_now, under_way = shops
    shops_potential = 0.0
    for vp, m0, m1, m2, m3, total in under_way:
        # each colour: the cubes the shop takes of those to spare (the fewer of the two)
        t0 = m0 if m0 < e0 else e0
        t1 = m1 if m1 < e1 else e1
        t2 = m2 if m2 < e2 else e2
        t3 = m3 if m3 < e3 else e3
        share = (t0 + t1 + t2 + t3) / total
        shops_potential += vp * share * share
        e0, e1, e2, e3 = e0 - t0 * share, e1 - t1 * share, e2 - t2 * share, e3 - t3 * share
    # the warehouse as it scores: bid cubes on ships and espresso cubes count in it
    if rare is not None and (_SHIP in rare or _ESPRESSO in rare):
        warehouse, _ = state._final_warehouse(player, rare)
    else:
        warehouse = player.warehouse
    w0, w1, w2, w3 = warehouse
    levels = sorted((w0 + e0, w1 + e1, w2 + e2, w3 + e3))
    warehouse_potential = 2 * levels[0] + levels[1] + 0.1 * (levels[2] + levels[3])
    # a colour missing from the warehouse is a risk the smooth estimate understates: the
    # lowest colour scores double, and cup cards are paid from the warehouse
    missing = (w0 == 0) + (w1 == 0) + (w2 == 0) + (w3 == 0)
    if missing:
        warehouse_potential -= CAFE_MISSING_COLOUR * missing
    value = (
        (cake_bonus(area) if has_cake else 0) + shops_now + shops_potential + warehouse_potential
    )
    value += CAFE_AP_PER_ROUND * ap * future * blocked
    return value


_CELLS = "heuristics.cells"  # the area's memo key of `_area_cells`
_NO_FILL = (0, 0, 0, 0)


def _area_cells(area: BusinessArea) -> tuple[bool, bool, tuple[int, int, int, int], bool]:
    """What `_cafe_area_value` reads of the area's cells alone: no dry cell in sight, no
    roast cell, the bean cells' colours, and cake cells or not."""
    kinds = area.kinds()
    return (
        _DRY not in kinds,
        _ROAST not in kinds,
        area.cell_colours(_BEAN),
        CellKind.CAKE in kinds,
    )


def _shops_under_way(area: BusinessArea) -> tuple[int, list[tuple[int, int, int, int, int, int]]]:
    """The VP of the shops complete, and the shops under way that need cubes as (VP, the
    cubes missing per colour, their total), the most VP per missing cube first (equal
    ratios in the area's order). It depends on the cells (which shops are available) and
    the shops' cubes only: `_cafe_area_value` keeps it in the area's memo by those cubes."""
    shops_now = 0
    under_way: list[tuple[float, int, int, int, int, int, int]] = []
    for shop in area.shops:
        if shop.available:
            spec = shop.spec
            need, have = spec.requires, shop.cubes
            if have == need:
                shops_now += spec.vp
            else:
                m0, m1, m2, m3 = (
                    need[0] - have[0],
                    need[1] - have[1],
                    need[2] - have[2],
                    need[3] - have[3],
                )
                total = m0 + m1 + m2 + m3
                under_way.append((-spec.vp / max(1, total), spec.vp, m0, m1, m2, m3, total))
    under_way.sort(key=_FIRST)  # stable: equal ratios keep the area's order
    return shops_now, [
        (vp, m0, m1, m2, m3, total) for _, vp, m0, m1, m2, m3, total in under_way if total
    ]


# ==== Coffee Rush ==============================================================================
RUSH_TOKEN = 0.3  # a rush token: an extra step later, and the second tie-break
RUSH_RISK = (0.0, 0.15, 0.35, 0.7)  # an order with no cup toward it, by counter (1-4)
RUSH_JUNK = 0.12  # per token in a cup that fits no order: it must be emptied
RUSH_UPGRADE_USE = 1.5  # an upgrade's effect, over a whole game


def rush_value(state: State, seat: int) -> float:
    from coffeetable.games.coffee_rush.state import Phase, RushState

    assert isinstance(state, RushState)
    completed = len(state.completed[seat])
    ups = bin(state.upgrades[seat]).count("1")
    value = float(completed + 2 * ups - len(state.penalties[seat]))
    if state.phase is Phase.OVER:
        return value
    cards = state.cards
    total = max(1, cards.total_cards)
    left = (len(state.deck) + 8) / total  # share of the game still to come, roughly
    value += RUSH_UPGRADE_USE * ups * min(1.0, left)
    value += RUSH_TOKEN * state.rush[seat]
    orders = rush_orders(state, seat)
    return value + _cups_and_hand_value(tuple(state.cups[seat]), tuple(state.hand), orders)


def rush_orders(state: RushState, seat: int) -> tuple[tuple[tuple[int, ...], bool, int], ...]:
    """The seat's orders as (recipe, Special Menu, counter), counter 1 first: what
    `_cups_value` weighs its cups against."""
    drinks = state.cards.drinks
    counters = state.counters[seat]
    return tuple((drinks[d].recipe, drinks[d].special, k) for k in range(4) for d in counters[k])


# Searches evaluate the same cups and hand against the same orders many times over (every
# iteration of ISMCTS ends in an evaluation), so their worth is remembered: the three caches
# below hold about 10 MB when full
@functools.lru_cache(maxsize=1 << 13)
def _cups_and_hand_value(
    cups: tuple[tuple[int, ...], ...],
    hand: tuple[int, ...],
    orders: tuple[tuple[tuple[int, ...], bool, int], ...],
) -> float:
    current = _cups_value(cups, orders)
    if not any(hand):
        return current
    # tokens in hand (during a turn) are worth what the best pouring makes of them: pour
    # them one by one where they add most (unpoured ones go back to the supply)
    work = [list(c) for c in cups]
    for ingredient, count in enumerate(hand):
        for _ in range(count):
            best_gain, best_cup = 0.0, -1
            for c in range(len(work)):
                work[c][ingredient] += 1
                gain = _cups_value(tuple(map(tuple, work)), orders) - current
                work[c][ingredient] -= 1
                if gain > best_gain:
                    best_gain, best_cup = gain, c
            if best_cup >= 0:
                work[best_cup][ingredient] += 1
                current += best_gain
    return current


def cups_value(
    cups: tuple[tuple[int, ...], ...], orders: tuple[tuple[tuple[int, ...], bool, int], ...]
) -> float:
    """What a seat's cups are worth toward its orders, given as (recipe, Special Menu,
    counter): the part of `rush_value` that the cups make (learned.rush_features)."""
    return _cups_value(cups, orders)


@functools.lru_cache(maxsize=1 << 12)
def _fits_an_order(cup: tuple[int, ...], recipes: tuple[tuple[int, ...], ...]) -> bool:
    return any(all(map(operator.le, cup, recipe)) for recipe in recipes)


@functools.lru_cache(maxsize=1 << 13)
def _cups_value(
    cups: tuple[tuple[int, ...], ...], orders: tuple[tuple[tuple[int, ...], bool, int], ...]
) -> float:
    """What the cups are worth toward the orders, given as (recipe, Special Menu, counter)
    (each order fed by one cup at most), minus the risk of orders nobody is working on and
    the cost of junk in the cups."""
    value = 0.0
    served: set[int] = set()
    for cup in sorted(cups, key=sum, reverse=True):
        size = sum(cup)
        if not size:
            continue
        best, best_index = -1.0, -1
        for index, (recipe, special, counter) in enumerate(orders):
            if index in served:
                continue
            if all(map(operator.le, cup, recipe)):  # the cup fits the recipe
                need = sum(recipe) - size
                # a full cup is worth most of the order; one short, less; an order about to
                # fall (counter 4) matters more
                worth = (0.85 if need == 0 else 0.6 / need) * (1 + 0.1 * counter)
                if special:
                    worth += 0.1
                if worth > best:
                    best, best_index = worth, index
        if best_index >= 0:
            served.add(best_index)
            value += best
        else:
            value -= RUSH_JUNK * size
    for index, (_, _, counter) in enumerate(orders):
        if index not in served:
            value -= RUSH_RISK[counter]
    return value


def rush_rollout_action(state: State, seat: int, actions: list[Action]) -> Action:
    """A cheap rule for finishing a Coffee Rush turn in search: stop moving; serve whatever
    can be served; pour a token where it keeps a cup on the way to one of the seat's orders
    (a cup already started first); otherwise end the turn."""
    from coffeetable.games.coffee_rush.actions import End, Pour, Serve, Stop
    from coffeetable.games.coffee_rush.state import RushState

    assert isinstance(state, RushState)
    pours: list[Pour] = []
    for action in actions:
        if isinstance(action, Stop | Serve):
            return action
        if isinstance(action, Pour):
            pours.append(action)
    if pours:
        cards = state.cards
        recipes = tuple(cards.drinks[d].recipe for k in state.counters[seat] for d in k)
        cups = state.cups[seat]
        best: tuple[int, Pour] | None = None
        for pour in pours:
            i = cards.ingredients.index(pour.ingredient)
            cup = list(cups[pour.cup])
            cup[i] += 1
            if _fits_an_order(tuple(cup), recipes):
                key = sum(cup)
                if best is None or key > best[0]:
                    best = (key, pour)
        if best is not None:
            return best[1]
    for action in actions:
        if isinstance(action, End):
            return action
    return actions[0]


RolloutPolicy = Callable[[State, int, list[Action]], Action]
#: per-game rules that finish the current turn quickly inside a search (none: evaluate as is)
ROLLOUT_POLICIES: dict[str, RolloutPolicy] = {"coffee-rush": rush_rollout_action}

EVALUATORS: dict[str, Evaluator] = {"cafe": cafe_value, "coffee-rush": rush_value}
#: games in which a seat's turn, searched on several determinizations of one position
#: (`resample_hidden`), goes alike on each until it ends: each position reached before the
#: turn is over offers the same steps and has the same `value` and the same transpositions
#: on every one. Coffee Rush: only the deck's order is hidden; a turn draws onto the seat's
#: own counter only as it ends (2 players), and a served order's draws go onto other seats'
#: counters, which `rush_value` does not read (it reads the deck by its size). So a greedy
#: beam on several determinizations is one beam whose complete turns are judged on each
#: (greedy.best_turns_sampled); tests/bots/test_bots.py holds it to separate beams.
SAME_WITHIN_TURN = frozenset({"coffee-rush"})
#: the scale of a meaningful lead, per game (points)
SCALES = {"cafe": 5.0, "coffee-rush": 2.5}
# Café solo: a logistic of the score around a middling result, steep enough that one point
# matters to the search (a linear score / 50 left arms about 0.02 apart: noise to UCB)
SOLO_CENTRE, SOLO_SPREAD = 20.0, 4.0


def value(state: State, seat: int) -> float:
    return EVALUATORS[state.game.info.name](state, seat)


def rewards(state: State, evaluate: Evaluator | None = None) -> list[float]:
    """Each seat's reward in [0, 1]: solo, a logistic of the (estimated) score around 20
    points, 4 points wide; otherwise the win
    share once the game is over, and before that a logistic of the lead over the best
    opponent, on the game's scale. Scores are estimated by `evaluate` (a learned value)
    if given, else by `value`."""
    name = state.game.info.name
    n = state.num_players
    if state.is_over():
        scores = [s.total for s in state.scores()]
        if n == 1:
            return [_logistic((scores[0] - SOLO_CENTRE) / SOLO_SPREAD)]
        winners = state.winners()
        scale = SCALES.get(name, 5.0)
        out = []
        for i in range(n):
            lead = scores[i] - max(scores[j] for j in range(n) if j != i)
            win = (1.0 / len(winners)) if i in winners else 0.0
            out.append(0.7 * win + 0.3 * _logistic(lead / scale))
        return out
    values = [(evaluate or value)(state, i) for i in range(n)]
    if n == 1:
        return [_logistic((values[0] - SOLO_CENTRE) / SOLO_SPREAD)]
    scale = SCALES.get(name, 5.0)
    return [
        _logistic((values[i] - max(values[j] for j in range(n) if j != i)) / scale)
        for i in range(n)
    ]


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))
