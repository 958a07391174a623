"""A player's business area: the visible grid of cells, cubes on cells, shops, placement.

Coordinates are (row, column) with the start card's top-left cell at (0, 0); rows grow
downwards, columns to the right. Only the top (visible) cell of each grid position is kept:
cards are only ever placed on top, so a covered cell can never matter again.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass
from itertools import chain
from typing import Any, Final

from coffeetable.games.cafe.deck import (
    BEAN_LIKE,
    COLS,
    ROWS,
    CardSpec,
    CellKind,
    CellSpec,
    ShopSpec,
)

Pos = tuple[int, int]
#: A position in the hot loops that only pass cells on (as dict keys, into lists): the
#: compiled build keeps a `Pos` as two unboxed ints and makes a new tuple each time one is used
#: as a key or stored, where an `Any` position stays the same object (pure Python: no change).
PosObj = Any
#: Coordinates must stay within [-COORD_LIMIT, COORD_LIMIT); eight placements reach 17 cells
#: from the start card at most, so this bounds every real game (and the action encoding).
COORD_LIMIT: Final = 20


def rotated_cells(rotation: int) -> tuple[tuple[int, int, int, int], ...]:
    """(row offset, col offset, card row, card col) of a 2x3 card turned `rotation` x 90°
    clockwise; offsets are from the top-left of the turned card's footprint."""
    out = []
    for r in range(ROWS):
        for c in range(COLS):
            if rotation == 0:
                dr, dc = r, c
            elif rotation == 1:
                dr, dc = c, ROWS - 1 - r
            elif rotation == 2:
                dr, dc = ROWS - 1 - r, COLS - 1 - c
            else:
                dr, dc = COLS - 1 - c, r
            out.append((dr, dc, r, c))
    return tuple(sorted(out))


ROTATIONS: Final = tuple(rotated_cells(k) for k in range(4))
#: Footprint offsets per rotation (rotations 0/2 and 1/3 share a footprint).
FOOTPRINTS: Final = tuple(tuple((dr, dc) for dr, dc, _, _ in cells) for cells in ROTATIONS)
#: Footprints are numbered for the placement bookkeeping: footprint (shape, row, col), shape
#: 0 for rotations 0/2 and 1 for 1/3, (row, col) its top-left cell, is number
#: shape * _SPAN**2 + (row + _OFF) * _SPAN + (col + _OFF). Every footprint that can cover a
#: cell of the grid has a number (its top-left lies at most 2 cells above or left of it).
_OFF: Final = COORD_LIMIT + COLS - 1
_SPAN: Final = COORD_LIMIT + _OFF
_FOOTPRINTS: Final = 2 * _SPAN * _SPAN
#: Per shape, the numbers to subtract from a cell's own number (shape 0's numbering) to get
#: the footprints of that shape containing it.
_CONTAINING: Final = tuple(
    tuple(dr * _SPAN + dc - shape * _SPAN * _SPAN for dr, dc in FOOTPRINTS[shape])
    for shape in (0, 1)
)
_CONTAINING_ALL: Final = _CONTAINING[0] + _CONTAINING[1]


