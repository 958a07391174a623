"""Fixed integer action spaces for learning agents: index <-> engine action, and masks.

Every game gets an :class:`ActionSpace` (`action_space(game)`) of `size` indices. In a
state, `legal(state, seat)` maps the index of each legal action to the engine's action
object, `mask(state, seat)` is the same as an int8 vector, and `decode` / `encode` convert
one index or action.

- **Coffee Rush** uses the engine's own dense encoding (`game.num_distinct_actions`, 701
  codes with the default cards; docs/coffee-rush-notation.md). Indices do not depend on the
  state.
- **Café**'s engine encoding is stable but sparse: codes reach 163,942,389
  (`CAFE_ENGINE_CODE_BOUND` = 163,942,390 codes), far too many for a policy head or a mask.
  The RL index is therefore dense and **relative to the acting seat's area**: cells are
  named by their slot (the k-th visible cell in row-major order, at most 38) and
  placements by their top-left corner in the area's 21 x 21 frame (see
  `coffeetable.games.cafe.observation`). The same index can thus name different engine
  actions in different states, exactly as the observation's `slots` table and `p0.grid`
  describe them. `engine_code(state, seat, index)` gives the engine's stable code.

The Café layout (C = cards in the deck file, 63 by default; S = 38 slots; G = 21):

| kind | indices | meaning of the offset |
|---|---|---|
| take | C x 6 | card x 6 + pay: 0 free, 1-4 pay Y B G R, 5 discard |
| place | 4 x G x G | rotation x G² + frame row x G + frame col of the top-left corner |
| produce | S | slot of the group's first cell |
| fill | S x 5 | slot x 5 + colour + 1 (0: a bean/bonus cell, 1-4: a supply cell takes Y B G R) |
| dry, roast | S x 4 x (S + 1) each | (target slot x 4 + colour) x (S + 1) + source (0 none, else slot + 1) |
| deliver | S x (S + 1) | source slot x (S + 1) + destination (0 warehouse, else slot + 1) |
| clear | S | slot |
| end | 1 | |
| bid | 4 x (S + 1) | colour x (S + 1) + ship (0 none, else slot + 1) |
| bid done, pass | 1 each | |
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, SupportsIndex

import gymnasium
import numpy as np
import numpy.typing as npt

from coffeetable.core.errors import NotationError
from coffeetable.core.game import Action, Game, State
from coffeetable.games.cafe import actions as cafe
from coffeetable.games.cafe.area import Pos
from coffeetable.games.cafe.observation import GRID, MAX_SLOTS, area_origin, area_slots

if TYPE_CHECKING:
    from coffeetable.games.cafe.area import BusinessArea
    from coffeetable.games.cafe.game import CafeGame
    from coffeetable.games.cafe.state import CafeState

Mask = npt.NDArray[np.int8]

#: codes of the Café engine encoding (`CafeGame.encode_action`) are below this bound:
#: the largest is `roast 19,19 R from 19,19` (docs/cafe-notation.md)
CAFE_ENGINE_CODE_BOUND = 163_942_390


class ActionSpace(Protocol):
    size: int

    def legal(self, state: State, seat: SupportsIndex) -> dict[int, Action]: ...

    def mask(self, state: State, seat: SupportsIndex) -> Mask: ...

    def encode(self, state: State, seat: SupportsIndex, action: Action) -> int: ...

    def decode(self, state: State, seat: SupportsIndex, index: SupportsIndex) -> Action: ...


class _Base:
    size: int

    def legal(self, state: State, seat: SupportsIndex) -> dict[int, Action]:
        raise NotImplementedError

    def mask(self, state: State, seat: SupportsIndex) -> Mask:
        """The legal actions of `seat` as an int8 vector of `size` (1: legal)."""
        mask: Mask = self.mask_of(self.legal(state, seat))
        return mask

    def mask_of(self, legal: dict[int, Action], dtype: type[Any] = np.int8) -> npt.NDArray[Any]:
        """The indices of `legal` as a vector of `size` (int8 by default; np.bool_ for
        `action_masks()`)."""
        out = np.zeros(self.size, dtype=dtype)
        if legal:
            out[np.fromiter(legal, dtype=np.intp, count=len(legal))] = 1
        return out


class MaskedDiscrete(gymnasium.spaces.Discrete):
    """`gymnasium.spaces.Discrete` whose `sample(mask)` makes one pass over a large mask
    where Gymnasium's makes five; the draw is the same (`np_random.choice` over the legal
    indices in order, which is `legal[np_random.integers(0, len(legal))]`), so a seeded
    space samples exactly what `Discrete` samples (tests/rl/test_spaces.py checks it). Any
    other call (a probability mask, a mask of the wrong type or shape, values other than 0
    and 1) is Gymnasium's own, errors included."""

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if (
            probability is not None
            or not isinstance(mask, np.ndarray)
            or mask.dtype != np.int8
            or mask.shape != (self.n,)
        ):
            return super().sample(mask, probability)
        legal = mask.view(np.bool_).nonzero()[0]  # every non-zero value
        if not legal.size:
            return self.start
        if mask[legal].tobytes() != b"\x01" * legal.size:  # not 0 or 1: Gymnasium's error
            return super().sample(mask)
        # = np_random.choice(legal), without its checks
        pick = legal[self.np_random.integers(0, legal.size)]
        return np.int64(self.start + pick)

    def contains(self, x: Any) -> bool:
        """Gymnasium's `Discrete.contains`, with its slow dtype checks skipped for a Python
        int or a NumPy int64 (what `sample` returns; PettingZoo's bounds check asks at every
        step)."""
        kind = type(x)
        if kind is int or kind is np.int64:
            return bool(self.start <= x < self.start + self.n)
        return super().contains(x)


