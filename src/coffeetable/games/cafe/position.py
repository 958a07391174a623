"""Café position JSON: a full state that a person can read and write by hand.

The format is documented in docs/records.md. `state_to_json` writes every field;
`state_from_json` accepts the optional ones missing (see the doc) and checks everything,
raising DataError that names the field at fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from coffeetable.core.errors import DataError
from coffeetable.core.record import POSITION_FORMAT
from coffeetable.core.rng import Rng
from coffeetable.games.cafe.area import COORD_LIMIT, AreaShop, BusinessArea, Placement, Pos
from coffeetable.games.cafe.deck import (
    BEAN_LIKE,
    COLOURS,
    COMPANIES,
    ESPRESSO_CARDS,
    PLAN_CARDS,
    STAR_CARDS,
    CellKind,
    CellSpec,
    ShopSpec,
    format_colours,
    parse_colours,
)
from coffeetable.games.cafe.state import (
    CUBES_PER_COLOUR,
    MAX_AP,
    ROUNDS,
    CafeState,
    OpenKind,
    Phase,
    PlayerState,
    Stage,
)

if TYPE_CHECKING:
    from coffeetable.games.cafe.game import CafeGame

_PHASES = {p.name.lower(): p for p in Phase}
_STAGES = {s.name.lower(): s for s in Stage}
_OPEN = {k.name.lower(): k for k in OpenKind if k is not OpenKind.NONE}


# ==== writing ==============================================================================
def _pos(pos: Pos) -> list[int]:
    return [pos[0], pos[1]]


def counts_to_json(counts: list[int]) -> dict[str, int]:
    """Cube counts per colour: {"Y": 1, "B": 0, "G": 2, "R": 0}."""
    return {COLOURS[c]: counts[c] for c in range(4)}


def state_to_json(state: CafeState) -> dict[str, Any]:
    return {
        "format": POSITION_FORMAT,
        "game": "cafe",
        "options": dict(state.options),
        "round": state.round,
        "phase": state.phase.name.lower(),
        "master": state.master,
        "display": list(state.display),
        "draft_order": list(state.draft_order),
        "deck": list(reversed(state.deck)),
        "removed": list(state.removed),
        "discard": list(state.discard),
        **({"auction": auction_to_json(state)} if state.phase is Phase.AUCTION else {}),
        "supply": counts_to_json(state.supply),
        "rng": f"{state.rng.state:#x}",  # a string: JSON readers may round big numbers
        "seats": [player_to_json(p) for p in state.players],
    }


def auction_to_json(state: CafeState) -> dict[str, Any]:
    """The auction in progress (advanced mode): stakes, passes, the bidder, the open bid."""
    return {
        "stakes": list(state.stakes),
        "passed": list(state.passed),
        "bidder": state.bidder,
        "bid_open": state.bid_open,
    }


def player_to_json(p: PlayerState, area: dict[str, Any] | None = None) -> dict[str, Any]:
    """One seat of a position. Everything in it is public, so views use it as it is.
    `area`: the JSON of the seat's area, made already (`area_to_json`, views)."""
    out: dict[str, Any] = {
        "company": p.company,
        "warehouse": counts_to_json(p.warehouse),
        "stage": p.stage.name.lower(),
        "hand": p.hand,
        "ap": p.ap,
        "area": area_to_json(p.area) if area is None else area,
    }
    if p.open_kind is not OpenKind.NONE:
        out["open"] = {
            "kind": p.open_kind.name.lower(),
            "group": [_pos(q) for q in p.open_group],
            "colours": "".join(COLOURS[c] for c in range(4) if p.open_colours >> c & 1),
            "cells": [_pos(q) for q in sorted(p.open_cells)],
        }
    pending: dict[str, Any] = {}
    if any(p.pending_fill):
        pending["fill"] = format_colours(p.pending_fill)
        pending["cells"] = [_pos(q) for q in p.pending_cells]
    if p.pending_supply:
        pending["supply"] = [_pos(q) for q in p.pending_supply]
    if p.pending_deliver is not None:
        pending["deliver"] = _pos(p.pending_deliver)
    if pending:
        out["pending"] = pending
    return out


