"""Learned position values: the features a model reads, and the models themselves (docs/bots.md,
"The learned value").

A model estimates a seat's final score from the game's features (FEATURES): in Café
`cafe_features(state, seat)`, numbers computed from what that seat may know only (its own area,
warehouse, stage and card in hand, the round, the deck's size; never the deck's order, the
cards removed at random or the RNG); in Coffee Rush `rush_features(state, seat)`, the seat's
own board and the public counts (never the deck's order). So a bot that uses a model still
does not peek. The hand-written evaluation is one of the features: the model learns a
correction to it.

Models are data files in `coffeetable/bots/models/`: `NAME-vN.json` holds the weights (a small
multilayer perceptron, or a linear model: no hidden layer), `NAME-vN.toml` its provenance (how
it was made, the command, the code's commit, the deck's sha256, the games, the date, the
held-out error). They are read with the standard library only, and the forward pass is plain
Python, so playing never needs numpy: generating positions and training do (the `rl` extra;
benchmarks/selfplay.py and benchmarks/train_value.py). A bot never needs a model to play:
`evaluator(state, ...)` gives None when no model fits the game, its deck (by sha256) or its
number of players, and the bot then plays with the hand-written evaluation.
"""

from __future__ import annotations

import functools
import json
import math
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from coffeetable.core.errors import DataError
from coffeetable.core.game import State

MODELS_PACKAGE = "coffeetable.bots.models"
#: the model a bot with `+learned` uses, per game: its name (the newest version is taken)
DEFAULT_MODEL = {"cafe": "cafe-value", "coffee-rush": "rush-value"}
_FILE = re.compile(r"^(?P<name>[a-z0-9-]+)-v(?P<version>\d+)\.json$")

CAFE_FEATURES: tuple[str, ...] = (
    "evaluation",  # the hand-written evaluation (heuristics.cafe_value)
    "score_now",  # the score if the game ended now
    "round",
    "rounds_left",
    "cups",  # action points a round (capped)
    "ap_left",  # this round's action points still to spend
    "stage_wait",
    "stage_place",
    "stage_act",
    "stage_done",
    "card_in_hand",
    "deck_left",
    "players",
    "bean_cubes",
    "dry_cubes",
    "roast_cubes",
    "other_cubes",
    "warehouse_1",  # the warehouse, sorted: the lowest colour first
    "warehouse_2",
    "warehouse_3",
    "warehouse_4",
    "warehouse_missing",
    "shops_complete_vp",
    "shops_open_vp",
    "shops_open_missing",
    "shops_open",
    "cells_bean",
    "cells_dry",
    "cells_roast",
    "cells_cup",
    "cells_ship",
    "cells_shop",
    "cells_espresso",
    "cells_supply",
    "cells_cake",
    "cells_bonus",
    "bean_colours",
    "cups_x_rounds_left",
    "evaluation_x_rounds_left",
)


def cafe_features(state: State, seat: int) -> list[float]:
    """The features of CAFE_FEATURES for `seat`, from that seat's own information."""
    from coffeetable.bots.heuristics import cafe_value
    from coffeetable.games.cafe.deck import CellKind
    from coffeetable.games.cafe.state import MAX_AP, ROUNDS, CafeState, Stage

    assert isinstance(state, CafeState)
    player = state.players[seat]
    area = player.area
    on = area.cubes_per_kind()
    kinds = area.kinds()
    evaluation = cafe_value(state, seat)
    rounds_left = ROUNDS - state.round
    cups = min(MAX_AP, area.cups)
    warehouse = sorted(player.warehouse)
    complete_vp = open_vp = missing = opened = 0
    for shop in area.shops:
        if shop.complete:
            complete_vp += shop.spec.vp
        elif shop.available:
            opened += 1
            open_vp += shop.spec.vp
            missing += sum(n - h for n, h in zip(shop.spec.requires, shop.cubes, strict=True))
    by_stage = [sum(on.get(k, ())) for k in (CellKind.BEAN, CellKind.DRY, CellKind.ROAST)]
    other = sum(
        sum(v) for k, v in on.items() if k not in (CellKind.BEAN, CellKind.DRY, CellKind.ROAST)
    )
    cells = [
        len(kinds.get(k, ()))
        for k in (
            CellKind.BEAN,
            CellKind.DRY,
            CellKind.ROAST,
            CellKind.CUP,
            CellKind.SHIP,
            CellKind.SHOP,
            CellKind.ESPRESSO,
            CellKind.SUPPLY,
            CellKind.CAKE,
            CellKind.BONUS,
        )
    ]
    stage = player.stage
    return [
        evaluation,
        float(state.score(seat).total),
        float(state.round),
        float(rounds_left),
        float(cups),
        float(player.ap if stage is Stage.ACT else 0),
        float(stage is Stage.WAIT),
        float(stage is Stage.PLACE),
        float(stage is Stage.ACT),
        float(stage is Stage.DONE),
        float(player.hand is not None),
        float(len(state.deck)),
        float(state.num_players),
        *map(float, by_stage),
        float(other),
        *map(float, warehouse),
        float(warehouse.count(0)),
        float(complete_vp),
        float(open_vp),
        float(missing),
        float(opened),
        *map(float, cells),
        float(sum(1 for n in area.cell_colours(CellKind.BEAN) if n)),
        float(cups * rounds_left),
        evaluation * rounds_left,
    ]