# ==== Coffee Rush ================================================================================
class RushActionSpace(_Base):
    """The engine's own encoding: `game.num_distinct_actions` codes, state-independent."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.size = int(game.num_distinct_actions)  # type: ignore[attr-defined]
        #: id(action) -> (action, its code), filled as actions are met. The engine lists
        #: the game's own interned action objects (`CoffeeRushGame.PLACE`, `serve_action`,
        #: ...), so an int key is looked up where the action's value would have to be
        #: hashed and compared in Python (dataclass methods); the action is kept with its
        #: code, so its id cannot be reused while the entry lives, and checked by identity.
        #: Emptied when it holds more than `4 * size` entries (actions not interned).
        self._codes: dict[int, tuple[Action, int]] = {}

    def legal(self, state: State, seat: SupportsIndex) -> dict[int, Action]:
        codes = self._codes
        out: dict[int, Action] = {}
        for a in state.legal_actions(operator.index(seat)):
            known = codes.get(id(a))
            if known is None or known[0] is not a:
                if len(codes) >= 4 * self.size:
                    codes.clear()
                known = codes[id(a)] = (a, self.game.encode_action(a))
            out[known[1]] = a
        return out

    def encode(self, state: State, seat: SupportsIndex, action: Action) -> int:
        return self.game.encode_action(action)

    def decode(self, state: State, seat: SupportsIndex, index: SupportsIndex) -> Action:
        return self.game.decode_action(int(index))


# ==== Café =======================================================================================
S = MAX_SLOTS
PAYS = 6
KINDS = (
    ("take", 0),  # sizes are set per deck in CafeActionSpace
    ("place", 4 * GRID * GRID),
    ("produce", S),
    ("fill", S * 5),
    ("dry", S * 4 * (S + 1)),
    ("roast", S * 4 * (S + 1)),
    ("deliver", S * (S + 1)),
    ("clear", S),
    ("end", 1),
    ("bid", 4 * (S + 1)),
    ("bid_done", 1),
    ("pass", 1),
)


class _Frame:
    """An area's frame origin and its slots (they change only when a card is placed)."""

    __slots__ = ("origin", "slot_of", "slots")

    def __init__(self, area: BusinessArea) -> None:
        self.origin = area_origin(area)
        self.slots = area_slots(area)
        self.slot_of = {pos: k for k, pos in enumerate(self.slots)}


def _frame_of(state: CafeState, seat: int) -> _Frame:
    """The frame of `seat`'s area, cached with what is derived from its cells alone
    (`BusinessArea.memo`, renewed when a card is placed)."""
    area = state.players[seat].area
    frame: _Frame | None = area.memo.get("rl action frame")
    if frame is None:
        frame = area.memo["rl action frame"] = _Frame(area)
    return frame


