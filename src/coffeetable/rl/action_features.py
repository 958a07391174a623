"""State-dependent features of solo-Café actions, computed from the observation vector
(docs/rl.md, "Action features").

A policy over the 15,905 Café action indices learns slowly if it learns each index on its
own (a plain linear head). `CafeSoloActionFeatures` describes each *legal* action instead
by a fixed-size row of features computed from the observation alone, through its documented
layout (`observation_layout`) and the index's structure (`CafeActionSpace.split`): the
action's kind crossed with a few facts about the seat (action points, round, warehouse),
the grid channels of the cells it names (the `slots` table), its colour, the card and
payment of a take, and the cells a placement covers in the `p0.grid` frame. A policy that
scores actions from these rows (logit = f(phi(obs, a)), the same f for every action)
generalises across actions of a kind; the numpy REINFORCE example
(`examples/train_cafe_solo.py`) and the MaskablePPO policy of `coffeetable.rl.sb3_policy`
both use it.

The features see the observation only, so they carry exactly the observer's information.
Solo Café (one seat) only, in either layout: the full one (`observation_layout(game, 1)`) or,
with `compact=True`, the compact one (`CafeSolo-v1`), where the slots table is `p0.slots`
and the cells a placement covers are read from it (the frame row and column of each visible
cell): the same features from the same state.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np
import numpy.typing as npt

from coffeetable.games.cafe.area import FOOTPRINTS
from coffeetable.games.cafe.deck import CellKind
from coffeetable.games.cafe.observation import CH, GRID, MAX_SLOTS
from coffeetable.rl.observations import observation_layout
from coffeetable.rl.spaces import CafeActionSpace

Array = npt.NDArray[np.float64]

KIND_NAMES = (
    "take",
    "place",
    "produce",
    "fill",
    "dry",
    "roast",
    "deliver",
    "clear",
    "end",
    "bid",
    "bid_done",
    "pass",
)
CELL_KINDS = ("produce", "fill", "dry", "roast", "deliver", "clear")  # with a primary slot
SECOND_KINDS = ("dry", "roast", "deliver")  # with a second slot (source / destination)
SLOT_F = 3 + CH


class CafeSoloActionFeatures:
    """phi(obs, legal indices) -> one row of `size` features per legal action (numpy,
    vectorised over the actions). `batch(obs, masks)` does a batch of observations at once
    (module docstring)."""

    def __init__(self, space: CafeActionSpace, compact: bool = False) -> None:
        game = space.game
        layout = observation_layout(game, 1, compact)
        self.space = space
        self.compact = compact
        self.observation_size = layout.size
        self.span = {f.name: layout.span(f.name) for f in layout.fields}
        self.slots = "p0.slots" if compact else "slots"
        self.starts = np.array([space.offsets[k] for k in KIND_NAMES])
        # static card facts for takes: VP of its shop, cup, and its cells by kind / 6
        cards = []
        for card in game.deck.cards:
            kinds = [cell.kind for row in card.cells for cell in row]
            vp = sum(s.vp for s in card.shops.values())
            row = [vp / 6, float(card.has_cup)] + [kinds.count(k) / 6 for k in CellKind]
            cards.append(row)
        self.cards = np.array(cards)
        self.globals = 10
        self.size = (
            len(KIND_NAMES) * self.globals
            + len(CELL_KINDS) * SLOT_F
            + len(SECOND_KINDS) * SLOT_F
            + 1  # deliver to the warehouse
            + 4 * 3  # colour x (1, warehouse, supply)
            + 6
            + self.cards.shape[1]  # take: payment, card
            + 3
            + 4  # place: cells covered (2, 3, 4), cups / shops / full cells / beans covered
        )

    def part(self, obs: Array, name: str) -> Array:
        start, stop = self.span[name]
        return obs[start:stop]

    def __call__(self, obs: Array, legal: npt.NDArray[np.int64]) -> Array:
        n = len(legal)
        kind = np.searchsorted(self.starts, legal, side="right") - 1
        x = legal - self.starts[kind]
        ap = self.part(obs, "p0.ap")[0]
        rnd = np.argmax(self.part(obs, "round")) / 7
        warehouse = self.part(obs, "p0.warehouse")  # / 4
        supply = self.part(obs, "supply")
        area = self.part(obs, "p0.area")
        g = np.array(
            [1.0, ap, ap == 0, rnd, rnd == 1, area[1], *np.minimum(warehouse, 2.0)],
            dtype=np.float64,
        )
        out = np.zeros((n, self.size))
        col = 0
        # 1. kind x seat facts
        block = np.zeros((n, len(KIND_NAMES), self.globals))
        block[np.arange(n), kind] = g
        out[:, col : col + block[0].size] = block.reshape(n, -1)
        col += block[0].size
        # decompose the indices (state-independent layout of CafeActionSpace)
        s1 = np.full(n, -1)
        s2 = np.full(n, -1)
        colour = np.full(n, -1)
        k = {name: kind == i for i, name in enumerate(KIND_NAMES)}
        s1 = np.where(k["produce"] | k["clear"], x, s1)
        s1 = np.where(k["fill"], x // 5, s1)
        colour = np.where(k["fill"], x % 5 - 1, colour)
        tr = k["dry"] | k["roast"]
        s1 = np.where(tr, (x // (MAX_SLOTS + 1)) // 4, s1)
        colour = np.where(tr, (x // (MAX_SLOTS + 1)) % 4, colour)
        s2 = np.where(tr, x % (MAX_SLOTS + 1) - 1, s2)
        s1 = np.where(k["deliver"], x // (MAX_SLOTS + 1), s1)
        s2 = np.where(k["deliver"], x % (MAX_SLOTS + 1) - 1, s2)
        colour = np.where(k["bid"], x // (MAX_SLOTS + 1), colour)
        slots = self.part(obs, self.slots).reshape(MAX_SLOTS, SLOT_F)
        # 2. the primary slot's channels, in a block per kind
        first = np.where(s1[:, None] >= 0, slots[np.maximum(s1, 0)], 0.0)
        for name in CELL_KINDS:
            out[:, col : col + SLOT_F] = first * k[name][:, None]
            col += SLOT_F
        # 3. the second slot (source of a dry / roast, destination of a delivery)
        second = np.where(s2[:, None] >= 0, slots[np.maximum(s2, 0)], 0.0)
        for name in SECOND_KINDS:
            out[:, col : col + SLOT_F] = second * k[name][:, None]
            col += SLOT_F
        out[:, col] = k["deliver"] & (s2 < 0)
        col += 1
        # 4. colour: which, and how many of it in the warehouse and the supply
        has = colour >= 0
        c = np.maximum(colour, 0)
        for j, values in enumerate((np.ones(4), warehouse, supply)):
            out[np.arange(n), col + c * 3 + j] = np.where(has, values[c], 0.0)
        col += 12
        # 5. take: payment and card
        take = k["take"]
        out[np.arange(n), col + x % 6] = take
        col += 6
        out[:, col : col + self.cards.shape[1]] = (
            self.cards[np.where(take, x // 6, 0)] * take[:, None]
        )
        col += self.cards.shape[1]
        # 6. place: what the footprint covers in the p0 frame
        place = k["place"]
        if place.any():
            padded = self._covered_planes(obs, slots)
            rot = x // (GRID * GRID)
            r = (x % (GRID * GRID)) // GRID
            cc = x % GRID
            covered = np.zeros((n, 4))
            for dr, dc in FOOTPRINTS[0]:
                covered += np.where(
                    (rot % 2 == 0)[:, None], padded[np.minimum(r + dr, GRID + 2), cc + dc], 0
                )
            for dr, dc in FOOTPRINTS[1]:
                covered += np.where(
                    (rot % 2 == 1)[:, None], padded[np.minimum(r + dr, GRID + 2), cc + dc], 0
                )
            covered *= place[:, None]
            count = covered[:, 0].astype(int)
            for j, m in enumerate((2, 3, 4)):
                out[:, col + j] = place & (count == m)
            out[:, col + 3 : col + 6] = covered[:, 1:] / 2
        return out

    def _covered_planes(self, obs: Array, slots: Array) -> Array:
        """(GRID + 3, GRID + 3, 4): per cell of the p0 frame (padded), a visible cell, a
        cup, a shop, cubes on it; from `p0.grid`, or in the compact layout from the slots
        table (the visible cells with their frame row and column)."""
        padded = np.zeros((GRID + 3, GRID + 3, 4))
        if self.compact:
            present = slots[slots[:, 0] > 0]
            rows = np.rint(present[:, 1] * (GRID - 1)).astype(np.intp)
            cols = np.rint(present[:, 2] * (GRID - 1)).astype(np.intp)
            cells = present[:, 3:]
            padded[rows, cols, 0] = cells[:, :11].any(axis=1)
            padded[rows, cols, 1] = cells[:, int(CellKind.CUP)]
            padded[rows, cols, 2] = cells[:, int(CellKind.SHOP)]
            padded[rows, cols, 3] = cells[:, 16:20].sum(axis=1) > 0
            return padded
        grid = self.part(obs, "p0.grid").reshape(GRID, GRID, CH)
        padded[:GRID, :GRID, 0] = grid[:, :, :11].any(axis=2)  # a visible cell
        padded[:GRID, :GRID, 1] = grid[:, :, int(CellKind.CUP)]
        padded[:GRID, :GRID, 2] = grid[:, :, int(CellKind.SHOP)]
        padded[:GRID, :GRID, 3] = grid[:, :, 16:20].sum(axis=2) > 0  # cubes on it
        return padded

    def batch(
        self,
        obs: npt.NDArray[np.floating],
        masks: npt.NDArray[np.bool_],
        cache: FeatureCache | None = None,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """Features of the legal actions of a batch: `obs` (B, observation size) and `masks`
        (B, actions) give `index` (B, L), the legal action indices of each row, ascending,
        padded with 0 to L, the largest legal count of the batch, `valid` (B, L), False on
        padding, and `phi` (valid.sum(), size) float32, the features of the legal actions in
        the order of `index[valid]`. A row without a legal action raises `ValueError`. With a `cache`, rows seen before (the same observation and mask) are
        taken from it."""
        obs = np.asarray(obs)
        masks = np.asarray(masks, dtype=bool)
        if obs.ndim != 2 or masks.shape != (obs.shape[0], self.space.size):
            raise ValueError(
                f"expected obs (B, size) and masks (B, {self.space.size}); "
                f"got {obs.shape} and {masks.shape}"
            )
        rows: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]] = []
        for i, (o, m) in enumerate(zip(obs, masks, strict=True)):
            key = cache.key(o, m) if cache is not None else b""
            row = cache.get(key) if cache is not None else None
            if row is None:
                legal = np.flatnonzero(m)
                if len(legal) == 0:
                    raise ValueError(f"row {i} of the masks has no legal action")
                row = (self(o.astype(np.float64), legal).astype(np.float32), legal)
                if cache is not None:
                    cache.put(key, row)
            rows.append(row)
        width = max(len(idx) for _, idx in rows)
        index = np.zeros((len(rows), width), dtype=np.int64)
        valid = np.zeros((len(rows), width), dtype=bool)
        for i, (_, idx) in enumerate(rows):
            index[i, : len(idx)] = idx
            valid[i, : len(idx)] = True
        return np.concatenate([f for f, _ in rows]), index, valid


class FeatureCache:
    """The feature rows of the last `size` distinct (observation, mask) pairs, keyed by a
    SHA-1 digest of both. A PPO update scores the same rollout several times; the
    cache computes each row once."""

    def __init__(self, size: int = 2048) -> None:
        if size < 1:
            raise ValueError("a feature cache holds at least one row")
        self.size = size
        self.rows: OrderedDict[bytes, tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]]
        self.rows = OrderedDict()
        self.hits = self.misses = 0

    @staticmethod
    def key(obs: npt.NDArray[np.floating], mask: npt.NDArray[np.bool_]) -> bytes:
        digest = hashlib.sha1(usedforsecurity=False)  # the fastest here; a key, not a secret
        digest.update(np.ascontiguousarray(obs, dtype=np.float32).data)
        digest.update(np.packbits(mask).data)
        return digest.digest()

    def get(self, key: bytes) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]] | None:
        row = self.rows.get(key)
        if row is None:
            self.misses += 1
        else:
            self.hits += 1
        return row

    def put(self, key: bytes, row: tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]) -> None:
        self.rows[key] = row
        if len(self.rows) > self.size:
            self.rows.popitem(last=False)


__all__ = ["KIND_NAMES", "CafeSoloActionFeatures", "FeatureCache"]
