"""Coffee Rush data: the ingredient board, the token box and the order cards.

The file format is documented in docs/coffee-rush-cards-format.md. Loading is strict: every
problem is collected and reported with the item it concerns, and nothing is half-loaded.
Cards with the same drink are interchangeable, so a card is represented by its drink's index.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from coffeetable.core.datafile import DataFileError, parse_toml, read_file
from coffeetable.core.errors import DataError

CARDS_FORMAT = "coffeetable.coffee-rush.cards/1"
SIZE = 4  # the board is SIZE x SIZE squares
SQUARES = SIZE * SIZE
CUPS = 3
COUNTERS = 4
#: cards needed to set up 4 players (2 + 1 for the start player, 1 + 1 for the others)
MIN_CARDS = 9
MAX_INGREDIENTS = 16
MAX_DRINKS = 255
_INGREDIENT_RE = re.compile(r"[a-z][a-z0-9-]*")


class CardsError(DataFileError):
    """An invalid card file. The message is one line; `problems` lists every problem."""

    what = "Coffee Rush card file"


@dataclass(frozen=True)
class Drink:
    name: str
    recipe: tuple[int, ...]  # token count per ingredient (box order)
    copies: int
    special: bool
    verified: bool
    less_luck: bool


def square_name(square: int) -> str:
    """Squares are written column letter + row number, `a1` top left, `d4` bottom right."""
    return "abcd"[square % SIZE] + str(square // SIZE + 1)


def parse_square(text: str) -> int:
    t = text.strip().lower()
    if len(t) == 2 and t[0] in "abcd" and t[1] in "1234":
        return (int(t[1]) - 1) * SIZE + "abcd".index(t[0])
    raise DataError(f"expected a square a1..d4 (column a-d, row 1-4 from the top), got {text!r}")


def _neighbours(square: int, diagonal: bool) -> tuple[int, ...]:
    r, c = divmod(square, SIZE)
    out = []
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0) or (not diagonal and dr and dc):
                continue
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                out.append(rr * SIZE + cc)
    return tuple(out)


#: ORTHOGONAL[sq] / ALL_NEIGHBOURS[sq]: squares one step away without / with Diagonal Move
ORTHOGONAL = tuple(_neighbours(s, False) for s in range(SQUARES))
ALL_NEIGHBOURS = tuple(_neighbours(s, True) for s in range(SQUARES))
CORNERS = frozenset({0, SIZE - 1, SQUARES - SIZE, SQUARES - 1})


@dataclass(frozen=True)
class CardSet:
    """Everything a game is played with: box, board and the order cards."""

    name: str
    version: int
    ingredients: tuple[str, ...]
    box: tuple[int, ...]  # tokens per ingredient
    rush: int
    board: tuple[int, ...]  # ingredient index per square (row-major)
    specialties: frozenset[int]  # ingredient indices
    drinks: tuple[Drink, ...]
    digest: str
    source: str
    by_name: dict[str, int] = field(init=False, repr=False, compare=False)
    by_recipe: dict[tuple[int, ...], tuple[int, ...]] = field(init=False, repr=False, compare=False)
    total_cards: int = field(init=False, repr=False, compare=False)  # the order deck's size

    def __post_init__(self) -> None:
        object.__setattr__(self, "total_cards", sum(d.copies for d in self.drinks))
        object.__setattr__(self, "by_name", {d.name.lower(): i for i, d in enumerate(self.drinks)})
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, d in enumerate(self.drinks):
            groups.setdefault(d.recipe, []).append(i)
        object.__setattr__(self, "by_recipe", {k: tuple(v) for k, v in groups.items()})

    def all_cards(self) -> list[int]:
        """Every card as a drink index, in file order."""
        return [i for i, d in enumerate(self.drinks) for _ in range(d.copies)]

    def drink_index(self, name: str) -> int:
        try:
            return self.by_name[name.strip().lower()]
        except KeyError:
            raise DataError(f"no drink called {name!r} in {self.name!r}") from None

    def ingredient_index(self, name: str) -> int:
        try:
            return self.ingredients.index(name.strip().lower())
        except ValueError:
            raise DataError(
                f"unknown ingredient {name!r}; ingredients: {', '.join(self.ingredients)}"
            ) from None

    def format_tokens(self, counts: tuple[int, ...] | list[int]) -> str:
        """`coffee+coffee+steam`, or `-` for none."""
        names = [self.ingredients[i] for i, n in enumerate(counts) for _ in range(n)]
        return "+".join(names) or "-"

    def tokens_list(self, counts: tuple[int, ...] | list[int]) -> list[str]:
        return [self.ingredients[i] for i, n in enumerate(counts) for _ in range(n)]

    def counts_of(self, names: list[str]) -> tuple[int, ...]:
        counts = [0] * len(self.ingredients)
        for n in names:
            counts[self.ingredient_index(n)] += 1
        return tuple(counts)


# --- loading -------------------------------------------------------------------------------


def load_cards(path: str | Path) -> CardSet:
    return parse_cards(*read_file(path, "card file"))


@lru_cache(maxsize=1)
def default_cards() -> CardSet:
    raw = resources.files("coffeetable.games.coffee_rush").joinpath("data/cards.toml").read_bytes()
    return parse_cards(raw, "coffeetable default Coffee Rush cards")


def parse_cards(raw: bytes, source: str) -> CardSet:
    """Parse and validate a card file; raise CardsError listing every problem found."""
    data = parse_toml(raw, source)
    problems: list[str] = []
    if data.get("format") != CARDS_FORMAT:
        problems.append(f"'format' must be {CARDS_FORMAT!r} (got {data.get('format')!r})")
    version = data.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        problems.append(f"'version' must be a whole number (got {version!r})")
        version = 0
    name = data.get("name", source)
    if not isinstance(name, str) or not name.strip():
        problems.append(f"'name' must be a non-empty string (got {name!r})")
        name = source
    ingredients, box, rush = _read_box(data.get("box"), problems)
    board: tuple[int, ...] = ()
    specialties: frozenset[int] = frozenset()
    drinks: list[Drink] = []
    if ingredients:  # the board and the recipes are checked against the box's ingredients
        board, specialties = _read_board(data.get("board"), ingredients, problems)
        drinks = _read_drinks(data.get("drink"), ingredients, box, problems)
    else:  # without valid ingredients, say only what else is missing
        if not isinstance(data.get("board"), dict):
            problems.append("a [board] table is required (rows, specialties)")
        if not isinstance(data.get("drink"), list) or not data.get("drink"):
            problems.append("no [[drink]] tables")
    if problems:
        raise CardsError(source, problems)
    return CardSet(
        name=name,
        version=version,
        ingredients=ingredients,
        box=box,
        rush=rush,
        board=board,
        specialties=specialties,
        drinks=tuple(drinks),
        digest=hashlib.sha256(raw).hexdigest(),
        source=source,
    )


def _whole(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _read_box(raw: Any, problems: list[str]) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    if not isinstance(raw, dict):
        problems.append("a [box] table is required (ingredients, tokens, rush)")
        return (), (), 0
    known = {"ingredients", "tokens", "rush", "source"}
    if extra := set(raw) - known:
        problems.append(f"[box]: unknown field(s) {', '.join(sorted(extra))}")
    names = raw.get("ingredients")
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and _INGREDIENT_RE.fullmatch(n) for n in names)
        or len(set(names)) != len(names)
        or len(names) > MAX_INGREDIENTS
    ):
        problems.append(
            f"[box] 'ingredients' must list 1 to {MAX_INGREDIENTS} different names of lower-case "
            f"letters, digits and '-' (got {names!r})"
        )
        return (), (), 0
    tokens = raw.get("tokens")
    box: list[int] = []
    if not isinstance(tokens, dict):
        problems.append("[box] 'tokens' must be a table: ingredient = number of tokens")
    else:
        for n in names:
            count: Any = tokens.get(n)
            if not _whole(count, 1):
                problems.append(f"[box] tokens: {n} needs a whole number of tokens >= 1")
            box.append(int(count) if _whole(count, 1) else 0)
        if extra := set(tokens) - set(names):
            problems.append(f"[box] tokens: not an ingredient: {', '.join(sorted(extra))}")
    rush: Any = raw.get("rush")
    if not _whole(rush, 0):
        problems.append(f"[box] 'rush' must be a whole number of rush tokens (got {rush!r})")
        rush = 0
    return tuple(names), tuple(box), int(rush)


def _read_board(
    raw: Any, ingredients: tuple[str, ...], problems: list[str]
) -> tuple[tuple[int, ...], frozenset[int]]:
    if not isinstance(raw, dict):
        problems.append("a [board] table is required (rows, specialties)")
        return (), frozenset()
    known = {"rows", "specialties", "source", "verified"}
    if extra := set(raw) - known:
        problems.append(f"[board]: unknown field(s) {', '.join(sorted(extra))}")
    rows = raw.get("rows")
    if (
        not isinstance(rows, list)
        or len(rows) != SIZE
        or not all(isinstance(r, list) and len(r) == SIZE for r in rows)
    ):
        problems.append(f"[board] 'rows' must be {SIZE} rows of {SIZE} ingredient names")
        return (), frozenset()
    board: list[int] = []
    for r, row in enumerate(rows):
        for c, item in enumerate(row):
            if item not in ingredients:
                problems.append(
                    f"[board] square {square_name(r * SIZE + c)}: {item!r} is not an ingredient of [box]"
                )
                board.append(0)
            else:
                board.append(ingredients.index(item))
    specs = raw.get("specialties", [])
    special: set[int] = set()
    if not isinstance(specs, list):
        problems.append("[board] 'specialties' must be a list of ingredient names")
    else:
        for item in specs:
            if item not in ingredients:
                problems.append(f"[board] specialties: {item!r} is not an ingredient of [box]")
            else:
                special.add(ingredients.index(item))
    return tuple(board), frozenset(special)


def _read_drinks(
    raw: Any, ingredients: tuple[str, ...], box: tuple[int, ...], problems: list[str]
) -> list[Drink]:
    if not isinstance(raw, list) or not raw:
        problems.append("no [[drink]] tables")
        return []
    if len(raw) > MAX_DRINKS:
        problems.append(f"at most {MAX_DRINKS} drinks (got {len(raw)})")
    drinks: list[Drink] = []
    names: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    known = {"name", "recipe", "copies", "special", "verified", "less_luck"}
    for n, rd in enumerate(raw):
        where = f"drink #{n + 1}"
        if not isinstance(rd, dict):
            problems.append(f"{where}: must be a table")
            continue
        name = rd.get("name")
        if not isinstance(name, str) or not name.strip() or name != " ".join(name.split()):
            problems.append(
                f"{where}: 'name' must be a non-empty string with single spaces between words"
            )
            continue
        where = f"drink {name!r}"
        names[name.lower()] += 1
        spelled.setdefault(name.lower(), name)
        if extra := set(rd) - known:
            problems.append(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        if not name.replace(" ", "").replace("-", "").replace("'", "").isalnum():
            problems.append(f"{where}: names use letters, digits, spaces, '-' and ''' only")
        recipe = rd.get("recipe")
        counts = [0] * len(ingredients)
        if not isinstance(recipe, list) or not recipe:
            problems.append(f"{where}: 'recipe' must be a non-empty list of ingredient names")
        else:
            for item in recipe:
                if item in ingredients:
                    counts[ingredients.index(item)] += 1
                else:
                    problems.append(f"{where}: {item!r} is not an ingredient of [box]")
            for i, k in enumerate(counts):
                if box and i < len(box) and box[i] and k > box[i]:
                    problems.append(
                        f"{where}: needs {k} {ingredients[i]} but the box has only {box[i]}"
                    )
        copies: Any = rd.get("copies")
        if not _whole(copies, 1):
            problems.append(f"{where}: 'copies' must be a whole number >= 1 (got {copies!r})")
            copies = 1
        flags = {}
        for flag, required in (("special", True), ("verified", True), ("less_luck", False)):
            value = rd.get(flag, None if required else False)
            if value is None:
                problems.append(
                    f"{where}: {flag!r} (true/false) is required"
                    + (
                        ": say whether the recipe was checked against the card"
                        if flag == "verified"
                        else ""
                    )
                )
                value = False
            elif not isinstance(value, bool):
                problems.append(f"{where}: {flag!r} must be true or false (got {value!r})")
                value = False
            flags[flag] = value
        drinks.append(
            Drink(
                name=name,
                recipe=tuple(counts),
                copies=int(copies),
                special=flags["special"],
                verified=flags["verified"],
                less_luck=flags["less_luck"],
            )
        )
    for key, k in names.items():
        if k > 1:
            problems.append(
                f"drink name {spelled[key]!r} is used {k} times (names must differ, ignoring case)"
            )
    total = sum(d.copies for d in drinks)
    if drinks and total < MIN_CARDS:
        problems.append(
            f"the deck needs at least {MIN_CARDS} cards to set up 4 players (got {total})"
        )
    return drinks


__all__ = [
    "ALL_NEIGHBOURS",
    "CORNERS",
    "COUNTERS",
    "CUPS",
    "ORTHOGONAL",
    "SQUARES",
    "CardSet",
    "CardsError",
    "Drink",
    "default_cards",
    "load_cards",
    "parse_cards",
    "parse_square",
    "square_name",
]
