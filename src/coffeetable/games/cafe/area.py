"""A player's business area: the visible grid of cells, cubes on cells, shops, placement.

Coordinates are (row, column) with the start card's top-left cell at (0, 0); rows grow
downwards, columns to the right. Only the top (visible) cell of each grid position is kept:
cards are only ever placed on top, so a covered cell can never matter again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

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
#: Coordinates must stay within [-COORD_LIMIT, COORD_LIMIT); eight placements reach 17 cells
#: from the start card at most, so this bounds every real game (and the action encoding).
COORD_LIMIT = 20


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


ROTATIONS = tuple(rotated_cells(k) for k in range(4))
#: Footprint offsets per rotation (rotations 0/2 and 1/3 share a footprint).
FOOTPRINTS = tuple(tuple((dr, dc) for dr, dc, _, _ in cells) for cells in ROTATIONS)


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


class BusinessArea:
    """Mutable; `copy()` is cheap (cells are immutable specs, cubes are small tuples)."""

    __slots__ = ("_groups", "cards", "cubes", "cups", "shop_at", "shops", "ships", "top")

    def __init__(self) -> None:
        self.top: dict[Pos, CellSpec] = {}
        self.shop_at: dict[Pos, int] = {}
        self.cubes: dict[Pos, tuple[int, int]] = {}  # (colour, count) on bean/dry/roast/espresso
        self.shops: list[AreaShop] = []
        self.cards: list[Placement] = []
        self.cups = 0
        self.ships = 0
        self._groups: dict[Pos, tuple[Pos, ...]] | None = None

    def copy(self) -> BusinessArea:
        new = BusinessArea.__new__(BusinessArea)
        new.top = self.top.copy()
        new.shop_at = self.shop_at.copy()
        new.cubes = self.cubes.copy()
        new.shops = self.shops.copy()
        new.cards = self.cards.copy()
        new.cups = self.cups
        new.ships = self.ships
        new._groups = self._groups  # immutable once built; placement replaces it
        return new

    # --- building -------------------------------------------------------------------------
    @classmethod
    def starting(cls, card: CardSpec) -> BusinessArea:
        area = cls()
        area.place(card, 0, 0, 0)
        return area

    def set_cell(self, pos: Pos, cell: CellSpec, shop_id: int = -1) -> None:
        """Put a cell on top at `pos` (positions and hand-written areas use this)."""
        self.top[pos] = cell
        if cell.kind is CellKind.SHOP:
            self.shop_at[pos] = shop_id
        else:
            self.shop_at.pop(pos, None)
        self._groups = None

    def recount(self) -> None:
        kinds = [cell.kind for cell in self.top.values()]
        self.cups = kinds.count(CellKind.CUP)
        self.ships = kinds.count(CellKind.SHIP)
        self._groups = None

    # --- placement ------------------------------------------------------------------------
    def placement_coverage(self, row: int, col: int, rotation: int) -> tuple[int, int]:
        """(visible cells covered, visible cups covered) by a card placed there."""
        covered = cups = 0
        top = self.top
        for dr, dc in FOOTPRINTS[rotation]:
            cell = top.get((row + dr, col + dc))
            if cell is not None:
                covered += 1
                if cell.kind is CellKind.CUP:
                    cups += 1
        return covered, cups

    def legal_placements(self, card: CardSpec) -> list[tuple[int, int, int]]:
        """Every (row, col, rotation) where the card covers 2-4 visible cells and at least
        one cup stays visible afterwards."""
        if not self.top:
            return []
        rows = [r for r, _ in self.top]
        cols = [c for _, c in self.top]
        min_r, max_r, min_c, max_c = min(rows), max(rows), min(cols), max(cols)
        card_has_cup = card.has_cup
        cups_now = self.cups
        top = self.top
        cup = CellKind.CUP
        out: list[tuple[int, int, int]] = []
        for shape in (0, 1):
            footprint = FOOTPRINTS[shape]
            height = 1 + max(dr for dr, _ in footprint)
            width = 1 + max(dc for _, dc in footprint)
            lo_r = max(min_r - height + 1, -COORD_LIMIT)
            hi_r = min(max_r, COORD_LIMIT - height)
            lo_c = max(min_c - width + 1, -COORD_LIMIT)
            hi_c = min(max_c, COORD_LIMIT - width)
            for r in range(lo_r, hi_r + 1):
                for c in range(lo_c, hi_c + 1):
                    covered = cups = 0
                    for dr, dc in footprint:
                        cell = top.get((r + dr, c + dc))
                        if cell is not None:
                            covered += 1
                            if cell.kind is cup:
                                cups += 1
                    if 2 <= covered <= 4 and (card_has_cup or cups_now > cups):
                        out.append((r, c, shape))
                        out.append((r, c, shape + 2))
        out.sort()
        return out

    def place(self, card: CardSpec, row: int, col: int, rotation: int) -> list[int]:
        """Put `card` on top. Returns the cubes (per colour) that go back to the supply from
        covered cells and from shops that lost a cell."""
        returned = [0, 0, 0, 0]
        shop_ids: dict[str, int] = {}
        for dr, dc, cr, cc in ROTATIONS[rotation]:
            pos = (row + dr, col + dc)
            old = self.top.get(pos)
            if old is not None:
                held = self.cubes.pop(pos, None)
                if held is not None:
                    returned[held[0]] += held[1]
                if old.kind is CellKind.SHOP:
                    sid = self.shop_at[pos]
                    shop = self.shops[sid]
                    if shop.available:
                        for colour, n in enumerate(shop.cubes):
                            returned[colour] += n
                        self.shops[sid] = replace(shop, cubes=(0, 0, 0, 0), available=False)
            cell = card.cells[cr][cc]
            if cell.kind is CellKind.SHOP:
                if cell.shop not in shop_ids:
                    shop_ids[cell.shop] = len(self.shops)
                    self.shops.append(AreaShop(spec=card.shops[cell.shop], cells=(), card=card.id))
                sid = shop_ids[cell.shop]
                shop = self.shops[sid]
                self.shops[sid] = replace(shop, cells=(*shop.cells, pos))
            self.set_cell(pos, cell, shop_ids.get(cell.shop, -1))
        for sid in shop_ids.values():
            shop = self.shops[sid]
            self.shops[sid] = replace(shop, cells=tuple(sorted(shop.cells)))
        self.cards.append(Placement(card.id, row, col, rotation))
        self.recount()
        return returned

    # --- groups ---------------------------------------------------------------------------
    def groups(self) -> dict[Pos, tuple[Pos, ...]]:
        """Cell -> its action group (sorted cells), for bean-like, dry and roast cells."""
        if self._groups is None:
            self._groups = self._build_groups()
        return self._groups

    def _build_groups(self) -> dict[Pos, tuple[Pos, ...]]:
        def family(kind: CellKind) -> int:
            if kind in BEAN_LIKE:
                return 1
            if kind is CellKind.DRY:
                return 2
            if kind is CellKind.ROAST:
                return 3
            return 0

        top = self.top
        out: dict[Pos, tuple[Pos, ...]] = {}
        for start, cell in top.items():
            fam = family(cell.kind)
            if fam == 0 or start in out:
                continue
            members = [start]
            seen = {start}
            i = 0
            while i < len(members):
                r, c = members[i]
                i += 1
                for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    other = top.get(nb)
                    if nb not in seen and other is not None and family(other.kind) == fam:
                        seen.add(nb)
                        members.append(nb)
            group = tuple(sorted(members))
            for pos in group:
                out[pos] = group
        return out

    # --- queries --------------------------------------------------------------------------
    def cells_of(self, kind: CellKind) -> Iterator[Pos]:
        return (pos for pos, cell in self.top.items() if cell.kind is kind)

    def cubes_on(self, kinds: frozenset[CellKind]) -> int:
        top = self.top
        return sum(n for pos, (_, n) in self.cubes.items() if top[pos].kind in kinds)

    def cubes_by_colour(self) -> list[int]:
        """Cubes on every cell of the area (shops included), per colour."""
        out = [0, 0, 0, 0]
        for colour, n in self.cubes.values():
            out[colour] += n
        for shop in self.shops:
            for colour, n in enumerate(shop.cubes):
                out[colour] += n
        return out

    def shop_id_at(self, pos: Pos) -> int:
        return self.shop_at.get(pos, -1)
