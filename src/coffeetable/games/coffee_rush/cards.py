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

from coffeetable.core.datafile import (
    COMMON_CODES,
    INT_MAX,
    DataFileError,
    Problem,
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


#: Every problem a card file may have: code -> English template
#: (docs/coffee-rush-cards-format.md).
PROBLEM_CODES: dict[str, str] = {
    **COMMON_CODES,
    "no_box": "a [box] table is required (ingredients, tokens, rush)",
    "bad_ingredients": "'ingredients' must list 1 to {max} different names of lower-case "
    "letters, digits and '-' (got {got})",
    "tokens_not_table": "'tokens' must be a table: ingredient = number of tokens",
    "bad_token_count": "{ingredient} needs a whole number of tokens from 1 to {max}",
    "tokens_not_ingredient": "not an ingredient: {names}",
    "bad_rush": "'rush' must be a whole number of rush tokens from 0 to {max} (got {got})",
    "no_board": "a [board] table is required (rows, specialties)",
    "bad_board_rows": "'rows' must be {size} rows of {size} ingredient names",
    "board_not_ingredient": "{got} is not an ingredient of [box]",
    "specialties_not_list": "'specialties' must be a list of ingredient names",
    "specialty_not_ingredient": "{got} is not an ingredient of [box]",
    "no_drinks": "no [[drink]] tables",
    "too_many_drinks": "at most {max} drinks (got {count})",
    "drink_not_table": "must be a table",
    "bad_drink_name": "'name' must be a non-empty string with single spaces between words",
    "drink_name_chars": "names use letters, digits, spaces, '-' and apostrophes only",
    "bad_recipe": "'recipe' must be a non-empty list of ingredient names",
    "recipe_not_ingredient": "{got} is not an ingredient of [box]",
    "recipe_over_box": "needs {need} {ingredient} but the box has only {have}",
    "bad_copies": "'copies' must be a whole number from 1 to {max} (got {got})",
    "verified_required": "'verified' (true/false) is required: say whether the recipe was "
    "checked against the card",
    "flag_required": "'{flag}' (true/false) is required",
    "bad_flag": "'{flag}' must be true or false (got {got})",
    "duplicate_drink": "drink name '{name}' is used {count} times (names must differ, ignoring case)",
    "too_few_cards": "the deck needs at least {min} cards to set up 4 players (got {count})",
}
#: Bounds on counts (a file may not ask for a million tokens or cards).
MAX_TOKENS = 99
MAX_RUSH = 99
MAX_COPIES = 99
#: The key order of the canonical card file (core/tomlwrite.py).
FILE_ORDER = {
    "": ("format", "name", "version", "box", "board", "drink"),
    "box": ("ingredients", "tokens", "rush", "source"),
    "board": ("rows", "specialties", "source", "verified"),
    "drink": ("name", "recipe", "copies", "special", "verified", "less_luck"),
}


def _problem(code: str, **kw: Any) -> Problem:
    return make_problem(PROBLEM_CODES, code, **kw)


@dataclass(frozen=True)
class CardsReading:
    """What a card file says, valid or not: the box and board if they could be read, the
    drinks that could be read (with their positions in the file) and every problem."""

    name: str
    version: int
    ingredients: tuple[str, ...]
    box: tuple[int, ...]
    rush: int
    board: tuple[int, ...]
    specialties: frozenset[int]
    drinks: tuple[tuple[int, Drink], ...]
    problems: tuple[Problem, ...]
    model: dict[str, Any]


def read_cards(raw: bytes, source: str) -> CardsReading:
    """Read a card file, collecting every problem (UnreadableError if it is not TOML)."""
    return read_cards_data(parse_toml(raw, source), source)


def read_cards_data(data: dict[str, Any], source: str) -> CardsReading:
    """`read_cards` of a parsed document."""
    problems: list[Problem] = list(model_problems(data))
    if data.get("format") != CARDS_FORMAT:
        problems.append(
            _problem(
                "bad_format",
                field="format",
                expected=repr(CARDS_FORMAT),
                got=shown(data.get("format")),
            )
        )
    name, version = read_header(data, source, problems)
    ingredients, box, rush = _read_box(data.get("box"), problems)
    board: tuple[int, ...] = ()
    specialties: frozenset[int] = frozenset()
    drinks: list[tuple[int, Drink]] = []
    if ingredients:  # the board and the recipes are checked against the box's ingredients
        board, specialties = _read_board(data.get("board"), ingredients, problems)
        drinks = _read_drinks(data.get("drink"), ingredients, box, problems)
    else:  # without valid ingredients, say only what else is missing
        if not isinstance(data.get("board"), dict):
            problems.append(_problem("no_board", field="board"))
        if not isinstance(data.get("drink"), list) or not data.get("drink"):
            problems.append(_problem("no_drinks", field="drink"))
    return CardsReading(
        name=name,
        version=version,
        ingredients=ingredients,
        box=box,
        rush=rush,
        board=board,
        specialties=specialties,
        drinks=tuple(drinks),
        problems=tuple(problems),
        model=toml_model(data),
    )


def parse_cards(raw: bytes, source: str) -> CardSet:
    """Parse and validate a card file; raise CardsError listing every problem found."""
    return cards_of(read_cards(raw, source), hashlib.sha256(raw).hexdigest(), source)


def cards_of(reading: CardsReading, digest: str, source: str) -> CardSet:
    """The card set a reading of a file describes (`digest`: the file's sha256); raise
    CardsError listing every problem the reading found."""
    if reading.problems:
        raise CardsError(source, list(reading.problems))
    return CardSet(
        name=reading.name,
        version=reading.version,
        ingredients=reading.ingredients,
        box=reading.box,
        rush=reading.rush,
        board=reading.board,
        specialties=reading.specialties,
        drinks=tuple(d for _, d in reading.drinks),
        digest=digest,
        source=source,
    )


def cards_toml(model: dict[str, Any]) -> str:
    """The canonical text of a card file's JSON model (`CardsReading.model`)."""
    return dumps(model, FILE_ORDER)


def _whole(value: Any, minimum: int, maximum: int = INT_MAX) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= maximum


def _read_box(raw: Any, problems: list[Problem]) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    if not isinstance(raw, dict):
        problems.append(_problem("no_box", field="box"))
        return (), (), 0
    known = {"ingredients", "tokens", "rush", "source"}
    if extra := set(raw) - known:
        problems.append(
            _problem("unknown_fields", where="[box]", field="box", fields=", ".join(sorted(extra)))
        )
    names = raw.get("ingredients")
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and _INGREDIENT_RE.fullmatch(n) for n in names)
        or len(set(names)) != len(names)
        or len(names) > MAX_INGREDIENTS
    ):
        problems.append(
            _problem(
                "bad_ingredients",
                where="[box]",
                field="box.ingredients",
                max=MAX_INGREDIENTS,
                got=shown(names),
            )
        )
        return (), (), 0
    tokens = raw.get("tokens")
    box: list[int] = []
    if not isinstance(tokens, dict):
        problems.append(_problem("tokens_not_table", where="[box]", field="box.tokens"))
    else:
        for n in names:
            count: Any = tokens.get(n)
            ok = _whole(count, 1, MAX_TOKENS)
            if not ok:
                problems.append(
                    _problem(
                        "bad_token_count",
                        where="[box] tokens",
                        field=f"box.tokens.{n}",
                        ingredient=n,
                        max=MAX_TOKENS,
                    )
                )
            box.append(int(count) if ok else 0)
        if extra := set(tokens) - set(names):
            problems.append(
                _problem(
                    "tokens_not_ingredient",
                    where="[box] tokens",
                    field="box.tokens",
                    names=", ".join(sorted(extra)),
                )
            )
    rush: Any = raw.get("rush")
    if not _whole(rush, 0, MAX_RUSH):
        problems.append(
            _problem("bad_rush", where="[box]", field="box.rush", max=MAX_RUSH, got=shown(rush))
        )
        rush = 0
    return tuple(names), tuple(box), int(rush)


