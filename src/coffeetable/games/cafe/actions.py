"""Café actions: frozen value objects, their text notation and their integer encoding.

Notation (docs/cafe-notation.md has the full grammar; cells are written `row,col`):

    take P12            take a free card (no cup, or 2 visible ships)
    take P12 pay Y      take a cup card, paying one Y/B/G/R cube from the warehouse
    take P12 discard    forced: every card has a cup and you cannot pay; the card is discarded
    place -1,2 rot90    put the taken card with its top-left at row -1, col 2, turned 90° cw
    produce 0,1         Produce on the bean group containing cell 0,1
    fill 0,1            (after a Produce short of cubes) put one of the scarce cubes on 0,1
    fill 0,1 Y          (Espresso: after a Produce) a Y cube from the supply on supply cell 0,1
    dry 0,2 Y           Dry: all Y cubes on bean cells into the dry cell 0,2
    dry 0,2 Y from 0,0  ... only the Y cubes of bean cell 0,0 (repeat to add more cells)
    roast 1,2 Y [from 0,2]   the same from dry cells into a roast cell
    deliver 1,2 > 1,0   one cube of roast cell 1,2 to the shop whose first cell is 1,0
    deliver 1,2 > wh    one cube of roast cell 1,2 to the warehouse
                        (Espresso: "> ROW,COL" may also name an empty espresso cell)
    clear 0,0           return the cubes of a bean, dry or roast cell to the supply (free)
    end                 finish your actions for this round
    bid Y               (advanced: auction) pay one Y cube from the warehouse into your bid
    bid Y ship 0,2      ... and put that cube on your empty ship cell 0,2
    bid done            finish your bid (your stake must reach the highest stake)
    pass                leave the auction (final)

Consecutive dry (roast) steps into one dry (roast) group with different colours, and
consecutive deliver steps, form one action and cost one action point together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coffeetable.core.errors import NotationError
from coffeetable.games.cafe.area import COORD_LIMIT, Pos
from coffeetable.games.cafe.deck import COLOURS

CubeColour = int


def format_pos(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


_POS_RE = re.compile(r"^(-?\d+),(-?\d+)$")


def parse_pos(text: str) -> Pos:
    m = _POS_RE.match(text)
    if not m:
        raise NotationError(f"expected a cell as row,col (for example 0,2 or -1,3), got {text!r}")
    pos = (int(m.group(1)), int(m.group(2)))
    if not all(-COORD_LIMIT <= v < COORD_LIMIT for v in pos):
        raise NotationError(f"cell {text} is outside the playable grid")
    return pos


def _colour(text: str) -> int:
    i = COLOURS.find(text.upper()) if len(text) == 1 else -1
    if i < 0:
        raise NotationError(f"expected a colour Y, B, G or R, got {text!r}")
    return i


@dataclass(frozen=True, slots=True)
class Take:
    card: str
    pay: int = -1  # colour paid from the warehouse, -1 if free
    discard: bool = False

    def notation(self) -> str:
        if self.discard:
            return f"take {self.card} discard"
        if self.pay >= 0:
            return f"take {self.card} pay {COLOURS[self.pay]}"
        return f"take {self.card}"


@dataclass(frozen=True, slots=True)
class Place:
    row: int
    col: int
    rotation: int  # quarter turns clockwise, 0-3

    def notation(self) -> str:
        return f"place {self.row},{self.col} rot{self.rotation * 90}"


@dataclass(frozen=True, slots=True)
class Produce:
    at: Pos

    def notation(self) -> str:
        return f"produce {format_pos(self.at)}"


@dataclass(frozen=True, slots=True)
class Fill:
    at: Pos
    colour: int = -1  # named colour, for a supply cell only

    def notation(self) -> str:
        text = f"fill {format_pos(self.at)}"
        return text if self.colour < 0 else f"{text} {COLOURS[self.colour]}"


@dataclass(frozen=True, slots=True)
class _Transfer:
    """Move cubes of one colour into an empty cell (Dry: from bean cells; Roast: from dry
    cells)."""

    to: Pos
    colour: int
    source: Pos | None = None  # None: every source cell holding the colour

    def notation(self) -> str:
        text = f"{self._verb()} {format_pos(self.to)} {COLOURS[self.colour]}"
        return text if self.source is None else f"{text} from {format_pos(self.source)}"

    # a method, not a ClassVar overridden per subclass: mypyc's compiled dataclasses take a
    # subclass's ClassVar for a read-only instance attribute
    def _verb(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Dry(_Transfer):
    def _verb(self) -> str:
        return "dry"


@dataclass(frozen=True, slots=True)
class Roast(_Transfer):
    def _verb(self) -> str:
        return "roast"


@dataclass(frozen=True, slots=True)
class Deliver:
    source: Pos
    to: Pos | None  # a shop's first cell, or None for the warehouse

    def notation(self) -> str:
        dest = "wh" if self.to is None else format_pos(self.to)
        return f"deliver {format_pos(self.source)} > {dest}"


@dataclass(frozen=True, slots=True)
class Clear:
    at: Pos

    def notation(self) -> str:
        return f"clear {format_pos(self.at)}"


@dataclass(frozen=True, slots=True)
class End:
    def notation(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Bid:
    colour: int
    ship: Pos | None = None

    def notation(self) -> str:
        text = f"bid {COLOURS[self.colour]}"
        return text if self.ship is None else f"{text} ship {format_pos(self.ship)}"


@dataclass(frozen=True, slots=True)
class BidDone:
    def notation(self) -> str:
        return "bid done"


@dataclass(frozen=True, slots=True)
class Pass:
    def notation(self) -> str:
        return "pass"


CafeAction = (
    Take | Place | Produce | Fill | Dry | Roast | Deliver | Clear | End | Bid | BidDone | Pass
)


def parse_action(text: str) -> CafeAction:
    words = text.split()
    if not words:
        raise NotationError("empty move; type a move such as 'produce 0,1' or 'end'")
    verb, args = words[0].lower(), words[1:]
    try:
        if verb == "take":
            if len(args) == 1:
                return Take(args[0])
            if len(args) == 2 and args[1].lower() == "discard":
                return Take(args[0], discard=True)
            if len(args) == 3 and args[1].lower() == "pay":
                return Take(args[0], pay=_colour(args[2]))
            raise NotationError("write 'take CARD', 'take CARD pay COLOUR' or 'take CARD discard'")
        if verb == "place":
            if len(args) != 2 or not re.fullmatch(r"rot(0|90|180|270)", args[1].lower()):
                raise NotationError("write 'place ROW,COL rot0|rot90|rot180|rot270'")
            r, c = parse_pos(args[0])
            return Place(r, c, int(args[1][3:]) // 90)
        if verb == "fill" and len(args) == 2:
            return Fill(parse_pos(args[0]), _colour(args[1]))
        if verb == "bid":
            if args == ["done"]:
                return BidDone()
            if len(args) == 1:
                return Bid(_colour(args[0]))
            if len(args) == 3 and args[1].lower() == "ship":
                return Bid(_colour(args[0]), parse_pos(args[2]))
            raise NotationError("write 'bid COLOUR', 'bid COLOUR ship ROW,COL' or 'bid done'")
        if verb == "pass" and not args:
            return Pass()
        if verb in ("produce", "fill", "clear"):
            if len(args) != 1:
                raise NotationError(f"write '{verb} ROW,COL'")
            pos = parse_pos(args[0])
            return (
                Produce(pos) if verb == "produce" else Fill(pos) if verb == "fill" else Clear(pos)
            )
        if verb in ("dry", "roast"):
            cls = Dry if verb == "dry" else Roast
            if len(args) == 2:
                return cls(parse_pos(args[0]), _colour(args[1]))
            if len(args) == 4 and args[2].lower() == "from":
                return cls(parse_pos(args[0]), _colour(args[1]), parse_pos(args[3]))
            raise NotationError(
                f"write '{verb} ROW,COL COLOUR' or '{verb} ROW,COL COLOUR from ROW,COL'"
            )
        if verb == "deliver":
            if len(args) != 3 or args[1] != ">":
                raise NotationError(
                    "write 'deliver ROW,COL > ROW,COL' (a shop) or 'deliver ROW,COL > wh'"
                )
            dest = None if args[2].lower() == "wh" else parse_pos(args[2])
            return Deliver(parse_pos(args[0]), dest)
        if verb == "end" and not args:
            return End()
    except NotationError as exc:
        raise NotationError(f"cannot read {text.strip()!r}: {exc}") from None
    raise NotationError(
        f"cannot read {text.strip()!r}: moves start with take, place, produce, fill, dry, roast, "
        "deliver, clear, end, bid or pass"
    )


# --- integer encoding ----------------------------------------------------------------------
# code = kind + KINDS * payload. Cells index a 40x40 window: (row + 20) * 40 + (col + 20).
# Optional cells use 0 for "none" and index + 1 otherwise. Take's card is its index in the
# deck file (so codes are stable for a given deck).
KINDS = 16
SIDE = 2 * COORD_LIMIT
CELLS = SIDE * SIDE
_KIND = {
    Take: 0,
    Place: 1,
    Produce: 2,
    Fill: 3,
    Dry: 4,
    Roast: 5,
    Deliver: 6,
    Clear: 7,
    End: 8,
    Bid: 9,
    BidDone: 10,
    Pass: 11,
}
MAX_CARDS = 128


def _cell(pos: Pos) -> int:
    return (pos[0] + COORD_LIMIT) * SIDE + (pos[1] + COORD_LIMIT)


def _uncell(code: int) -> Pos:
    if not 0 <= code < CELLS:
        raise NotationError(f"cell code {code} out of range")
    return code // SIDE - COORD_LIMIT, code % SIDE - COORD_LIMIT


def encode(action: CafeAction, card_index: int = 0) -> int:
    kind = _KIND[type(action)]
    payload: int
    if isinstance(action, Take):
        pay = 5 if action.discard else action.pay + 1
        payload = card_index + MAX_CARDS * pay
    elif isinstance(action, Place):
        payload = _cell((action.row, action.col)) + CELLS * action.rotation
    elif isinstance(action, Fill):
        payload = _cell(action.at) + CELLS * (action.colour + 1)
    elif isinstance(action, Produce | Clear):
        payload = _cell(action.at)
    elif isinstance(action, Bid):
        ship = 0 if action.ship is None else _cell(action.ship) + 1
        payload = action.colour + 4 * ship
    elif isinstance(action, Dry | Roast):
        src = 0 if action.source is None else _cell(action.source) + 1
        payload = _cell(action.to) + CELLS * (action.colour + 4 * src)
    elif isinstance(action, Deliver):
        dest = 0 if action.to is None else _cell(action.to) + 1
        payload = _cell(action.source) + CELLS * dest
    else:
        payload = 0
    return kind + KINDS * payload


def decode(code: int, card_id_of: dict[int, str]) -> CafeAction:
    if code < 0:
        raise NotationError("action codes are non-negative")
    kind, payload = code % KINDS, code // KINDS
    if kind == 0:
        index, pay = payload % MAX_CARDS, payload // MAX_CARDS
        if index not in card_id_of or pay > 5:
            raise NotationError(f"action code {code} names no card of this deck")
        card = card_id_of[index]
        return Take(card, discard=True) if pay == 5 else Take(card, pay=pay - 1)
    if kind == 1:
        cell, rot = payload % CELLS, payload // CELLS
        if rot > 3:
            raise NotationError(f"action code {code} has no valid rotation")
        r, c = _uncell(cell)
        return Place(r, c, rot)
    if kind == 3:
        cell, colour = payload % CELLS, payload // CELLS
        if colour > 4:
            raise NotationError(f"action code {code} has no valid colour")
        return Fill(_uncell(cell), colour - 1)
    if kind in (2, 7):
        pos = _uncell(payload)
        return Produce(pos) if kind == 2 else Clear(pos)
    if kind == 9:
        colour, ship = payload % 4, payload // 4
        return Bid(colour, None if ship == 0 else _uncell(ship - 1))
    if kind in (10, 11) and payload == 0:
        return BidDone() if kind == 10 else Pass()
    if kind in (4, 5):
        to, rest = payload % CELLS, payload // CELLS
        colour, src = rest % 4, rest // 4
        source = None if src == 0 else _uncell(src - 1)
        cls = Dry if kind == 4 else Roast
        return cls(_uncell(to), colour, source)
    if kind == 6:
        src, dest = payload % CELLS, payload // CELLS
        return Deliver(_uncell(src), None if dest == 0 else _uncell(dest - 1))
    if kind == 8 and payload == 0:
        return End()
    raise NotationError(f"action code {code} is not a Café action")