RUSH_FEATURES: tuple[str, ...] = (
    "evaluation",  # the hand-written evaluation (heuristics.rush_value)
    "score_now",  # the score if the game ended now
    "completed",
    "upgrades",
    "penalties",
    "rush_tokens",
    "deck_left",  # the deck's size (never its order)
    "closed",  # the start-player token is CLOSED: the game ends this round
    "players",
    "orders_1",  # orders on each counter (4: the next to fall)
    "orders_2",
    "orders_3",
    "orders_4",
    "orders_special",
    "cups_value",  # what the cups are worth toward the orders (heuristics)
    "cup_tokens",
    "hand_tokens",  # tokens taken this turn, not poured yet
    "cups_ready",  # cups that complete one of the orders as they are
    "penalties_all",  # every seat's penalties (5 close the game)
    "turns_before_mine",  # other seats' turns before this seat's next (0: its turn)
    "evaluation_x_deck",
    "upgrades_x_deck",
)


def rush_features(state: State, seat: int) -> list[float]:
    """The features of RUSH_FEATURES for `seat`: its own board and the public counts (the
    deck's size, every seat's penalties, whose turn), never the deck's order."""
    from coffeetable.bots.heuristics import cups_value, rush_orders, rush_value
    from coffeetable.games.coffee_rush.state import RushState

    assert isinstance(state, RushState)
    n = state.num_players
    counters = state.counters[seat]
    orders = rush_orders(state, seat)
    cups = tuple(state.cups[seat])
    recipes = {recipe for recipe, _, _ in orders}
    completed = len(state.completed[seat])
    ups = bin(state.upgrades[seat]).count("1")
    penalties = len(state.penalties[seat])
    deck = float(len(state.deck))
    evaluation = rush_value(state, seat)
    current = state.current if state.current >= 0 else seat
    return [
        evaluation,
        float(completed + 2 * ups - penalties),
        float(completed),
        float(ups),
        float(penalties),
        float(state.rush[seat]),
        deck,
        float(state.closed),
        float(n),
        *(float(len(counters[k])) for k in range(4)),
        float(sum(1 for _, special, _ in orders if special)),
        cups_value(cups, orders),
        float(sum(map(sum, cups))),
        float(sum(state.hand)) if current == seat else 0.0,
        float(sum(1 for cup in cups if any(cup) and cup in recipes)),
        float(sum(len(p) for p in state.penalties)),
        float((seat - current) % n),
        evaluation * deck,
        ups * deck,
    ]


FEATURES: dict[str, tuple[tuple[str, ...], Callable[[State, int], list[float]]]] = {
    "cafe": (CAFE_FEATURES, cafe_features),
    "coffee-rush": (RUSH_FEATURES, rush_features),
}


