"""Café card data: cell types, cards, decks, and the deck-file loader and validator.

The deck file format is documented in docs/cafe-deck-format.md. Loading is strict: every
problem is collected and reported with the card it concerns, and nothing is half-loaded.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from coffeetable.core.datafile import (
    COMMON_CODES,
    DataFileError,
    Problem,
    ProblemError,
    make_problem,
    model_problems,
    parse_toml,
    read_file,
    read_header,
    shown,
    toml_model,
)
from coffeetable.core.errors import DataError
from coffeetable.core.tomlwrite import dumps

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
    if len(counts) == 4:  # every count of cubes: written out, no generator (views call it often)
        yellow, brown, green, red = counts
        return "Y" * yellow + "B" * brown + "G" * green + "R" * red
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
    #: A card 'shows a cup icon' (must be bought) when it has a cup cell (Ruling C1); read
    #: from the cells when the card is made (a plain attribute: the compiled build's cards
    #: have no instance dict for a cached property).
    has_cup: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cup = any(cell.kind is CellKind.CUP for row in self.cells for cell in row)
        object.__setattr__(self, "has_cup", cup)

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
    _by_id: dict[str, CardSpec] = field(init=False, repr=False, compare=False)
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    _of_kind: dict[str, tuple[CardSpec, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {c.id: c for c in self.cards})
        object.__setattr__(self, "_index", {c.id: i for i, c in enumerate(self.cards)})
        kinds: dict[str, list[CardSpec]] = {}
        for c in self.cards:
            kinds.setdefault(c.kind, []).append(c)
        object.__setattr__(self, "_of_kind", {k: tuple(v) for k, v in kinds.items()})

    def card(self, card_id: str) -> CardSpec:
        try:
            return self._by_id[card_id]
        except KeyError:
            raise DataError(f"unknown card id {card_id!r} in deck {self.name!r}") from None

    def has_card(self, card_id: str) -> bool:
        return card_id in self._by_id

    def index(self, card_id: str) -> int:
        return self._index[card_id]

    def of_kind(self, kind: str) -> list[CardSpec]:
        """The cards of one kind, in deck order (a new list; sorted out once per deck: a
        game's set-up reads it several times)."""
        return list(self._of_kind.get(kind, ()))

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


#: Every problem a deck file may have: code -> English template (docs/cafe-deck-format.md).
PROBLEM_CODES: dict[str, str] = {
    **COMMON_CODES,
    "no_cards": "no [[card]] tables",
    "card_not_table": "must be a table",
    "bad_card_id": "'id' must be a non-empty string of letters, digits and '-'",
    "bad_kind": "'kind' must be one of {kinds} (got {got})",
    "start_needs_company": "a start card needs 'company', one of {companies}",
    "company_not_start": "only start cards have a 'company'",
    "bad_star": "'star' must be true/false, and only plan cards carry a star",
    "reconstructed_required": "'reconstructed' (true/false) is required: say where the card "
    "comes from",
    "bad_cells": "'cells' must be {rows} rows of {cols} tokens",
    "bad_cell_token": "unknown cell token {got}; valid: bean-Y/B/G/R, dry, roast, cup, ship, "
    "empty, shop-<letter>, espresso, supply, cake-<vp>, bonus-Y/B/G/R",
    "shops_not_table": "'shops' must be a table of shop keys",
    "shop_not_table": "shop '{shop}': must be a table",
    "bad_city": "shop '{shop}': 'city' must be a non-empty string",
    "bad_year": "shop '{shop}': 'year' must be an integer",
    "bad_requires": "shop '{shop}': 'requires' must be 1-6 colour letters (Y, B, G, R)",
    "bad_colour": "shop '{shop}': unknown colour {got}; colours are Y (yellow), B (brown), "
    "G (green), R (red)",
    "bad_vp": "shop '{shop}': 'vp' must be an integer from 0 to {max}",
    "bad_shop_name": "shop '{shop}': 'name' must be a string",
    "shop_without_table": "cell token shop-{shop} has no [shops.{shop}] table",
    "shop_too_big": "shop '{shop}' covers {cells} cells; a shop covers 1 or 2",
    "shop_not_adjacent": "the two cells of shop '{shop}' must be orthogonally adjacent",
    "shop_without_cell": "shop '{shop}' is described but no cell shows shop-{shop}",
    "duplicate_id": "duplicate id",
    "start_cards": "need exactly one start card per company ({companies}); found {count}: {found}",
    "start_missing_icons": "a start card shows every action icon; missing {missing}",
    "plan_count": "need exactly {need} plan cards, found {count}",
    "star_count": "need exactly {need} plan cards with star = true, found {count}",
    "espresso_count": "the Espresso expansion has {need} cards; found {count}",
    "expansion_cell": "expansion cell {token} only belongs on espresso cards",
    "unknown_promo": "unknown promo id; known: {known}",
    "shop_not_in_appendix": "shop '{shop}' ({city} {year}) is not one of the 23 shops named in "
    "the rulebook appendix",
}
MAX_VP = 20
#: The key order of the canonical deck file (core/tomlwrite.py).
FILE_ORDER = {
    "": ("format", "name", "version", "provenance", "history", "card"),
    "card": ("id", "kind", "company", "star", "reconstructed", "cells", "shops"),
    "card.shops.*": ("city", "year", "requires", "vp", "name"),
}


def _problem(code: str, **kw: Any) -> Problem:
    return make_problem(PROBLEM_CODES, code, **kw)


@dataclass(frozen=True)
class DeckReading:
    """What a deck file says, valid or not: its name and version, the cards that could be
    read (in file order, with their positions in the file) and every problem found."""

    name: str
    version: int
    cards: tuple[tuple[int, CardSpec], ...]
    problems: tuple[Problem, ...]
    model: dict[str, Any]


def read_deck(raw: bytes, source: str) -> DeckReading:
    """Read a deck file, collecting every problem (UnreadableError if it is not TOML)."""
    data = parse_toml(raw, source)
    return read_deck_data(data, source)


def read_deck_data(data: dict[str, Any], source: str) -> DeckReading:
    """`read_deck` of a parsed document."""
    problems: list[Problem] = list(model_problems(data))
    name, version = read_header(data, source, problems)
    cards = _read_cards(data, problems)
    if not problems:
        problems.extend(validate_cards([c for _, c in cards], [i for i, _ in cards]))
    return DeckReading(name, version, tuple(cards), tuple(problems), toml_model(data))


def parse_deck(raw: bytes, source: str) -> Deck:
    """Parse and validate a deck file; raise DeckError listing every problem found."""
    return deck_of(read_deck(raw, source), hashlib.sha256(raw).hexdigest(), source)


def deck_of(reading: DeckReading, digest: str, source: str) -> Deck:
    """The deck a reading of a file describes (`digest`: the file's sha256); raise
    DeckError listing every problem the reading found."""
    if reading.problems:
        raise DeckError(source, list(reading.problems))
    return Deck(
        name=reading.name,
        version=reading.version,
        cards=tuple(card for _, card in reading.cards),
        digest=digest,
        source=source,
    )


def deck_toml(model: dict[str, Any]) -> str:
    """The canonical text of a deck file's JSON model (`DeckReading.model`)."""
    return dumps(model, FILE_ORDER)


def _read_cards(data: dict[str, Any], problems: list[Problem]) -> list[tuple[int, CardSpec]]:
    if data.get("format") != DECK_FORMAT:
        problems.append(
            _problem(
                "bad_format",
                field="format",
                expected=repr(DECK_FORMAT),
                got=shown(data.get("format")),
            )
        )
        return []
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        problems.append(_problem("no_cards", field="card"))
        return []
    cards: list[tuple[int, CardSpec]] = []
    for n, rc in enumerate(raw_cards):
        try:
            cards.append((n, _read_card(rc, n)))
        except ProblemError as exc:
            problems.append(exc.problem)
    return cards


def _read_card(rc: Any, index: int) -> CardSpec:
    where = f"card #{index + 1}"
    if not isinstance(rc, dict):
        raise ProblemError(_problem("card_not_table", where=where, index=index))
    card_id = rc.get("id")
    if not isinstance(card_id, str) or not card_id or not card_id.replace("-", "").isalnum():
        raise ProblemError(_problem("bad_card_id", where=where, index=index, field="id"))

    def fail(code: str, field: str | None = None, **params: Any) -> ProblemError:
        return ProblemError(
            _problem(
                code, where=f"card {card_id}", card=card_id, index=index, field=field, **params
            )
        )

    known = {"id", "kind", "company", "star", "reconstructed", "cells", "shops"}
    extra = set(rc) - known
    if extra:
        raise fail("unknown_fields", fields=", ".join(sorted(extra)))
    kind = rc.get("kind")
    if kind not in CARD_KINDS:
        raise fail("bad_kind", "kind", kinds=", ".join(CARD_KINDS), got=shown(kind))
    company = rc.get("company")
    if kind == "start":
        if company not in COMPANIES:
            raise fail("start_needs_company", "company", companies=", ".join(COMPANIES))
    elif company is not None:
        raise fail("company_not_start", "company")
    star = rc.get("star", False)
    if not isinstance(star, bool) or (star and kind != "plan"):
        raise fail("bad_star", "star")
    reconstructed = rc.get("reconstructed")
    if not isinstance(reconstructed, bool):
        raise fail("reconstructed_required", "reconstructed")
    rows = rc.get("cells")
    if (
        not isinstance(rows, list)
        or len(rows) != ROWS
        or not all(isinstance(r, list) and len(r) == COLS for r in rows)
    ):
        raise fail("bad_cells", "cells", rows=ROWS, cols=COLS)
    cell_rows = []
    for r, row in enumerate(rows):
        cell_row = []
        for c, token in enumerate(row):
            try:
                cell_row.append(CellSpec.from_token(token))
            except DataError:
                raise fail("bad_cell_token", f"cells[{r}][{c}]", got=shown(token)) from None
        cell_rows.append(tuple(cell_row))
    cells = tuple(cell_rows)
    raw_shops = rc.get("shops", {})
    if not isinstance(raw_shops, dict):
        raise fail("shops_not_table", "shops")
    shops: dict[str, ShopSpec] = {}
    for key, rs in raw_shops.items():
        shops[key] = _read_shop(rs, key, fail, f"shops.{key}")
    _check_shop_cells(cells, shops, fail)
    return CardSpec(
        id=card_id,
        kind=kind,
        cells=cells,
        shops=shops,
        company=company,
        star=star,
        reconstructed=reconstructed,
    )


def _read_shop(rs: Any, shop: str, fail: Any, path: str) -> ShopSpec:
    if not isinstance(rs, dict):
        raise fail("shop_not_table", path, shop=shop)
    extra = set(rs) - {"city", "year", "requires", "vp", "name"}
    if extra:
        raise fail("unknown_fields", path, fields=", ".join(sorted(extra)))
    city, year, requires, vp, name = (rs.get(k) for k in ("city", "year", "requires", "vp", "name"))
    if not isinstance(city, str) or not city:
        raise fail("bad_city", f"{path}.city", shop=shop)
    if year is not None and (not isinstance(year, int) or isinstance(year, bool)):
        raise fail("bad_year", f"{path}.year", shop=shop)
    if not isinstance(requires, str) or not 1 <= len(requires) <= 6:
        raise fail("bad_requires", f"{path}.requires", shop=shop)
    bad = [ch for ch in requires if len(ch) != 1 or ch.upper() not in COLOURS]
    if bad:
        raise fail("bad_colour", f"{path}.requires", shop=shop, got=shown(bad[0]))
    counts = parse_colours(requires)
    if not isinstance(vp, int) or isinstance(vp, bool) or not 0 <= vp <= MAX_VP:
        raise fail("bad_vp", f"{path}.vp", shop=shop, max=MAX_VP)
    if name is not None and not isinstance(name, str):
        raise fail("bad_shop_name", f"{path}.name", shop=shop)
    return ShopSpec(city=city, year=year, requires=counts, vp=vp, name=name)


def _check_shop_cells(
    cells: tuple[tuple[CellSpec, ...], ...], shops: dict[str, ShopSpec], fail: Any
) -> None:
    positions: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if cell.kind is CellKind.SHOP:
                positions.setdefault(cell.shop, []).append((r, c))
    for key, cells_of in positions.items():
        if key not in shops:
            raise fail("shop_without_table", "cells", shop=key)
        if len(cells_of) > 2:
            raise fail("shop_too_big", "cells", shop=key, cells=len(cells_of))
        if len(cells_of) == 2:
            (r1, c1), (r2, c2) = cells_of
            if abs(r1 - r2) + abs(c1 - c2) != 1:
                raise fail("shop_not_adjacent", "cells", shop=key)
    for key in shops:
        if key not in positions:
            raise fail("shop_without_cell", f"shops.{key}", shop=key)


def validate_cards(cards: list[CardSpec], positions: list[int] | None = None) -> list[Problem]:
    """Check a card list against the known facts (counts, shops from the appendix).
    `positions`: each card's index in its file (default: its index in `cards`)."""
    problems: list[Problem] = []
    where_of = dict(zip((c.id for c in cards), positions or range(len(cards)), strict=False))

    def on(card: CardSpec, code: str, field: str | None = None, **params: Any) -> Problem:
        return _problem(
            code,
            where=f"card {card.id}",
            card=card.id,
            index=where_of.get(card.id),
            field=field,
            **params,
        )

    seen: set[str] = set()
    for n, card in enumerate(cards):
        if card.id in seen:
            index = positions[n] if positions else n
            problems.append(
                _problem(
                    "duplicate_id", where=f"card {card.id}", card=card.id, index=index, field="id"
                )
            )
        seen.add(card.id)
    by_kind = {k: [c for c in cards if c.kind == k] for k in CARD_KINDS}
    starts = by_kind["start"]
    companies = sorted(c.company or "" for c in starts)
    if len(starts) != len(COMPANIES) or set(companies) != set(COMPANIES):
        problems.append(
            _problem(
                "start_cards",
                companies=", ".join(COMPANIES),
                count=len(starts),
                found=", ".join(companies) or "none",
            )
        )
    for card in starts:
        kinds = {cell.kind for row in card.cells for cell in row}
        missing = [
            k.name.lower()
            for k in (CellKind.BEAN, CellKind.DRY, CellKind.ROAST, CellKind.CUP, CellKind.SHOP)
            if k not in kinds
        ]
        if missing:
            problems.append(on(card, "start_missing_icons", "cells", missing=", ".join(missing)))
    plans = by_kind["plan"]
    if len(plans) != PLAN_CARDS:
        problems.append(_problem("plan_count", need=PLAN_CARDS, count=len(plans)))
    stars = sum(1 for c in plans if c.star)
    if stars != STAR_CARDS:
        problems.append(_problem("star_count", need=STAR_CARDS, count=stars))
    espresso = by_kind["espresso"]
    if espresso and len(espresso) != ESPRESSO_CARDS:
        problems.append(_problem("espresso_count", need=ESPRESSO_CARDS, count=len(espresso)))
    appendix, promos = _appendix()
    for card in cards:
        for cell in (cell for row in card.cells for cell in row):
            if cell.kind in EXPANSION_KINDS and card.kind != "espresso":
                problems.append(on(card, "expansion_cell", "cells", token=cell.token))
        if card.kind == "promo":
            if card.id not in promos:
                problems.append(on(card, "unknown_promo", "id", known=", ".join(sorted(promos))))
            continue
        for key, shop in card.shops.items():
            if shop.year is None or (shop.city, shop.year) not in appendix:
                problems.append(
                    on(
                        card,
                        "shop_not_in_appendix",
                        f"shops.{key}",
                        shop=key,
                        city=shop.city,
                        year=shop.year,
                    )
                )
    return problems