#: Per footprint number: its two placements (row, col, rotation), or None when it does not
#: lie inside the playable grid.
_PAIRS: Final[tuple[tuple[tuple[int, int, int], tuple[int, int, int]] | None, ...]] = tuple(
    ((r, c, shape), (r, c, shape + 2))
    if r + (ROWS, COLS)[shape] <= COORD_LIMIT
    and c + (COLS, ROWS)[shape] <= COORD_LIMIT
    and min(r, c) >= -COORD_LIMIT
    else None
    for shape in (0, 1)
    for r in range(-_OFF, COORD_LIMIT)
    for c in range(-_OFF, COORD_LIMIT)
)
#: Per footprint number: 1 when it lies inside the playable grid (`_PAIRS` not None; a flat
#: table: the compiled build checks every element of a `_PAIRS` entry it reads).
_INSIDE: Final = bytes(pair is not None for pair in _PAIRS)
#: `_Footprints.cover` packs a footprint's coverage as COVERED * visible cells + cups (at
#: most 6 of each, so a byte holds it).
COVERED: Final = 16
#: Per packed value: 1 when the footprint fits (2-4 visible cells), else 0.
_FIT: Final = bytes(int(2 <= value // COVERED <= 4) for value in range(256))


#: A change to the footprints: (base, ((offset, delta), ...)), each footprint numbered
#: base + offset gaining delta (COVERED per newly visible cell, +-1 per cup).
Change = tuple[int, tuple[tuple[int, int], ...]]


def _cell_number(row: int, col: int) -> int:
    """A cell's number: the footprint number of shape 0 whose top-left cell it is."""
    return (row + _OFF) * _SPAN + col + _OFF


class _CardChanges(dict[tuple[int, int], tuple[tuple[int, int], ...]]):
    """Per (rotation, a bit per newly visible cell of a card placed so, in
    `ROTATIONS[rotation]` order): the change of every footprint overlapping those cells,
    offset from the number of the card's top-left cell (COVERED per newly visible cell it
    contains; made on first use, 256 at most). A card's new cells touch at most 31
    footprints where one by one they touch 12 each. Cups are counted apart, one cell at a
    time (`_CELL_CHANGES`)."""

    def __missing__(self, key: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        rotation, new = key
        summed: dict[int, int] = {}
        for i, (dr, dc, _, _) in enumerate(ROTATIONS[rotation]):
            if new >> i & 1:
                for off in _CONTAINING_ALL:
                    at = dr * _SPAN + dc - off
                    summed[at] = summed.get(at, 0) + COVERED
        found = self[key] = tuple(sorted(summed.items()))
        return found


_CARD_CHANGES: Final = _CardChanges()
#: Per delta of one cell: the change of the footprints containing it, offset from its number.
_CELL_CHANGES: Final = {
    delta: tuple((-off, delta) for off in _CONTAINING_ALL)
    for delta in (-1, 1, COVERED, COVERED + 1)
}


def footprint_placements(key: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The two placements (row, col, rotation) of footprint number `key` (one of
    `BusinessArea.legal_footprints`)."""
    pair = _PAIRS[key]
    if pair is None:
        raise ValueError(f"footprint {key} lies outside the playable grid")
    return pair


def _footprint(row: int, col: int, rotation: int) -> int:
    """The number of the footprint of a card placed there (-1 outside the numbering)."""
    if not (-_OFF <= row < COORD_LIMIT and -_OFF <= col < COORD_LIMIT):
        return -1
    return (rotation % 2) * _SPAN * _SPAN + (row + _OFF) * _SPAN + col + _OFF


#: Action families: cells of one family that touch orthogonally form one group.
_FAMILY: Final = {kind: 1 for kind in BEAN_LIKE} | {CellKind.DRY: 2, CellKind.ROAST: 3}
_FAMILY_KINDS: Final = tuple(_FAMILY.items())
_SHOP: Final = CellKind.SHOP
_CUP: Final = CellKind.CUP
_SHIP: Final = CellKind.SHIP


@dataclass(frozen=True, slots=True)
class AreaShop:
    """A shop placed in an area. `available` is False once any of its cells is covered."""

    spec: ShopSpec
    cells: tuple[Pos, ...]
    cubes: tuple[int, int, int, int] = (0, 0, 0, 0)
    available: bool = True
    card: str = ""

    def needs(self, colour: int) -> int:
        return self.spec.requires[colour] - self.cubes[colour] if self.available else 0

    @property
    def complete(self) -> bool:
        return self.available and self.cubes == self.spec.requires

    @property
    def anchor(self) -> Pos:
        return self.cells[0]


@dataclass(frozen=True, slots=True)
class Placement:
    card: str
    row: int
    col: int
    rotation: int


class _Footprints:
    """The placement bookkeeping of one version of an area's cells (never changed once
    made): `cover` packs, per footprint number, the visible cells and cups it covers
    (COVERED * cells + cups); `ordered` holds the footprints inside the grid that cover 2-4
    visible cells, in order (shape, row, column)."""

    __slots__ = ("cover", "ordered")

    def __init__(self, cover: bytearray, ordered: list[int]) -> None:
        self.cover = cover
        self.ordered = ordered

    def updated(self, changes: list[Change]) -> _Footprints:
        """A new bookkeeping: this one with the changes (see `Change`) added. The few
        footprints that start or stop fitting go into or out of the ordered list in place
        (a placement changes about a dozen of the hundred or more that fit)."""
        cover, ordered = bytearray(self.cover), self.ordered.copy()
        inside, fit = _INSIDE, _FIT
        for base, deltas in changes:
            for off, delta in deltas:
                key = base + off
                before = cover[key]
                after = cover[key] = before + delta
                if fit[after] != fit[before]:  # it fits now, or no longer does
                    if not fit[after]:
                        if inside[key]:
                            del ordered[bisect_left(ordered, key)]
                    elif inside[key]:
                        insort(ordered, key)
        return _Footprints(cover, ordered)


_NO_FOOTPRINTS: Final = _Footprints(bytearray(_FOOTPRINTS), [])


def _rekind(
    kinds: dict[CellKind, list[PosObj]], changed: list[tuple[PosObj, CellKind | None, CellKind]]
) -> dict[CellKind, list[PosObj]]:
    """`BusinessArea.kinds` after cells changed kind (a new dict: the old one may be shared
    by a copy, and so may its lists, which are copied before they change)."""
    out = dict(kinds)
    mine: set[CellKind] = set()  # the lists already copied
    for pos, before, after in changed:
        if before is not None:
            cells = out[before]
            if before not in mine:
                cells = out[before] = cells.copy()
                mine.add(before)
            cells.remove(pos)
            if not cells:
                del out[before]
                mine.discard(before)
        found = out.get(after)
        if found is None:
            out[after] = [pos]
            mine.add(after)
        else:
            if after not in mine:
                found = out[after] = found.copy()
                mine.add(after)
            insort(found, pos)
    return out


class BusinessArea:
    """Mutable; `copy()` is cheap (cells are immutable specs, cubes are small tuples). The
    cells, shop cells and placed cards change only when a card is placed, so a copy shares
    them with its original until either places a card (copy on write).

    Placement bookkeeping is incremental and lazy: `_base` is a `_Footprints` (the coverage
    of every footprint, and the footprints that fit) as it was at some earlier version of the
    cells, and `_pending` the cells put on top since then. Listing the legal placements
    brings it up to date (12 footprints per cell put, never a scan of the area) once per
    version of the cells, for every copy of that version (through `memo`), so a search that
    places cards without listing what follows pays nothing for it. `memo` holds what is
    derived from the cells alone (cached until the next placement, shared with copies)."""

    __slots__ = (
        "_base",
        "_colours",
        "_groups",
        "_kinds",
        "_layout",
        "_owner",
        "_pending",
        "cards",
        "cubes",
        "cups",
        "memo",
        "ships",
        "shop_at",
        "shops",
        "top",
    )

    def __init__(self) -> None:
        self.top: dict[Pos, CellSpec] = {}
        self.shop_at: dict[Pos, int] = {}
        self.cubes: dict[Pos, tuple[int, int]] = {}  # (colour, count) on bean/dry/roast/espresso
        self.shops: list[AreaShop] = []
        self.cards: list[Placement] = []
        self.cups = 0
        self.ships = 0
        self._groups: dict[Pos, tuple[Pos, ...]] | None = None
        self._kinds: dict[CellKind, list[Pos]] | None = None
        self._colours: dict[CellKind, tuple[int, int, int, int]] = {}
        self._layout: tuple[tuple[str, int, int, int], ...] | None = None
        self._base = _NO_FOOTPRINTS
        self._pending: list[Change] = []  # the footprints' changes since `_base`
        self.memo: dict[Any, Any] = {}
        self._owner = True  # top, shop_at, cards and the pending cells are its own (not shared)

    def copy(self) -> BusinessArea:
        new = BusinessArea.__new__(BusinessArea)
        new.top = self.top  # shared until either area places a card (_own)
        new.shop_at = self.shop_at
        new.cards = self.cards
        self._owner = new._owner = False
        new.cubes = self.cubes.copy()
        new.shops = self.shops.copy()
        new.cups = self.cups
        new.ships = self.ships
        new._groups = self._groups  # never mutated once built; a placement replaces them
        new._kinds = self._kinds
        new._colours = self._colours
        new._layout = self._layout
        new._base = self._base  # never changed once made
        new._pending = self._pending
        new.memo = self.memo
        return new

    def _own(self) -> None:
        """Make the cells, shop cells, cards and pending cells this area's own before they
        change."""
        if not self._owner:
            self.top = self.top.copy()
            self.shop_at = self.shop_at.copy()
            self.cards = self.cards.copy()
            self._pending = self._pending.copy()
            self._owner = True

    def add_card(self, placement: Placement) -> None:
        """Record a placed card (the cells are put by `set_cell`)."""
        self._own()
        self.cards.append(placement)
        self._layout = None

    def layout(self) -> tuple[tuple[str, int, int, int], ...]:
        """The placed cards as plain tuples (card, row, column, rotation), which decide the
        visible cells: part of a position's search key, cached until the next placement."""
        if self._layout is None:
            self._layout = tuple((p.card, p.row, p.col, p.rotation) for p in self.cards)
        return self._layout

    # --- building -------------------------------------------------------------------------
    @classmethod
    def starting(cls, card: CardSpec) -> BusinessArea:
        area = cls()
        area.place(card, 0, 0, 0)
        return area

    def set_cell(self, pos: Pos, cell: CellSpec, shop_id: int = -1) -> None:
        """Put a cell on top at `pos`; a shop cell belongs to area shop `shop_id`."""
        self._own()
        old = self.top.get(pos)
        delta = (cell.kind is _CUP) - (old is not None and old.kind is _CUP)
        if old is None:
            delta += COVERED
        if delta:
            self._pending.append((_cell_number(*pos), _CELL_CHANGES[delta]))
        self.top[pos] = cell
        if shop_id >= 0:
            self.shop_at[pos] = shop_id
        else:
            self.shop_at.pop(pos, None)
        self._groups = None
        self._kinds = None
        self._colours = {}
        self.memo = {}  # a new dict: a copy may share the old one

    def _footprints(self) -> _Footprints:
        """The placement bookkeeping of this version of the cells (made once, then shared
        through `memo` by every copy of it)."""
        made: _Footprints | None = self.memo.get("footprints")
        if made is None:
            made = self.memo["footprints"] = self._base.updated(self._pending)
        if self._pending:
            self._base = made
            self._pending = []
        return made

    def recount(self) -> None:
        kinds = [cell.kind for cell in self.top.values()]
        self.cups = kinds.count(CellKind.CUP)
        self.ships = kinds.count(CellKind.SHIP)
        self._groups = None
        self._kinds = None
        self._colours = {}

    # --- placement ------------------------------------------------------------------------
    def placement_coverage(self, row: int, col: int, rotation: int) -> tuple[int, int]:
        """(visible cells covered, visible cups covered) by a card placed there."""
        key = _footprint(row, col, rotation)
        return divmod(self._footprints().cover[key], COVERED) if key >= 0 else (0, 0)

    def legal_placements(self, card: CardSpec) -> list[tuple[int, int, int]]:
        """Every (row, col, rotation) where the card covers 2-4 visible cells and at least
        one cup stays visible afterwards, in a fixed order (footprint shape, row, column)."""
        return list(chain.from_iterable(map(_PAIRS.__getitem__, self.legal_footprints(card))))  # type: ignore[arg-type]

    def legal_footprints(self, card: CardSpec) -> list[int]:
        """The footprints (numbered, see `footprint_placements`) of `legal_placements`, in
        order. Read from the incremental bookkeeping (`_footprints`): a card with a cup, or an
        area showing more cups than a card can cover, takes every footprint that fits;
        otherwise those covering every visible cup are left out."""
        made = self._footprints()
        cups = self.cups
        if card.has_cup or cups > 4:
            return made.ordered
        cover = made.cover
        return [key for key in made.ordered if cover[key] % COVERED < cups]

    def placement_is_legal(self, card: CardSpec, row: int, col: int, rotation: int) -> bool:
        """Whether `legal_placements(card)` lists (row, col, rotation): one position checked
        alone, without listing them all."""
        if rotation not in (0, 1, 2, 3) or not self.top:
            return False
        h, w = (ROWS, COLS) if rotation % 2 == 0 else (COLS, ROWS)
        lo, hi = -COORD_LIMIT, COORD_LIMIT
        if row < lo or row + h > hi or col < lo or col + w > hi:
            return False
        covered, cups = self.placement_coverage(row, col, rotation)
        return 2 <= covered <= 4 and (card.has_cup or cups < self.cups)

    def place(
        self, card: CardSpec, row: int, col: int, rotation: int
    ) -> tuple[list[int], list[int]]:
        """Put `card` on top. Returns the cubes (per colour) that go back to the supply from
        covered cells and from shops that lost a cell, and those that go back to the
        warehouse (bid cubes on covered ships, advanced mode)."""
        self._own()
        returned = [0, 0, 0, 0]
        to_warehouse = [0, 0, 0, 0]
        new_shop_cells: dict[str, list[PosObj]] = {}
        top: dict[PosObj, CellSpec] = self.top
        cubes: dict[PosObj, tuple[int, int]] = self.cubes
        shop_at: dict[PosObj, int] = self.shop_at
        cup, ship = _CUP, _SHIP
        new = 0  # a bit per card cell put on an empty position
        pending = self._pending
        changed: list[tuple[PosObj, CellKind | None, CellKind]] = []  # (cell, before, after)
        for i, (dr, dc, cr, cc) in enumerate(ROTATIONS[rotation]):
            pos: PosObj = (row + dr, col + dc)
            cell = card.cells[cr][cc]
            old = top.get(pos)
            if old is None or old.kind is not cell.kind:
                changed.append((pos, None if old is None else old.kind, cell.kind))
            cups = 0  # the change of the visible cups here
            if old is None:
                new |= 1 << i
            else:
                held = cubes.pop(pos, None)
                if held is not None:
                    if old.kind is ship:
                        to_warehouse[held[0]] += held[1]
                    else:
                        returned[held[0]] += held[1]
                if old.kind is _SHOP:
                    sid = shop_at.pop(pos)
                    shop = self.shops[sid]
                    if shop.available:
                        for colour, n in enumerate(shop.cubes):
                            returned[colour] += n
                        self.shops[sid] = AreaShop(
                            shop.spec, shop.cells, (0, 0, 0, 0), False, shop.card
                        )
                elif old.kind is cup:
                    cups = -1
                    self.cups -= 1
                elif old.kind is ship:
                    self.ships -= 1
            if cell.kind is cup:
                cups += 1
                self.cups += 1
            elif cell.kind is ship:
                self.ships += 1
            elif cell.kind is _SHOP:
                new_shop_cells.setdefault(cell.shop, []).append(pos)
            if cups:
                pending.append((_cell_number(*pos), _CELL_CHANGES[cups]))
            top[pos] = cell  # (as `set_cell` does, for the six cells at once)
        pending.append((_cell_number(row, col), _CARD_CHANGES[rotation, new]))
        for key, cells in new_shop_cells.items():
            sid = len(self.shops)
            self.shops.append(AreaShop(card.shops[key], tuple(sorted(cells)), card=card.id))
            for pos in cells:
                shop_at[pos] = sid
        self.cards.append(Placement(card.id, row, col, rotation))
        self._layout = None
        self._groups = None
        if self._kinds is not None:
            self._kinds = _rekind(self._kinds, changed)
        self._colours = {}
        self.memo = {}  # a new dict: a copy may share the old one
        return returned, to_warehouse

    # --- groups ---------------------------------------------------------------------------
    def groups(self) -> dict[Pos, tuple[Pos, ...]]:
        """Cell -> its action group (sorted cells), for bean-like, dry and roast cells."""
        if self._groups is None:
            self._build_groups()
        return self._groups  # type: ignore[return-value]

    def _build_groups(self) -> None:
        """The action groups (`groups`) and the bean groups (`bean_groups`), in one
        row-major pass with union-find over the cells of the three families (from `kinds`):
        a cell joins the group of its upper and left neighbours of the same family (the two
        are united when they differ)."""
        kinds = self._kinds
        if kinds is None:
            kinds = self.kinds()
        family: dict[PosObj, int] = {}  # family cell -> its family
        for kind, fam in _FAMILY_KINDS:
            found = kinds.get(kind)
            if found is not None:
                family.update(dict.fromkeys(found, fam))
        # per family cell: its box [family, members, parent box or None, members not in
        # row-major order]; the previous row's and this row's boxes by column
        boxes: list[list[Any]] = []
        above: dict[int, list[Any]] = {}
        here: dict[int, list[Any]] = {}
        row = None
        left_col = left = None
        for pos in sorted(family):  # (the cells alone: pairs would compare cells twice)
            fam = family[pos]
            r: int = pos[0]
            c: int = pos[1]
            if r != row:
                above = here if row is not None and r == row + 1 else {}
                here = {}
                row = r
                left = None
            up = above.get(c)
            if up is not None:
                while up[2] is not None:
                    up = up[2]
                if up[0] != fam:
                    up = None
            if left is not None and left_col == c - 1:
                while left[2] is not None:
                    left = left[2]
                if left[0] != fam:
                    left = None
            else:
                left = None
            if up is None:
                box = left
            else:
                box = up
                if left is not None and left is not up:  # two groups meet here
                    up[1] += left[1]
                    up[3] = True
                    left[1] = None
                    left[2] = up
            if box is None:
                box = [fam, [pos], None, False]
                boxes.append(box)
            else:
                box[1].append(pos)
            here[c] = left = box
            left_col = c
        out: dict[PosObj, tuple[PosObj, ...]] = {}
        beans: list[tuple[PosObj, tuple[tuple[PosObj, int], ...]]] = []
        top: dict[PosObj, CellSpec] = self.top
        for fam, members, parent, merged in boxes:
            if parent is not None:
                continue  # merged into another box
            if len(members) == 1:  # most groups are one cell
                first = members[0]
                out[first] = (first,)
                if fam == 1:
                    beans.append((first, ((first, top[first].colour),)))
                continue
            group = tuple(sorted(members)) if merged else tuple(members)
            out.update(dict.fromkeys(group, group))
            if fam == 1:
                beans.append((group[0], tuple([(pos, top[pos].colour) for pos in group])))
        beans.sort()
        self._groups = out
        self.memo["bean_groups"] = beans

    def bean_groups(self) -> list[tuple[Pos, tuple[tuple[Pos, int], ...]]]:
        """The bean-like action groups in order of their first cell: (first cell, the
        group's cells with their printed colour, -1 for a supply cell). Cached until the next
        placement."""
        known: list[tuple[Pos, tuple[tuple[Pos, int], ...]]] | None = self.memo.get("bean_groups")
        if known is None:
            self._build_groups()
            known = self.memo["bean_groups"]
        return known

    # --- queries --------------------------------------------------------------------------
    def cells_of(self, kind: CellKind) -> list[Pos]:
        """Visible cells of one kind, in row-major order (cached until the next placement)."""
        kinds = self._kinds
        if kinds is None:
            kinds = self.kinds()
        return kinds.get(kind, [])

    def kinds(self) -> dict[CellKind, list[Pos]]:
        """The visible cells of each kind present, in row-major order (`cells_of` of every
        kind at once; cached until the next placement: do not change it)."""
        if self._kinds is None:
            kinds: dict[CellKind, list[Pos]] = {}
            top = self.top
            for pos in sorted(top):
                kind = top[pos].kind
                cells = kinds.get(kind)
                if cells is None:
                    kinds[kind] = [pos]
                else:
                    cells.append(pos)
            self._kinds = kinds
        return self._kinds

    def cell_colours(self, kind: CellKind) -> tuple[int, int, int, int]:
        """How many visible cells of one kind show each colour (cached until the next
        placement; cells without a colour are not counted)."""
        known = self._colours.get(kind)
        if known is None:
            counts = [0, 0, 0, 0]
            top = self.top
            for pos in self.cells_of(kind):
                colour = top[pos].colour
                if colour >= 0:
                    counts[colour] += 1
            known = self._colours[kind] = (counts[0], counts[1], counts[2], counts[3])
        return known

    def cubes_by_colour(self) -> list[int]:
        """Cubes from the supply on the cells of the area (shops included), per colour.
        Bid cubes on ships are warehouse cubes (Ruling S1) and are not counted."""
        out = [0, 0, 0, 0]
        top = self.top
        for pos, (colour, n) in self.cubes.items():
            if top[pos].kind is not CellKind.SHIP:
                out[colour] += n
        for shop in self.shops:
            for colour, n in enumerate(shop.cubes):
                out[colour] += n
        return out

    def shop_id_at(self, pos: Pos) -> int:
        return self.shop_at.get(pos, -1)

    def cubes_per_kind(self) -> dict[CellKind, list[int]]:
        """Cubes per colour on the visible cells of each kind that holds any, in one pass
        (what `cubes_on_kind` gives for every kind at once)."""
        out: dict[CellKind, list[int]] = {}
        top = self.top
        for pos, (colour, n) in self.cubes.items():
            kind = top[pos].kind
            counts = out.get(kind)
            if counts is None:
                counts = out[kind] = [0, 0, 0, 0]
            counts[colour] += n
        return out

    def cubes_on_kind(self, kind: CellKind) -> list[int]:
        """Cubes per colour on the visible cells of one kind (e.g. ships, espresso cells)."""
        return self.cubes_per_kind().get(kind, [0, 0, 0, 0])