def area_to_json(area: BusinessArea) -> dict[str, Any]:
    """A business area's JSON (a seat's `area` in positions and views): its cards, cells
    (with their cubes) and shops."""
    cells = []
    cubes = area.cubes
    for pos, static in _cells_json(area):
        entry = static.copy()
        entry["at"] = [pos[0], pos[1]]  # a list of the caller's own, like the entry
        held = cubes.get(pos)
        if held is not None:
            entry["cubes"] = COLOURS[held[0]] * held[1]
        cells.append(entry)
    return {
        "cards": [{**entry, "at": entry["at"].copy()} for entry in _cards_json(area)],
        "cells": cells,
        "shops": _shops_json(area),
    }


def _cells_json(area: BusinessArea) -> list[tuple[Pos, dict[str, Any]]]:
    """Each visible cell, in order, with the part of its JSON that only the cells decide
    (all but its cubes): made once per version of the cells and kept in `area.memo`, which
    a placement renews. Callers copy the entries and their `at` lists (the output is the
    caller's to change, at any depth: the copies of a start area share this memo)."""
    made: list[tuple[Pos, dict[str, Any]]] | None = area.memo.get("position cells")
    if made is None:
        made = []
        top, shop_at = area.top, area.shop_at
        for pos in sorted(top):
            cell = top[pos]
            entry: dict[str, Any] = {"at": _pos(pos)}
            if cell.kind is CellKind.SHOP:
                entry["cell"] = "shop"
                entry["shop"] = shop_at[pos]
            else:
                entry["cell"] = cell.token
            made.append((pos, entry))
        area.memo["position cells"] = made
    return made


def _cards_json(area: BusinessArea) -> list[dict[str, Any]]:
    """The placed cards' JSON, kept in `area.memo` for this `layout()` (renewed by a
    placement). Callers copy the entries and their `at` lists."""
    layout = area.layout()
    known = area.memo.get("position cards")
    if known is None or known[0] is not layout:
        known = area.memo["position cards"] = (
            layout,
            [{"card": card, "at": [row, col], "rot": rot * 90} for card, row, col, rot in layout],
        )
    cards: list[dict[str, Any]] = known[1]
    return cards


def _shops_json(area: BusinessArea) -> list[dict[str, Any]]:
    return [_shop_json(area, index, shop) for index, shop in enumerate(area.shops)]


def _shop_json(area: BusinessArea, index: int, shop: AreaShop) -> dict[str, Any]:
    """The JSON of the area's shop `index`, the caller's own."""
    printed: dict[int, tuple[Any, dict[str, Any]]] = area.memo.setdefault("position shops", {})
    spec = shop.spec
    known = printed.get(index)
    if known is None or known[0] is not spec:
        # the printed part, which the spec alone decides (kept until the next placement)
        known = printed[index] = (
            spec,
            {
                "city": spec.city,
                "year": spec.year,
                "requires": format_colours(spec.requires),
                "vp": spec.vp,
            },
        )
    s = known[1].copy()
    s["cells"] = [[q[0], q[1]] for q in shop.cells]
    s["cubes"] = format_colours(shop.cubes)
    if spec.name:
        s["name"] = spec.name
    if shop.card:
        s["card"] = shop.card
    return s


#: how many cells with cubes, and shops, `shared_area_view` keeps per version of the cells
SHARED_KEPT = 256


def shared_area_view(area: BusinessArea) -> dict[str, Any]:
    """The area's JSON in a view nobody changes (`State.view(seat, shared=True)`):
    `area_to_json` with each shop's `available` (which views add), equal and encoded the
    same, built from entries kept in `area.memo` (renewed by a placement) and shared with
    the other views of this version of the cells: a cell without cubes is its kept entry, a
    cell with cubes one kept per its cubes, the cards the kept list, a shop one kept per its
    cubes and availability (its spec, cells and card are the placement's). Nobody may change
    it, at any depth."""
    memo = area.memo
    cubed: dict[tuple[Pos, tuple[int, int]], dict[str, Any]] = memo.setdefault(
        "view cubed cells", {}
    )
    cubes = area.cubes
    cells = []
    for pos, static in _cells_json(area):
        held = cubes.get(pos)
        if held is None:
            cells.append(static)
            continue
        entry = cubed.get((pos, held))
        if entry is None:
            if len(cubed) >= SHARED_KEPT:
                cubed.clear()
            entry = cubed[pos, held] = {**static, "cubes": COLOURS[held[0]] * held[1]}
        cells.append(entry)
    kept_shops: dict[tuple[int, tuple[int, int, int, int], bool], dict[str, Any]] = memo.setdefault(
        "view shops", {}
    )
    shops = []
    for index, shop in enumerate(area.shops):
        key = (index, shop.cubes, shop.available)
        made = kept_shops.get(key)
        if made is None:
            if len(kept_shops) >= SHARED_KEPT:
                kept_shops.clear()
            made = kept_shops[key] = _shop_json(area, index, shop)
            made["available"] = shop.available
        shops.append(made)
    return {"cards": _cards_json(area), "cells": cells, "shops": shops}