@dataclass(frozen=True)
class ValueModel:
    """A model of a seat's final score: inputs standardized (`mean`, `scale`), then dense
    layers (tanh between them, none after the last), then the output rescaled to points."""

    name: str
    version: int
    game: str
    features: tuple[str, ...]
    deck_sha256: str
    players: tuple[int, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    layers: tuple[tuple[tuple[tuple[float, ...], ...], tuple[float, ...]], ...]  # (W rows, b)
    target_mean: float
    target_scale: float
    provenance: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.name}-v{self.version}"

    def predict(self, x: Sequence[float]) -> float:
        h = [(v - m) / s for v, m, s in zip(x, self.mean, self.scale, strict=True)]
        last = len(self.layers) - 1
        for index, (weights, bias) in enumerate(self.layers):
            out = [
                b + math.fsum(w * v for w, v in zip(row, h, strict=True))
                for row, b in zip(weights, bias, strict=True)
            ]
            h = out if index == last else [math.tanh(v) for v in out]
        return self.target_mean + self.target_scale * h[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "game": self.game,
            "features": list(self.features),
            "deck_sha256": self.deck_sha256,
            "players": list(self.players),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "layers": [{"weights": [list(r) for r in w], "bias": list(b)} for w, b in self.layers],
            "target_mean": self.target_mean,
            "target_scale": self.target_scale,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], provenance: dict[str, Any]) -> ValueModel:
        try:
            model = cls(
                name=str(data["name"]),
                version=int(data["version"]),
                game=str(data["game"]),
                features=tuple(data["features"]),
                deck_sha256=str(data["deck_sha256"]),
                players=tuple(int(n) for n in data["players"]),
                mean=tuple(float(v) for v in data["mean"]),
                scale=tuple(float(v) for v in data["scale"]),
                layers=tuple(
                    (
                        tuple(tuple(float(v) for v in row) for row in layer["weights"]),
                        tuple(float(v) for v in layer["bias"]),
                    )
                    for layer in data["layers"]
                ),
                target_mean=float(data["target_mean"]),
                target_scale=float(data["target_scale"]),
                provenance=provenance,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"a value model file is malformed: {exc}") from exc
        model.check()
        return model

    def check(self) -> None:
        """Shapes that fit together, or a DataError."""
        known = FEATURES.get(self.game)
        if known is None or known[0] != self.features:
            raise DataError(f"model {self.label}: its features are not those of this code")
        width = len(self.features)
        if len(self.mean) != width or len(self.scale) != width or not self.layers:
            raise DataError(f"model {self.label}: the standardization does not fit its features")
        if any(s <= 0 for s in self.scale):
            raise DataError(f"model {self.label}: a feature scale is not positive")
        for weights, bias in self.layers:
            if len(weights) != len(bias) or any(len(row) != width for row in weights):
                raise DataError(f"model {self.label}: a layer's shape does not fit")
            width = len(bias)
        if width != 1:
            raise DataError(f"model {self.label}: the last layer must give one number")


def model_files() -> dict[str, list[int]]:
    """The models shipped, by name: their versions, ascending."""
    out: dict[str, list[int]] = {}
    for entry in resources.files(MODELS_PACKAGE).iterdir():
        found = _FILE.match(entry.name)
        if found:
            out.setdefault(found["name"], []).append(int(found["version"]))
    return {name: sorted(versions) for name, versions in out.items()}


@functools.cache
def load_model(name: str, version: int | None = None) -> ValueModel | None:
    """Model `name` at `version` (the newest if None), or None if there is none."""
    versions = model_files().get(name, [])
    if version is None:
        if not versions:
            return None
        version = versions[-1]
    if version not in versions:
        return None
    folder = resources.files(MODELS_PACKAGE)
    data = json.loads(folder.joinpath(f"{name}-v{version}.json").read_text("utf-8"))
    sidecar = folder.joinpath(f"{name}-v{version}.toml")
    provenance = tomllib.loads(sidecar.read_text("utf-8")) if sidecar.is_file() else {}
    return ValueModel.from_json(data, provenance)


def deck_sha256(state: State) -> str | None:
    """The sha256 of the deck file the game is played with (Café's deck, Coffee Rush's card
    file), if the game has one."""
    deck = getattr(state.game, "deck", None) or getattr(state.game, "cards", None)
    digest = getattr(deck, "digest", None)
    return digest if isinstance(digest, str) else None


def evaluator(state: State, version: int | None = None) -> Callable[[State, int], float] | None:
    """The learned evaluation for this game, deck and number of players (a function of
    (state, seat), in points), or None when no model fits: the caller then uses the
    hand-written one. `version`: the model's (None or 0: the newest fitted on the state's
    number of players; a version that is not shipped is a DataError). Positions where the
    seat's score is final (`heuristics.score_is_final`) are scored exactly."""
    game = state.game.info.name
    name = DEFAULT_MODEL.get(game)
    if name is None:
        return None
    # a version named is that model or none; else the newest fitted on this player count
    # (each player count may have its own: cafe-value-v2 solo, v3 for 2 players)
    shipped = model_files().get(name, [])
    if version and version not in shipped:  # a mistyped spec, not a model that does not fit
        have = ", ".join(f"v{v}" for v in shipped) or "none"
        raise DataError(f"there is no model {name}-v{version} for {game} (shipped: {have})")
    versions = [version] if version else list(reversed(shipped))
    model = None
    for number in versions:
        candidate = load_model(name, number)
        if candidate is not None and state.num_players in candidate.players:
            model = candidate
            break
    if model is None or model.game != game or model.deck_sha256 != deck_sha256(state):
        return None
    features = FEATURES[game][1]
    from coffeetable.bots.heuristics import score_is_final

    def evaluate(s: State, seat: int) -> float:
        if score_is_final(s, seat):  # over, or (Café) the seat's last turn ended
            return float(s.scores()[seat].total)
        return model.predict(features(s, seat))

    return evaluate