def _read_board(
    raw: Any, ingredients: tuple[str, ...], problems: list[Problem]
) -> tuple[tuple[int, ...], frozenset[int]]:
    if not isinstance(raw, dict):
        problems.append(_problem("no_board", field="board"))
        return (), frozenset()
    known = {"rows", "specialties", "source", "verified"}
    if extra := set(raw) - known:
        problems.append(
            _problem(
                "unknown_fields", where="[board]", field="board", fields=", ".join(sorted(extra))
            )
        )
    rows = raw.get("rows")
    if (
        not isinstance(rows, list)
        or len(rows) != SIZE
        or not all(isinstance(r, list) and len(r) == SIZE for r in rows)
    ):
        problems.append(_problem("bad_board_rows", where="[board]", field="board.rows", size=SIZE))
        return (), frozenset()
    board: list[int] = []
    for r, row in enumerate(rows):
        for c, item in enumerate(row):
            if item not in ingredients:
                square = square_name(r * SIZE + c)
                problems.append(
                    _problem(
                        "board_not_ingredient",
                        where=f"[board] square {square}",
                        field=f"board.rows[{r}][{c}]",
                        square=square,
                        got=shown(item),
                    )
                )
                board.append(0)
            else:
                board.append(ingredients.index(item))
    specs = raw.get("specialties", [])
    special: set[int] = set()
    if not isinstance(specs, list):
        problems.append(
            _problem("specialties_not_list", where="[board]", field="board.specialties")
        )
    else:
        for item in specs:
            if item not in ingredients:
                problems.append(
                    _problem(
                        "specialty_not_ingredient",
                        where="[board] specialties",
                        field="board.specialties",
                        got=shown(item),
                    )
                )
            else:
                special.add(ingredients.index(item))
    return tuple(board), frozenset(special)