# ==== reading ==============================================================================
class _Reader:
    """Typed access to a JSON object with error messages that name the field."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, Mapping):
            raise DataError(f"{where} must be a JSON object")
        self.data = data
        self.where = where

    def get(
        self,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = ...,
        *,
        allow_none: bool = False,
    ) -> Any:
        if key not in self.data:
            if default is ...:
                raise DataError(f"{self.where}: missing field {key!r}")
            return default
        value = self.data[key]
        if value is None and allow_none:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int,))):
            raise DataError(f"{self.where}: field {key!r} has the wrong type ({value!r})")
        return value

    def check_keys(self, allowed: set[str]) -> None:
        extra = set(self.data) - allowed
        if extra:
            raise DataError(f"{self.where}: unknown field(s) {', '.join(sorted(extra))}")


def _read_pos(value: Any, where: str) -> Pos:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise DataError(f"{where}: a cell position is [row, col], got {value!r}")
    if not all(-COORD_LIMIT <= v < COORD_LIMIT for v in value):
        raise DataError(
            f"{where}: position {value} is outside the grid (-{COORD_LIMIT}..{COORD_LIMIT - 1})"
        )
    return value[0], value[1]


def _read_counts(value: Any, where: str) -> tuple[int, int, int, int]:
    """Cube counts: {"Y": 1, "B": 0, ...} (missing colours are 0) or letters like "YYB"."""
    if isinstance(value, str):
        return _read_colours(value, where)
    if (
        not isinstance(value, Mapping)
        or not set(value) <= set(COLOURS)
        or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value.values()
        )
    ):
        raise DataError(f'{where}: cube counts are written as {{"Y": 1, "B": 0, "G": 2, "R": 0}}')
    counts = [value.get(c, 0) for c in COLOURS]
    return counts[0], counts[1], counts[2], counts[3]


def _read_rng(value: int | str) -> int:
    if isinstance(value, int):
        return value
    try:
        return int(value, 0)
    except ValueError:
        raise DataError(
            f"position: 'rng' must be an integer or a string like \"0x1f\", got {value!r}"
        ) from None


def _check_deck_card(state: CafeState, card_id: Any, where: str) -> None:
    """Only cards this game's draw pile can hold: plan cards, and espresso and promo cards
    when the options add them."""
    deck = state.game.deck
    if not isinstance(card_id, str) or not deck.has_card(card_id):
        raise DataError(f"{where} names an unknown card {card_id!r}")
    kind = deck.card(card_id).kind
    allowed = (
        kind == "plan"
        or (kind == "espresso" and state.rules.espresso)
        or (kind == "promo" and card_id in state.rules.promos)
    )
    if not allowed:
        raise DataError(f"{where}: {card_id} is a {kind} card, not in play with these options")


def _read_auction(state: CafeState, raw: Any) -> None:
    a = _Reader({} if raw is None else raw, "position.auction")
    a.check_keys({"stakes", "passed", "bidder", "bid_open"})
    n = state.num_players
    stakes = a.get("stakes", list, [0] * n)
    passed = a.get("passed", list, [False] * n)
    if len(stakes) != n or not all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in stakes
    ):
        raise DataError(f"position.auction: 'stakes' must list {n} non-negative integers")
    if len(passed) != n or not all(isinstance(x, bool) for x in passed):
        raise DataError(f"position.auction: 'passed' must list {n} true/false values")
    bidder = a.get("bidder", int, state.master)
    bid_open = a.get("bid_open", int, 0)
    if not 0 <= bidder < n or passed[bidder]:
        raise DataError("position.auction: 'bidder' must be a seat that has not passed")
    if not 0 <= bid_open <= stakes[bidder]:
        raise DataError("position.auction: 'bid_open' counts cubes of the bidder's stake")
    state.stakes, state.passed, state.bidder, state.bid_open = (
        list(stakes),
        list(passed),
        bidder,
        bid_open,
    )


def _read_colours(text: Any, where: str) -> tuple[int, int, int, int]:
    if not isinstance(text, str):
        raise DataError(f'{where}: cubes are written as colour letters such as "YYB", got {text!r}')
    try:
        return parse_colours(text)
    except DataError as exc:
        raise DataError(f"{where}: {exc}") from None


def state_from_json(game: CafeGame, data: dict[str, Any]) -> CafeState:
    top = _Reader(data, "position")
    top.check_keys(
        {
            "format",
            "game",
            "options",
            "round",
            "phase",
            "master",
            "display",
            "draft_order",
            "deck",
            "removed",
            "discard",
            "supply",
            "rng",
            "seats",
            "auction",
        }
    )
    if top.get("format", str) != POSITION_FORMAT or top.get("game", str) != "cafe":
        raise DataError(f"not a Café position: need format {POSITION_FORMAT!r} and game 'cafe'")
    options = game.normalize_options(top.get("options", dict, {}))
    raw_seats = top.get("seats", list)
    n = len(raw_seats)
    if not 1 <= n <= 4:
        raise DataError(f"position: 'seats' must list 1 to 4 players, not {n}")
    state = CafeState(game, n, options)
    try:
        state.rules.check_players(n)
    except DataError as exc:
        raise DataError(f"position: {exc}") from None
    state.round = top.get("round", int)
    if not 1 <= state.round <= ROUNDS:
        raise DataError(f"position: 'round' must be 1 to {ROUNDS}")
    phase_name = top.get("phase", str)
    if phase_name not in _PHASES:
        raise DataError(f"position: 'phase' must be one of {', '.join(_PHASES)}")
    state.phase = _PHASES[phase_name]
    state.master = top.get("master", int)
    if not 0 <= state.master < n:
        raise DataError(f"position: 'master' must be a seat number 0..{n - 1}")
    state.rng = Rng(_read_rng(top.get("rng", (int, str), 0)))

    def card_list(key: str) -> list[str]:
        ids = top.get(key, list, [])
        for card_id in ids:
            _check_deck_card(state, card_id, f"position: {key!r}")
        return list(ids)

    state.display = card_list("display")
    state.removed = card_list("removed")
    state.discard = card_list("discard")
    state.draft_order = top.get("draft_order", list, [])
    if not all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n for s in state.draft_order
    ) or len(set(state.draft_order)) != len(state.draft_order):
        raise DataError(f"position: 'draft_order' must list distinct seat numbers 0..{n - 1}")
    state.players = [_read_player(state, raw, f"seats[{i}]") for i, raw in enumerate(raw_seats)]
    if state.phase is Phase.AUCTION:
        _read_auction(state, data.get("auction"))
    elif "auction" in data:
        raise DataError("position: 'auction' belongs to the auction phase only")

    on_cells = state.cubes_on_cells()
    state.supply = [CUBES_PER_COLOUR - on_cells[c] for c in range(4)]
    for c in range(4):
        if state.supply[c] < 0:
            raise DataError(
                f"position: more than {CUBES_PER_COLOUR} {COLOURS[c]} cubes lie on cells"
            )
    if "supply" in data and list(_read_counts(data["supply"], "position 'supply'")) != state.supply:
        raise DataError(
            "position: 'supply' does not match the cubes on cells (it must be 35 per colour minus "
            f"the cubes on cells: {counts_to_json(state.supply)}); omit it to have it computed"
        )

    if "deck" in data:
        state.deck = list(reversed(card_list("deck")))
    else:
        _deal_unseen_deck(state)
    _check_consistency(state)
    return state


def _read_player(state: CafeState, raw: Any, where: str) -> PlayerState:
    game = state.game
    r = _Reader(raw, where)
    r.check_keys({"company", "warehouse", "stage", "hand", "ap", "area", "open", "pending"})
    company = r.get("company", str, "")
    if company and company not in COMPANIES:
        raise DataError(f"{where}: 'company' must be one of {', '.join(COMPANIES)}")
    area = _read_area(game, r.get("area", dict), f"{where}.area")
    warehouse = list(_read_counts(r.get("warehouse", (dict, str), "YBGR"), f"{where}.warehouse"))
    stage_name = r.get("stage", str, "wait")
    if stage_name not in _STAGES:
        raise DataError(f"{where}: 'stage' must be one of {', '.join(_STAGES)}")
    player = PlayerState(company=company, area=area, warehouse=warehouse, stage=_STAGES[stage_name])
    hand = r.get("hand", str, None, allow_none=True)
    if hand is not None:
        _check_deck_card(state, hand, f"{where}: 'hand'")
    player.hand = hand
    player.ap = r.get("ap", int, 0)
    limit = min(MAX_AP, area.cups)
    if not 0 <= player.ap <= limit:
        raise DataError(f"{where}: 'ap' must be 0..{limit} (visible cups, at most {MAX_AP})")
    if "open" in raw:
        o = _Reader(raw["open"], f"{where}.open")
        o.check_keys({"kind", "group", "colours", "cells"})
        kind = o.get("kind", str)
        if kind not in _OPEN:
            raise DataError(f"{where}.open: 'kind' must be one of {', '.join(_OPEN)}")
        player.open_kind = _OPEN[kind]
        player.open_group = tuple(
            sorted(_read_pos(q, f"{where}.open.group") for q in o.get("group", list, []))
        )
        colours = _read_colours(o.get("colours", str, ""), f"{where}.open.colours")
        player.open_colours = sum(1 << c for c in range(4) if colours[c])
        player.open_cells = frozenset(
            _read_pos(q, f"{where}.open.cells") for q in o.get("cells", list, [])
        )
        if player.open_kind is not OpenKind.DELIVER:
            groups = area.groups()
            want = CellKind.DRY if player.open_kind is OpenKind.DRY else CellKind.ROAST
            if (
                not player.open_group
                or groups.get(player.open_group[0]) != player.open_group
                or area.top[player.open_group[0]].kind is not want
            ):
                raise DataError(
                    f"{where}.open: 'group' must list exactly the cells of one {kind} group"
                )
    if "pending" in raw:
        p = _Reader(raw["pending"], f"{where}.pending")
        p.check_keys({"fill", "cells", "deliver", "supply"})
        supply_cells = tuple(
            sorted(_read_pos(q, f"{where}.pending.supply") for q in p.get("supply", list, []))
        )
        for q in supply_cells:
            if (
                area.top.get(q, CellSpec(CellKind.EMPTY)).kind is not CellKind.SUPPLY
                or q in area.cubes
            ):
                raise DataError(f"{where}.pending.supply: {list(q)} is not an empty supply cell")
        player.pending_supply = supply_cells
        if "deliver" in raw["pending"]:
            pos = _read_pos(raw["pending"]["deliver"], f"{where}.pending.deliver")
            if (
                area.top.get(pos, CellSpec(CellKind.EMPTY)).kind is not CellKind.ROAST
                or pos not in area.cubes
            ):
                raise DataError(f"{where}.pending.deliver: must be a roast cell holding cubes")
            player.pending_deliver = pos
        elif "fill" in raw["pending"]:
            player.pending_fill = _read_colours(p.get("fill", str), f"{where}.pending.fill")
            player.pending_cells = tuple(
                sorted(_read_pos(q, f"{where}.pending.cells") for q in p.get("cells", list))
            )
            for q in player.pending_cells:
                cell = area.top.get(q, CellSpec(CellKind.EMPTY))
                if (
                    cell.kind not in (CellKind.BEAN, CellKind.BONUS)
                    or not player.pending_fill[cell.colour]
                ):
                    raise DataError(
                        f"{where}.pending.cells: {list(q)} is not a bean or bonus cell of a colour "
                        "still to fill"
                    )
            for colour, held in enumerate(player.pending_fill):
                room = sum(
                    (2 if area.top[q].kind is CellKind.BONUS else 1) - area.cubes.get(q, (0, 0))[1]
                    for q in player.pending_cells
                    if area.top[q].kind in (CellKind.BEAN, CellKind.BONUS)
                    and area.top[q].colour == colour
                )
                if held > room:
                    raise DataError(
                        f"{where}.pending: {held} {COLOURS[colour]} cubes to place but {room} empty cells"
                    )
    return player


def _read_area(game: CafeGame, raw: dict[str, Any], where: str) -> BusinessArea:
    r = _Reader(raw, where)
    r.check_keys({"cards", "cells", "shops"})
    area = BusinessArea()
    for i, entry in enumerate(r.get("cards", list, [])):
        e = _Reader(entry, f"{where}.cards[{i}]")
        e.check_keys({"card", "at", "rot"})
        card = e.get("card", str)
        if not game.deck.has_card(card):
            raise DataError(f"{where}.cards[{i}]: unknown card {card!r}")
        at = _read_pos(e.get("at", list), f"{where}.cards[{i}]")
        rot = e.get("rot", int, 0)
        if rot not in (0, 90, 180, 270):
            raise DataError(f"{where}.cards[{i}]: 'rot' must be 0, 90, 180 or 270")
        area.add_card(Placement(card, at[0], at[1], rot // 90))
    raw_shops = r.get("shops", list, [])
    shops: list[AreaShop] = []
    for i, entry in enumerate(raw_shops):
        sw = f"{where}.shops[{i}]"
        s = _Reader(entry, sw)
        s.check_keys({"city", "year", "requires", "vp", "cells", "cubes", "name", "card"})
        spec = ShopSpec(
            city=s.get("city", str),
            year=s.get("year", int, None, allow_none=True),
            requires=_read_colours(s.get("requires", str), f"{sw}.requires"),
            vp=s.get("vp", int),
            name=s.get("name", str, None, allow_none=True),
        )
        cells = tuple(sorted(_read_pos(q, sw) for q in s.get("cells", list)))
        if not 1 <= len(cells) <= 2:
            raise DataError(f"{sw}: a shop has 1 or 2 cells")
        cubes = _read_colours(s.get("cubes", str, ""), f"{sw}.cubes")
        if any(cubes[c] > spec.requires[c] for c in range(4)):
            raise DataError(f"{sw}: holds cubes the shop does not require")
        shops.append(AreaShop(spec=spec, cells=cells, cubes=cubes, card=s.get("card", str, "")))
    seen: set[Pos] = set()
    for i, entry in enumerate(r.get("cells", list)):
        cw = f"{where}.cells[{i}]"
        c = _Reader(entry, cw)
        c.check_keys({"at", "cell", "shop", "cubes"})
        pos = _read_pos(c.get("at", list), cw)
        if pos in seen:
            raise DataError(f"{cw}: two cells at {list(pos)}")
        seen.add(pos)
        token = c.get("cell", str)
        if token == "shop":
            sid = c.get("shop", int)
            if not 0 <= sid < len(shops) or pos not in shops[sid].cells:
                raise DataError(
                    f"{cw}: 'shop' must be the index of a shop whose cells include {list(pos)}"
                )
            area.set_cell(pos, CellSpec(CellKind.SHOP, shop=str(sid)), sid)
        else:
            try:
                cell = CellSpec.from_token(token)
            except DataError as exc:
                raise DataError(f"{cw}: {exc}") from None
            if cell.kind is CellKind.SHOP:
                raise DataError(f'{cw}: write shop cells as "cell": "shop" with a "shop" index')
            area.set_cell(pos, cell)
        if "cubes" in entry:
            _place_cubes(area, pos, _read_colours(entry["cubes"], cw), cw)
    if not area.top:
        raise DataError(f"{where}: an area needs at least one cell")
    for sid, shop in enumerate(shops):
        available = all(area.shop_at.get(q) == sid for q in shop.cells)
        if not available and any(shop.cubes):
            raise DataError(f"{where}.shops[{sid}]: a shop with a covered cell holds no cubes")
        shops[sid] = AreaShop(shop.spec, shop.cells, shop.cubes, available, shop.card)
    area.shops = shops
    area.recount()
    return area


def _place_cubes(
    area: BusinessArea, pos: Pos, counts: tuple[int, int, int, int], where: str
) -> None:
    total = sum(counts)
    if total == 0:
        return
    colours = [c for c in range(4) if counts[c]]
    cell = area.top[pos]
    if len(colours) > 1:
        raise DataError(f"{where}: a cell holds cubes of one colour only")
    colour = colours[0]
    if cell.kind in BEAN_LIKE:
        limit = 2 if cell.kind is CellKind.BONUS else 1
        if (cell.colour >= 0 and colour != cell.colour) or total > limit:
            raise DataError(f"{where}: a bean cell holds at most {limit} cube(s) of its own colour")
    elif cell.kind in (CellKind.ESPRESSO, CellKind.SHIP):
        if total > 1:
            raise DataError(f"{where}: an {cell.token} cell holds one cube at most")
    elif cell.kind not in (CellKind.DRY, CellKind.ROAST):
        raise DataError(f"{where}: a {cell.token} cell cannot hold cubes")
    area.cubes[pos] = (colour, total)


def _remaining_draws(state: CafeState) -> int:
    """Cards the rest of the game will draw, plus those it leaves over at the end."""
    n, rules = state.num_players, state.rules
    deck_size = PLAN_CARDS - (STAR_CARDS if rules.removes_stars(n) else 0)
    deck_size -= rules.extra_removals(n)
    deck_size += ESPRESSO_CARDS if rules.espresso else 0
    leftover = rules.leftover_cards(n, deck_size)
    if state.phase is Phase.OVER:
        return leftover
    future = (ROUNDS - state.round) * rules.cards_per_round(n)
    if state.phase is Phase.DRAFT and not rules.advanced:
        future += max(0, len(state.draft_order) - 1)  # refills still to come this round
    return future + leftover


def _deal_unseen_deck(state: CafeState) -> None:
    """No 'deck' given: deal the cards seen nowhere in the position (plan cards, plus the
    espresso and promo cards the options add), shuffled with the position's RNG, as many
    as the rest of the game draws; the others are removed."""
    seen = set(state.display) | set(state.removed) | set(state.discard)
    for p in state.players:
        seen.update(pl.card for pl in p.area.cards)
        if p.hand:
            seen.add(p.hand)
    rules = state.rules
    deck = state.game.deck
    pool = [c for c in deck.of_kind("plan") if c.id not in seen]
    state.removed += [c.id for c in pool if c.star and rules.removes_stars(state.num_players)]
    unseen = [c.id for c in pool if not (c.star and rules.removes_stars(state.num_players))]
    unseen += [c for c in rules.promos if c not in seen]
    if rules.espresso:
        unseen += [c.id for c in deck.of_kind("espresso") if c.id not in seen]
    state.rng.shuffle(unseen)
    need = _remaining_draws(state)
    state.deck = unseen[:need]
    state.removed += unseen[need:]


def _check_consistency(state: CafeState) -> None:
    where = "position"
    ids = list(state.display) + state.deck + state.removed + state.discard
    for p in state.players:
        ids += [pl.card for pl in p.area.cards]
        if p.hand:
            ids.append(p.hand)
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise DataError(f"{where}: card(s) in two places at once: {', '.join(dupes)}")
    stages = {p.stage for p in state.players}
    if state.phase is Phase.AUCTION:
        if not state.rules.advanced:
            raise DataError(f"{where}: the auction phase exists in advanced mode only")
        if stages != {Stage.WAIT} or state.draft_order or not state.display:
            raise DataError(
                f"{where}: in the auction phase every seat's stage is 'wait', 'draft_order' is "
                "empty and 'display' shows the revealed cards"
            )
    elif state.phase is Phase.DRAFT:
        if stages != {Stage.WAIT} or not state.draft_order or not state.display:
            raise DataError(
                f"{where}: in the draft phase every seat's stage is 'wait', 'draft_order' lists the "
                "seats still to pick and 'display' the cards on offer"
            )
    elif state.phase is Phase.TURNS:
        if Stage.WAIT in stages or state.draft_order:
            raise DataError(
                f"{where}: in the turns phase seats are 'place', 'act' or 'done' and 'draft_order' is empty"
            )
        if stages == {Stage.DONE}:
            raise DataError(f"{where}: every seat is done; write the next round's draft instead")
    elif stages != {Stage.DONE}:
        raise DataError(f"{where}: in the 'over' phase every seat's stage is 'done'")
    for i, p in enumerate(state.players):
        if state.phase is Phase.DRAFT:
            if i in state.draft_order and p.hand is not None:
                raise DataError(f"seats[{i}]: a seat still to pick in the draft holds no card")
        elif (p.stage is Stage.PLACE) != (p.hand is not None):
            raise DataError(
                f"seats[{i}]: a seat has a 'hand' card exactly when its stage is 'place'"
            )
        if p.area.cups == 0 and p.stage is not Stage.WAIT:
            raise DataError(f"seats[{i}]: at least one cup must be visible in an area")
    for seat in state.current_seats():
        if not state.legal_actions(seat):
            raise DataError(f"seats[{seat}]: this seat has no legal action in the position")
