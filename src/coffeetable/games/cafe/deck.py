"""Café card data: cell types, cards, decks, and the deck-file loader and validator.

The deck file format is documented in docs/cafe-deck-format.md. Loading is strict: every
problem is collected and reported with the card it concerns, and nothing is half-loaded.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from coffeetable.core.datafile import DataFileError, parse_toml, read_file
from coffeetable.core.errors import DataError

DECK_FORMAT = "coffeetable.cafe.deck/1"
COLOURS = "YBGR"  # yellow, brown, green, red
COLOUR_NAMES = ("yellow", "brown", "green", "red")
ROWS, COLS = 2, 3
COMPANIES = ("Brazil", "São Tomé and Príncipe", "Angola", "Timor")
CARD_KINDS = ("start", "plan", "espresso", "promo")
PLAN_CARDS, STAR_CARDS, ESPRESSO_CARDS = 48, 8, 8


class DeckError(DataFileError):
    """An invalid deck file. The message is one line; `problems` lists every problem."""

    what = "deck"


class CellKind(IntEnum):
    EMPTY = 0
    BEAN = 1
    DRY = 2
    ROAST = 3
    CUP = 4
    SHIP = 5
    SHOP = 6
    ESPRESSO = 7
    SUPPLY = 8
    CAKE = 9
    BONUS = 10


#: Cells that Produce fills (bean groups are made of these).
BEAN_LIKE = frozenset({CellKind.BEAN, CellKind.SUPPLY, CellKind.BONUS})
#: Cells whose cubes may be cleared for free.
CLEARABLE = frozenset(
    {CellKind.BEAN, CellKind.SUPPLY, CellKind.BONUS, CellKind.DRY, CellKind.ROAST}
)
EXPANSION_KINDS = frozenset({CellKind.ESPRESSO, CellKind.SUPPLY, CellKind.CAKE, CellKind.BONUS})
_SIMPLE_TOKENS = {
    "empty": CellKind.EMPTY,
    "dry": CellKind.DRY,
    "roast": CellKind.ROAST,
    "cup": CellKind.CUP,
    "ship": CellKind.SHIP,
    "espresso": CellKind.ESPRESSO,
    "supply": CellKind.SUPPLY,
}


def colour_index(letter: str) -> int:
    i = COLOURS.find(letter.upper()) if len(letter) == 1 else -1
    if i < 0:
        raise DataError(
            f"unknown colour {letter!r}; colours are Y (yellow), B (brown), G (green), R (red)"
        )
    return i


def parse_colours(text: str) -> tuple[int, int, int, int]:
    """'YYB' -> counts per colour (Y, B, G, R)."""
    counts = [0, 0, 0, 0]
    for ch in text:
        counts[colour_index(ch)] += 1
    return counts[0], counts[1], counts[2], counts[3]


def format_colours(counts: tuple[int, ...] | list[int]) -> str:
    return "".join(COLOURS[c] * n for c, n in enumerate(counts))


@dataclass(frozen=True, slots=True)
class CellSpec:
    """One printed cell. `colour` for bean/bonus cells, `shop` (key) for shop cells,
    `value` for cake cells."""

    kind: CellKind
    colour: int = -1
    shop: str = ""
    value: int = 0

    @property
    def token(self) -> str:
        k = self.kind
        if k is CellKind.BEAN:
            return f"bean-{COLOURS[self.colour]}"
        if k is CellKind.BONUS:
            return f"bonus-{COLOURS[self.colour]}"
        if k is CellKind.SHOP:
            return f"shop-{self.shop}"
        if k is CellKind.CAKE:
            return f"cake-{self.value}"
        return k.name.lower()

    @classmethod
    def from_token(cls, token: str) -> CellSpec:
        if not isinstance(token, str):
            raise DataError(f"a cell must be a string token, got {token!r}")
        if token in _SIMPLE_TOKENS:
            return cls(_SIMPLE_TOKENS[token])
        head, sep, tail = token.partition("-")
        if sep and head in ("bean", "bonus") and len(tail) == 1 and tail in COLOURS:
            return cls(
                CellKind.BEAN if head == "bean" else CellKind.BONUS, colour=COLOURS.index(tail)
            )
        if sep and head == "shop" and len(tail) == 1 and tail.isalpha() and tail.islower():
            return cls(CellKind.SHOP, shop=tail)
        if sep and head == "cake" and tail.isdigit() and 1 <= int(tail) <= 9:
            return cls(CellKind.CAKE, value=int(tail))
        raise DataError(
            f"unknown cell token {token!r}; valid: bean-Y/B/G/R, dry, roast, cup, ship, empty, "
            "shop-<letter>, espresso, supply, cake-<vp>, bonus-Y/B/G/R"
        )


@dataclass(frozen=True, slots=True)
class ShopSpec:
    city: str
    year: int | None
    requires: tuple[int, int, int, int]
    vp: int
    name: str | None = None

    @property
    def label(self) -> str:
        base = f"{self.city} {self.year}" if self.year is not None else self.city
        return f"{self.name} ({base})" if self.name else base

    @property
    def size(self) -> int:
        return sum(self.requires)


@dataclass(frozen=True)
class CardSpec:
    id: str
    kind: str
    cells: tuple[tuple[CellSpec, ...], ...]  # 2 rows x 3 columns
    shops: dict[str, ShopSpec] = field(default_factory=dict)
    company: str | None = None
    star: bool = False
    reconstructed: bool = True

    @cached_property
    def has_cup(self) -> bool:
        """A card 'shows a cup icon' (must be bought) when it has a cup cell (Ruling C1)."""
        return any(cell.kind is CellKind.CUP for row in self.cells for cell in row)

    @property
    def name(self) -> str:
        if self.company:
            return f"{self.company} start card"
        return " / ".join(s.label for s in self.shops.values()) or self.id


@dataclass(frozen=True)
class Deck:
    name: str
    version: int
    cards: tuple[CardSpec, ...]
    digest: str  # sha256 of the file's bytes
    source: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {c.id: c for c in self.cards})
        object.__setattr__(self, "_index", {c.id: i for i, c in enumerate(self.cards)})

    def card(self, card_id: str) -> CardSpec:
        try:
            return self._by_id[card_id]  # type: ignore[attr-defined, no-any-return]
        except KeyError:
            raise DataError(f"unknown card id {card_id!r} in deck {self.name!r}") from None

    def has_card(self, card_id: str) -> bool:
        return card_id in self._by_id  # type: ignore[attr-defined]

    def index(self, card_id: str) -> int:
        return self._index[card_id]  # type: ignore[attr-defined, no-any-return]

    def of_kind(self, kind: str) -> list[CardSpec]:
        return [c for c in self.cards if c.kind == kind]

    def start_card(self, company: str) -> CardSpec:
        for c in self.cards:
            if c.kind == "start" and c.company == company:
                return c
        raise DataError(f"deck {self.name!r} has no start card for {company}")


# --- loading --------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _appendix() -> tuple[frozenset[tuple[str, int]], dict[str, dict[str, Any]]]:
    raw = resources.files("coffeetable.games.cafe").joinpath("data/appendix.toml").read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    shops = frozenset((str(city), int(year)) for city, year in data["shops"])
    promos = {str(p["id"]): dict(p) for p in data["promo"]}
    return shops, promos


def appendix_shops() -> frozenset[tuple[str, int]]:
    return _appendix()[0]


def load_deck(path: str | Path) -> Deck:
    return parse_deck(*read_file(path, "deck file"))


@lru_cache(maxsize=1)
def default_deck() -> Deck:
    raw = resources.files("coffeetable.games.cafe").joinpath("data/deck.toml").read_bytes()
    return parse_deck(raw, "coffeetable default deck")


def parse_deck(raw: bytes, source: str) -> Deck:
    """Parse and validate a deck file; raise DataError listing every problem found."""
    data = parse_toml(raw, source)
    problems: list[str] = []
    version = data.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        problems.append(f"'version' must be a whole number (got {version!r})")
        version = 0
    name = data.get("name", source)
    if not isinstance(name, str):
        problems.append(f"'name' must be a string (got {name!r})")
    cards = _read_cards(data, problems)
    if not problems:
        problems.extend(validate_cards(cards))
    if problems:
        raise DeckError(source, problems)
    return Deck(
        name=str(name),
        version=version,
        cards=tuple(cards),
        digest=hashlib.sha256(raw).hexdigest(),
        source=source,
    )


def _read_cards(data: dict[str, Any], problems: list[str]) -> list[CardSpec]:
    if data.get("format") != DECK_FORMAT:
        problems.append(f"'format' must be {DECK_FORMAT!r} (got {data.get('format')!r})")
        return []
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        problems.append("no [[card]] tables")
        return []
    cards: list[CardSpec] = []
    for n, rc in enumerate(raw_cards):
        where = f"card #{n + 1}"
        try:
            cards.append(_read_card(rc, where))
        except DataError as exc:
            problems.append(str(exc))
    return cards


def _read_card(rc: Any, where: str) -> CardSpec:
    if not isinstance(rc, dict):
        raise DataError(f"{where}: must be a table")
    card_id = rc.get("id")
    if not isinstance(card_id, str) or not card_id or not card_id.replace("-", "").isalnum():
        raise DataError(f"{where}: 'id' must be a non-empty string of letters, digits and '-'")
    where = f"card {card_id}"
    known = {"id", "kind", "company", "star", "reconstructed", "cells", "shops"}
    extra = set(rc) - known
    if extra:
        raise DataError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    kind = rc.get("kind")
    if kind not in CARD_KINDS:
        raise DataError(f"{where}: 'kind' must be one of {', '.join(CARD_KINDS)} (got {kind!r})")
    company = rc.get("company")
    if kind == "start":
        if company not in COMPANIES:
            raise DataError(f"{where}: a start card needs 'company', one of {', '.join(COMPANIES)}")
    elif company is not None:
        raise DataError(f"{where}: only start cards have a 'company'")
    star = rc.get("star", False)
    if not isinstance(star, bool) or (star and kind != "plan"):
        raise DataError(f"{where}: 'star' must be true/false, and only plan cards carry a star")
    reconstructed = rc.get("reconstructed")
    if not isinstance(reconstructed, bool):
        raise DataError(
            f"{where}: 'reconstructed' (true/false) is required: say where the card comes from"
        )
    rows = rc.get("cells")
    if (
        not isinstance(rows, list)
        or len(rows) != ROWS
        or not all(isinstance(r, list) and len(r) == COLS for r in rows)
    ):
        raise DataError(f"{where}: 'cells' must be {ROWS} rows of {COLS} tokens")
    try:
        cells = tuple(tuple(CellSpec.from_token(t) for t in row) for row in rows)
    except DataError as exc:
        raise DataError(f"{where}: {exc}") from None
    raw_shops = rc.get("shops", {})
    if not isinstance(raw_shops, dict):
        raise DataError(f"{where}: 'shops' must be a table of shop keys")
    shops: dict[str, ShopSpec] = {}
    for key, rs in raw_shops.items():
        shops[key] = _read_shop(rs, f"{where} shop {key!r}")
    _check_shop_cells(cells, shops, where)
    return CardSpec(
        id=card_id,
        kind=kind,
        cells=cells,
        shops=shops,
        company=company,
        star=star,
        reconstructed=reconstructed,
    )


def _read_shop(rs: Any, where: str) -> ShopSpec:
    if not isinstance(rs, dict):
        raise DataError(f"{where}: must be a table")
    extra = set(rs) - {"city", "year", "requires", "vp", "name"}
    if extra:
        raise DataError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    city, year, requires, vp, name = (rs.get(k) for k in ("city", "year", "requires", "vp", "name"))
    if not isinstance(city, str) or not city:
        raise DataError(f"{where}: 'city' must be a non-empty string")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool)):
        raise DataError(f"{where}: 'year' must be an integer")
    if not isinstance(requires, str) or not 1 <= len(requires) <= 6:
        raise DataError(f"{where}: 'requires' must be 1-6 colour letters (Y, B, G, R)")
    try:
        counts = parse_colours(requires)
    except DataError as exc:
        raise DataError(f"{where}: {exc}") from None
    if not isinstance(vp, int) or isinstance(vp, bool) or not 0 <= vp <= 20:
        raise DataError(f"{where}: 'vp' must be an integer from 0 to 20")
    if name is not None and not isinstance(name, str):
        raise DataError(f"{where}: 'name' must be a string")
    return ShopSpec(city=city, year=year, requires=counts, vp=vp, name=name)


def _check_shop_cells(
    cells: tuple[tuple[CellSpec, ...], ...], shops: dict[str, ShopSpec], where: str
) -> None:
    positions: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if cell.kind is CellKind.SHOP:
                positions.setdefault(cell.shop, []).append((r, c))
    for key, cells_of in positions.items():
        if key not in shops:
            raise DataError(f"{where}: cell token shop-{key} has no [shops.{key}] table")
        if len(cells_of) > 2:
            raise DataError(
                f"{where}: shop {key!r} covers {len(cells_of)} cells; a shop covers 1 or 2"
            )
        if len(cells_of) == 2:
            (r1, c1), (r2, c2) = cells_of
            if abs(r1 - r2) + abs(c1 - c2) != 1:
                raise DataError(
                    f"{where}: the two cells of shop {key!r} must be orthogonally adjacent"
                )
    for key in shops:
        if key not in positions:
            raise DataError(f"{where}: shop {key!r} is described but no cell shows shop-{key}")


def validate_cards(cards: list[CardSpec]) -> list[str]:
    """Check a card list against the known facts (counts, shops from the appendix)."""
    problems: list[str] = []
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            problems.append(f"card {card.id}: duplicate id")
        seen.add(card.id)
    by_kind = {k: [c for c in cards if c.kind == k] for k in CARD_KINDS}
    starts = by_kind["start"]
    companies = sorted(c.company or "" for c in starts)
    if len(starts) != len(COMPANIES) or set(companies) != set(COMPANIES):
        problems.append(
            f"need exactly one start card per company ({', '.join(COMPANIES)}); "
            f"found {len(starts)}: {', '.join(companies) or 'none'}"
        )
    for card in starts:
        kinds = {cell.kind for row in card.cells for cell in row}
        missing = [
            k.name.lower()
            for k in (CellKind.BEAN, CellKind.DRY, CellKind.ROAST, CellKind.CUP, CellKind.SHOP)
            if k not in kinds
        ]
        if missing:
            problems.append(
                f"card {card.id}: a start card shows every action icon; missing {', '.join(missing)}"
            )
    plans = by_kind["plan"]
    if len(plans) != PLAN_CARDS:
        problems.append(f"need exactly {PLAN_CARDS} plan cards, found {len(plans)}")
    stars = sum(1 for c in plans if c.star)
    if stars != STAR_CARDS:
        problems.append(f"need exactly {STAR_CARDS} plan cards with star = true, found {stars}")
    espresso = by_kind["espresso"]
    if espresso and len(espresso) != ESPRESSO_CARDS:
        problems.append(f"the Espresso expansion has {ESPRESSO_CARDS} cards; found {len(espresso)}")
    appendix, promos = _appendix()
    for card in cards:
        for cell in (cell for row in card.cells for cell in row):
            if cell.kind in EXPANSION_KINDS and card.kind != "espresso":
                problems.append(
                    f"card {card.id}: expansion cell {cell.token} only belongs on espresso cards"
                )
        if card.kind == "promo":
            if card.id not in promos:
                problems.append(
                    f"card {card.id}: unknown promo id; known: {', '.join(sorted(promos))}"
                )
            continue
        for key, shop in card.shops.items():
            if shop.year is None or (shop.city, shop.year) not in appendix:
                problems.append(
                    f"card {card.id}: shop {key!r} ({shop.city} {shop.year}) is not one of the "
                    "23 shops named in the rulebook appendix"
                )
    return problems