def _read_drinks(
    raw: Any, ingredients: tuple[str, ...], box: tuple[int, ...], problems: list[Problem]
) -> list[tuple[int, Drink]]:
    """The drinks without a problem of their own, with their positions in the file."""
    if not isinstance(raw, list) or not raw:
        problems.append(_problem("no_drinks", field="drink"))
        return []
    if len(raw) > MAX_DRINKS:
        problems.append(_problem("too_many_drinks", field="drink", max=MAX_DRINKS, count=len(raw)))
    drinks: list[tuple[int, Drink, bool]] = []
    names: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for n, rd in enumerate(raw):
        if not isinstance(rd, dict):
            problems.append(_problem("drink_not_table", where=f"drink #{n + 1}", index=n))
            continue
        name = rd.get("name")
        if not isinstance(name, str) or not name.strip() or name != " ".join(name.split()):
            problems.append(
                _problem("bad_drink_name", where=f"drink #{n + 1}", index=n, field="name")
            )
            continue
        names[name.lower()] += 1
        spelled.setdefault(name.lower(), name)
        before = len(problems)
        drink = _read_drink(rd, n, name, ingredients, box, problems)
        drinks.append((n, drink, len(problems) == before))
    for key, k in names.items():
        if k > 1:
            problems.append(_problem("duplicate_drink", field="drink", name=spelled[key], count=k))
    total = sum(d.copies for _, d, _ in drinks)
    if drinks and total < MIN_CARDS:
        problems.append(_problem("too_few_cards", field="drink", min=MIN_CARDS, count=total))
    return [(n, d) for n, d, ok in drinks if ok]


def _read_drink(
    rd: dict[str, Any],
    n: int,
    name: str,
    ingredients: tuple[str, ...],
    box: tuple[int, ...],
    problems: list[Problem],
) -> Drink:
    def add(code: str, field: str | None = None, **params: Any) -> None:
        problems.append(
            _problem(code, where=f"drink {name!r}", card=name, index=n, field=field, **params)
        )

    known = {"name", "recipe", "copies", "special", "verified", "less_luck"}
    if extra := set(rd) - known:
        add("unknown_fields", fields=", ".join(sorted(extra)))
    if not name.replace(" ", "").replace("-", "").replace("'", "").isalnum():
        add("drink_name_chars", "name")
    recipe = rd.get("recipe")
    counts = [0] * len(ingredients)
    if not isinstance(recipe, list) or not recipe:
        add("bad_recipe", "recipe")
    else:
        for item in recipe:
            if item in ingredients:
                counts[ingredients.index(item)] += 1
            else:
                add("recipe_not_ingredient", "recipe", got=shown(item))
        for i, k in enumerate(counts):
            if box and i < len(box) and box[i] and k > box[i]:
                add("recipe_over_box", "recipe", need=k, ingredient=ingredients[i], have=box[i])
    copies: Any = rd.get("copies")
    if not _whole(copies, 1, MAX_COPIES):
        add("bad_copies", "copies", max=MAX_COPIES, got=shown(copies))
        copies = 1
    flags = {}
    for flag, required in (("special", True), ("verified", True), ("less_luck", False)):
        value = rd.get(flag, None if required else False)
        if value is None:
            if flag == "verified":
                add("verified_required", flag)
            else:
                add("flag_required", flag, flag=flag)
            value = False
        elif not isinstance(value, bool):
            add("bad_flag", flag, flag=flag, got=shown(value))
            value = False
        flags[flag] = value
    return Drink(
        name=name,
        recipe=tuple(counts),
        copies=int(copies),
        special=flags["special"],
        verified=flags["verified"],
        less_luck=flags["less_luck"],
    )


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
    "cards_toml",
    "default_cards",
    "load_cards",
    "parse_cards",
    "parse_square",
    "read_cards",
    "square_name",
]
