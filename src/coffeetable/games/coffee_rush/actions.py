"""Coffee Rush actions: frozen value objects, their notation and their integer encoding.

A turn is played as small steps, each with a small legal set (docs/coffee-rush-notation.md):

    place b2                  set-up: put your (next) meeple on b2
    b2-c3                     move the meeple on b2 one step to c3 (`c3` alone when unambiguous)
    stop                      end your movement (after at least one step)
    upgrade diagonal          start of turn: discard 3 completed orders to flip an upgrade
    pour coffee 2             put one coffee taken this turn into cup 2
    empty 2                   return the contents of cup 2 to the supply
    serve 2 3 Caffe Latte     cup 2 completes the Caffe Latte on counter 3 (`serve 2 3` when
                              only one drink there matches)
    end                       return unpoured tokens and end the turn (orders, time passes)

A whole turn can be written at once as steps separated by `;`, with paths and grouped pours:

    upgrade diagonal; b2-c3-c4; pour 1:coffee+steam 2:milk; serve 1 3 Espresso; end

Such a text parses to a :class:`Turn`, which `State.apply` plays step by step (all or nothing).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from coffeetable.core.errors import DataError, NotationError
from coffeetable.games.coffee_rush.cards import (
    COUNTERS,
    CUPS,
    SQUARES,
    CardSet,
    parse_square,
    square_name,
)

UPGRADES = ("double-meeples", "diagonal", "double-corners", "double-specialties")
UPGRADE_TITLES = ("Double Meeples", "Diagonal Move", "Double Corners", "Double Specialties")
_UPGRADE_ALIASES = {
    "double-meeples": 0,
    "meeples": 0,
    "diagonal": 1,
    "diagonal-move": 1,
    "double-corners": 2,
    "corners": 2,
    "double-specialties": 3,
    "specialties": 3,
}


class RushAction:
    """Base class of Coffee Rush actions."""

    __slots__ = ()

    def notation(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def __str__(self) -> str:
        return self.notation()


@dataclass(frozen=True, slots=True)
class Place(RushAction):
    square: int

    def notation(self) -> str:
        return f"place {square_name(self.square)}"


@dataclass(frozen=True, slots=True)
class Step(RushAction):
    """One step of movement. `frm` is -1 in a hand-written `c3` before it is resolved."""

    frm: int
    to: int

    def notation(self) -> str:
        if self.frm < 0:
            return square_name(self.to)
        return f"{square_name(self.frm)}-{square_name(self.to)}"


@dataclass(frozen=True, slots=True)
class Stop(RushAction):
    def notation(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class Upgrade(RushAction):
    kind: int  # index into UPGRADES

    def notation(self) -> str:
        return f"upgrade {UPGRADES[self.kind]}"


@dataclass(frozen=True, slots=True)
class Pour(RushAction):
    ingredient: str
    cup: int  # 0-based; written 1-3

    def notation(self) -> str:
        return f"pour {self.ingredient} {self.cup + 1}"


@dataclass(frozen=True, slots=True)
class Empty(RushAction):
    cup: int

    def notation(self) -> str:
        return f"empty {self.cup + 1}"


@dataclass(frozen=True, slots=True)
class Serve(RushAction):
    """Cup `cup` completes the order `drink` on counter `counter` (both 0-based, written 1-based).
    `drink` is None in a hand-written `serve 2 3` before it is resolved."""

    cup: int
    counter: int
    drink: str | None

    def notation(self) -> str:
        text = f"serve {self.cup + 1} {self.counter + 1}"
        return f"{text} {self.drink}" if self.drink else text


@dataclass(frozen=True, slots=True)
class End(RushAction):
    def notation(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Turn(RushAction):
    """Several steps written as one text; applied all or nothing by `State.apply`."""

    steps: tuple[RushAction, ...]

    def notation(self) -> str:
        return format_turn(self.steps)


# --- notation ----------------------------------------------------------------------------


def format_turn(steps: Sequence[RushAction]) -> str:
    """The compact text of a sequence of steps: paths joined, pours grouped by cup, and a
    `stop` left out where the next step implies it."""
    parts: list[str] = []
    i = 0
    while i < len(steps):
        a = steps[i]
        if isinstance(a, Step):
            path = [a.notation()]
            last = a.to
            i += 1
            while i < len(steps):
                b = steps[i]
                if not (isinstance(b, Step) and b.frm == last):
                    break
                path.append(square_name(b.to))
                last = b.to
                i += 1
            parts.append("-".join(path))
            continue
        if (
            isinstance(a, Stop)
            and i + 1 < len(steps)
            and isinstance(steps[i + 1], Pour | Serve | End)
        ):
            i += 1
            continue
        if isinstance(a, Pour):
            by_cup: dict[int, list[str]] = {}
            while i < len(steps) and isinstance(steps[i], Pour):
                p = steps[i]
                assert isinstance(p, Pour)
                by_cup.setdefault(p.cup, []).append(p.ingredient)
                i += 1
            parts.append(
                "pour " + " ".join(f"{c + 1}:{'+'.join(ing)}" for c, ing in sorted(by_cup.items()))
            )
            continue
        parts.append(a.notation())
        i += 1
    return "; ".join(parts)


_PATH_RE = re.compile(r"^[a-d][1-4](-[a-d][1-4])*$")


def _cup(text: str) -> int:
    if text in ("1", "2", "3"):
        return int(text) - 1
    raise NotationError(f"cups are numbered 1 to {CUPS}, got {text!r}")


def _counter(text: str) -> int:
    if text in ("1", "2", "3", "4"):
        return int(text) - 1
    raise NotationError(f"order counters are numbered 1 to {COUNTERS}, got {text!r}")


def _ingredient(text: str, cards: CardSet) -> str:
    name = text.strip().lower()
    if name not in cards.ingredients:
        raise NotationError(
            f"unknown ingredient {text!r}; ingredients: {', '.join(cards.ingredients)}"
        )
    return name


def _parse_one(text: str, cards: CardSet) -> list[RushAction]:
    words = text.split()
    if not words:
        raise NotationError("empty move")
    head = words[0].lower()
    rest = words[1:]
    if head in ("move", "step") and rest:
        return _parse_one(" ".join(rest), cards)
    if _PATH_RE.match(text.lower()) and len(words) == 1:
        squares = [parse_square(s) for s in text.lower().split("-")]
        if len(squares) == 1:
            return [Step(-1, squares[0])]
        return [Step(a, b) for a, b in itertools.pairwise(squares)]
    if head == "place" and len(rest) == 1:
        try:
            return [Place(parse_square(rest[0]))]
        except DataError as exc:
            raise NotationError(str(exc)) from None
    if head in ("stop", "end", "done") and not rest:
        return [Stop() if head == "stop" else End()]
    if head == "upgrade" and len(rest) >= 1:
        key = "-".join(rest).lower()
        if key not in _UPGRADE_ALIASES:
            raise NotationError(
                f"unknown upgrade {' '.join(rest)!r}; upgrades: {', '.join(UPGRADES)}"
            )
        return [Upgrade(_UPGRADE_ALIASES[key])]
    if head == "empty" and len(rest) == 1:
        return [Empty(_cup(rest[0]))]
    if head == "pour" and rest:
        if len(rest) == 2 and ":" not in rest[0] and ":" not in rest[1]:
            return [Pour(_ingredient(rest[0], cards), _cup(rest[1]))]
        out: list[RushAction] = []
        for group in rest:
            cup_text, sep, names = group.partition(":")
            if not sep or not names:
                raise NotationError(
                    f"expected 'pour INGREDIENT CUP' or 'pour CUP:INGREDIENT+INGREDIENT ...', got {text!r}"
                )
            cup = _cup(cup_text)
            out.extend(Pour(_ingredient(n, cards), cup) for n in names.split("+"))
        return out
    if head == "serve" and len(rest) >= 2:
        cup, counter = _cup(rest[0]), _counter(rest[1])
        drink: str | None = None
        if len(rest) > 2:
            name = " ".join(rest[2:])
            index = cards.by_name.get(name.lower())
            if index is None:
                raise NotationError(f"no drink called {name!r}")
            drink = cards.drinks[index].name
        return [Serve(cup, counter, drink)]
    raise NotationError(
        f"cannot read {text!r}; moves look like: place b2, b2-c3, stop, upgrade diagonal, "
        "pour coffee 2, empty 2, serve 2 3 Espresso, end (see docs/coffee-rush-notation.md)"
    )


def parse_action(text: str, cards: CardSet) -> RushAction:
    """Read one step, or several (a path, grouped pours, `;`-separated steps) as a Turn."""
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, got {text!r}")
    steps: list[RushAction] = []
    for segment in text.split(";"):
        if segment.strip():
            steps.extend(_parse_one(segment.strip(), cards))
    if not steps:
        raise NotationError("empty move")
    return steps[0] if len(steps) == 1 else Turn(tuple(steps))


# --- integer encoding -----------------------------------------------------------------------
_STEP = SQUARES
_STOP = _STEP + SQUARES * SQUARES
_UPGRADE = _STOP + 1
_END = _UPGRADE + len(UPGRADES)
_EMPTY = _END + 1
_POUR = _EMPTY + CUPS


class Encoding:
    """Dense, stable integer codes for one card set (layout in docs/coffee-rush-notation.md)."""

    def __init__(self, cards: CardSet) -> None:
        self.cards = cards
        self.ingredients = len(cards.ingredients)
        self.drinks = len(cards.drinks)
        self.serve_base = _POUR + self.ingredients * CUPS
        self.size = self.serve_base + CUPS * COUNTERS * self.drinks

    def encode(self, action: RushAction) -> int:
        if isinstance(action, Place):
            return action.square
        if isinstance(action, Step):
            if action.frm < 0:
                raise NotationError(
                    f"{action.notation()}: name the square moved from to encode a step"
                )
            return _STEP + action.frm * SQUARES + action.to
        if isinstance(action, Stop):
            return _STOP
        if isinstance(action, Upgrade):
            return _UPGRADE + action.kind
        if isinstance(action, End):
            return _END
        if isinstance(action, Empty):
            return _EMPTY + action.cup
        if isinstance(action, Pour):
            return _POUR + self.cards.ingredients.index(action.ingredient) * CUPS + action.cup
        if isinstance(action, Serve):
            if action.drink is None:
                raise NotationError(f"{action.notation()}: name the drink to encode a serve")
            d = self.cards.drink_index(action.drink)
            return self.serve_base + (action.cup * COUNTERS + action.counter) * self.drinks + d
        raise NotationError(f"{action!r} has no integer code (encode a turn's steps one by one)")

    def decode(self, code: int) -> RushAction:
        if not isinstance(code, int) or not 0 <= code < self.size:
            raise NotationError(f"no Coffee Rush action has code {code!r}")
        if code < _STEP:
            return Place(code)
        if code < _STOP:
            frm, to = divmod(code - _STEP, SQUARES)
            return Step(frm, to)
        if code == _STOP:
            return Stop()
        if code < _END:
            return Upgrade(code - _UPGRADE)
        if code == _END:
            return End()
        if code < _POUR:
            return Empty(code - _EMPTY)
        if code < self.serve_base:
            ing, cup = divmod(code - _POUR, CUPS)
            return Pour(self.cards.ingredients[ing], cup)
        rest, d = divmod(code - self.serve_base, self.drinks)
        cup, counter = divmod(rest, COUNTERS)
        return Serve(cup, counter, self.cards.drinks[d].name)


__all__ = [
    "UPGRADES",
    "UPGRADE_TITLES",
    "Empty",
    "Encoding",
    "End",
    "Place",
    "Pour",
    "RushAction",
    "Serve",
    "Step",
    "Stop",
    "Turn",
    "Upgrade",
    "format_turn",
    "parse_action",
]