class CafeActionSpace(_Base):
    """Dense Café indices relative to the acting seat's area (module docstring)."""

    def __init__(self, game: CafeGame) -> None:
        self.game = game
        deck = game.deck
        self.cards = len(deck.cards)
        self.card_index = {c.id: i for i, c in enumerate(deck.cards)}
        self.card_ids = [c.id for c in deck.cards]
        self.offsets: dict[str, int] = {}
        self.sizes: dict[str, int] = {}
        offset = 0
        for kind, size in KINDS:
            if kind == "take":
                size = self.cards * PAYS
            self.offsets[kind] = offset
            self.sizes[kind] = size
            offset += size
        self.size = offset
        o = self.offsets
        self._take, self._place, self._produce, self._fill = (
            o["take"],
            o["place"],
            o["produce"],
            o["fill"],
        )
        self._dry, self._roast, self._deliver, self._clear = (
            o["dry"],
            o["roast"],
            o["deliver"],
            o["clear"],
        )
        self._end, self._bid, self._bid_done, self._pass = (
            o["end"],
            o["bid"],
            o["bid_done"],
            o["pass"],
        )
        self._bounds = sorted((start, kind) for kind, start in o.items())
        self._encoders: dict[type, Callable[[_Frame, Any], int]] = {
            cafe.Take: self._take_index,
            cafe.Place: self._place_index,
            cafe.Produce: self._produce_index,
            cafe.Fill: self._fill_index,
            cafe.Dry: self._dry_index,
            cafe.Roast: self._roast_index,
            cafe.Deliver: self._deliver_index,
            cafe.Clear: self._clear_index,
            cafe.End: lambda frame, a: self._end,
            cafe.Bid: self._bid_index,
            cafe.BidDone: lambda frame, a: self._bid_done,
            cafe.Pass: lambda frame, a: self._pass,
        }

    # --- state-independent structure -------------------------------------------------------
    def split(self, index: SupportsIndex) -> tuple[str, tuple[int, ...]]:
        """The kind of an index and its fields, without a state: take (card, pay), place
        (rotation, row, col), produce/clear (slot,), fill (slot, colour or -1), dry/roast
        (target, colour, source or -1), deliver (source, destination slot or -1 for the
        warehouse), bid (colour, ship or -1), end/bid_done/pass ()."""
        index = int(index)
        if not 0 <= index < self.size:
            raise NotationError(
                f"no Café RL action has index {index}; indices are 0..{self.size - 1}"
            )
        kind = "take"
        for start, name in self._bounds:
            if index >= start:
                kind = name
        x = index - self.offsets[kind]
        if kind == "take":
            return kind, divmod(x, PAYS)
        if kind == "place":
            rot, rest = divmod(x, GRID * GRID)
            return kind, (rot, *divmod(rest, GRID))
        if kind in ("produce", "clear"):
            return kind, (x,)
        if kind == "fill":
            slot, colour = divmod(x, 5)
            return kind, (slot, colour - 1)
        if kind in ("dry", "roast"):
            rest, src = divmod(x, S + 1)
            target, colour = divmod(rest, 4)
            return kind, (target, colour, src - 1)
        if kind == "deliver":
            src, dest = divmod(x, S + 1)
            return kind, (src, dest - 1)
        if kind == "bid":
            colour, ship = divmod(x, S + 1)
            return kind, (colour, ship - 1)
        return kind, ()

    # --- with a state ----------------------------------------------------------------------
    def legal(self, state: State, seat: SupportsIndex) -> dict[int, Action]:
        # a NumPy integer too (a batch's seats); a compiled engine (mypyc) takes only int
        seat = operator.index(seat)
        actions = state.legal_actions(seat)
        if not actions:
            return {}
        frame = _frame_of(state, seat)  # type: ignore[arg-type]
        encoders = self._encoders
        try:  # the encoders called directly (one call per action fewer than `_encode`)
            return {encoders[type(a)](frame, a): a for a in actions}
        except KeyError:
            return {self._encode(frame, a): a for a in actions}  # raises NotationError

    def encode(self, state: State, seat: SupportsIndex, action: Action) -> int:
        """The index of `action` (in its canonical spelling) for `seat` in `state`. Raises
        NotationError for an action that has no index here (a cell outside the area)."""
        seat = operator.index(seat)
        return self._encode(_frame_of(state, seat), state.canonical_action(seat, action))  # type: ignore[arg-type]

    def _encode(self, frame: _Frame, action: Action) -> int:
        try:
            return self._encoders[type(action)](frame, action)
        except KeyError:
            pass
        raise NotationError(f"{action.notation()} has no RL index here (a cell outside the area?)")

    # one encoder per action class, looked up by type (a chain of isinstance tests cost more
    # than the rest of the encoding); a cell outside the area raises KeyError
    def _take_index(self, frame: _Frame, a: cafe.Take) -> int:
        return self._take + self.card_index[a.card] * PAYS + (5 if a.discard else a.pay + 1)

    def _place_index(self, frame: _Frame, a: cafe.Place) -> int:
        row, col = a.row - frame.origin[0], a.col - frame.origin[1]
        if not (0 <= row < GRID and 0 <= col < GRID):
            raise KeyError((a.row, a.col))
        return self._place + (a.rotation * GRID + row) * GRID + col

    def _produce_index(self, frame: _Frame, a: cafe.Produce) -> int:
        return self._produce + frame.slot_of[a.at]

    def _fill_index(self, frame: _Frame, a: cafe.Fill) -> int:
        return self._fill + frame.slot_of[a.at] * 5 + a.colour + 1

    def _dry_index(self, frame: _Frame, a: cafe.Dry) -> int:
        return self._cubes_index(self._dry, frame, a)

    def _roast_index(self, frame: _Frame, a: cafe.Roast) -> int:
        return self._cubes_index(self._roast, frame, a)

    def _cubes_index(self, base: int, frame: _Frame, a: cafe.Dry | cafe.Roast) -> int:
        src = 0 if a.source is None else frame.slot_of[a.source] + 1
        return base + (frame.slot_of[a.to] * 4 + a.colour) * (S + 1) + src

    def _deliver_index(self, frame: _Frame, a: cafe.Deliver) -> int:
        dest = 0 if a.to is None else frame.slot_of[a.to] + 1
        return self._deliver + frame.slot_of[a.source] * (S + 1) + dest

    def _clear_index(self, frame: _Frame, a: cafe.Clear) -> int:
        return self._clear + frame.slot_of[a.at]

    def _bid_index(self, frame: _Frame, a: cafe.Bid) -> int:
        ship = 0 if a.ship is None else frame.slot_of[a.ship] + 1
        return self._bid + a.colour * (S + 1) + ship

    def decode(self, state: State, seat: SupportsIndex, index: SupportsIndex) -> Action:
        """The engine action that `index` names for `seat` in `state` (it may be illegal).
        Raises NotationError for an index out of range or naming an empty slot."""
        kind, f = self.split(index)
        if kind == "take":
            card, pay = f
            return (
                cafe.Take(self.card_ids[card], discard=True)
                if pay == 5
                else cafe.Take(self.card_ids[card], pay=pay - 1)
            )
        if kind == "end":
            return cafe.End()
        if kind == "bid_done":
            return cafe.BidDone()
        if kind == "pass":
            return cafe.Pass()
        frame = _frame_of(state, operator.index(seat))  # type: ignore[arg-type]

        def cell(slot: int) -> Pos:
            if not 0 <= slot < len(frame.slots):
                raise NotationError(
                    f"index {index} names slot {slot}, but the area has {len(frame.slots)} cells"
                )
            return frame.slots[slot]

        def maybe(slot: int) -> Pos | None:
            return None if slot < 0 else cell(slot)

        if kind == "place":
            rot, row, col = f
            return cafe.Place(row + frame.origin[0], col + frame.origin[1], rot)
        if kind == "produce":
            return cafe.Produce(cell(f[0]))
        if kind == "clear":
            return cafe.Clear(cell(f[0]))
        if kind == "fill":
            return cafe.Fill(cell(f[0]), f[1])
        if kind in ("dry", "roast"):
            cls = cafe.Dry if kind == "dry" else cafe.Roast
            return cls(cell(f[0]), f[1], maybe(f[2]))
        if kind == "deliver":
            return cafe.Deliver(cell(f[0]), maybe(f[1]))
        return cafe.Bid(f[0], maybe(f[1]))

    def engine_code(self, state: State, seat: SupportsIndex, index: SupportsIndex) -> int:
        """The engine's stable code (`game.encode_action`) of the action `index` names."""
        return self.game.encode_action(self.decode(state, seat, index))


_SPACES: dict[int, CafeActionSpace | RushActionSpace] = {}


def action_space(game: Game) -> CafeActionSpace | RushActionSpace:
    """The RL action space of a game (cached per game object)."""
    space = _SPACES.get(id(game))
    if space is None or space.game is not game:
        name = game.info.name
        if name == "cafe":
            space = CafeActionSpace(game)  # type: ignore[arg-type]
        elif name == "coffee-rush":
            space = RushActionSpace(game)
        else:
            raise ValueError(f"no RL action space for the game {name!r}")
        _SPACES[id(game)] = space
    return space


__all__ = [
    "CAFE_ENGINE_CODE_BOUND",
    "ActionSpace",
    "CafeActionSpace",
    "MaskedDiscrete",
    "RushActionSpace",
    "action_space",
]
