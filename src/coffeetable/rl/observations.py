"""Observation tensors of every game behind one interface (layouts in docs/rl.md).

The tensors themselves live with each game (`coffeetable.games.<game>.observation`): they
read only the public state, the information of `state.view(seat)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, Protocol

import gymnasium
import numpy as np
import numpy.typing as npt

from coffeetable.core.errors import DataError
from coffeetable.core.game import Game, State
from coffeetable.core.layout import TensorLayout

#: the observation layouts an environment may take (`observation=`): Café has both (docs/rl.md,
#: "Compact observations"), Coffee Rush the full one only
OBSERVATIONS = ("full", "compact")


def is_compact(game: Game, observation: str) -> bool:
    """Whether `observation` ("full" or "compact") names the compact layout; DataError for
    another name, or "compact" for a game without one (Coffee Rush)."""
    if observation not in OBSERVATIONS:
        raise DataError(
            f"unknown observation {observation!r}; observations: {', '.join(OBSERVATIONS)}"
        )
    if observation == "compact" and game.info.name != "cafe":
        raise DataError(f"{game.info.name} has no compact observation; use 'full'")
    return observation == "compact"


def _layout_args(game: Game, compact: bool) -> dict[str, bool]:
    """The `compact` keyword for the game's observation functions (Café only)."""
    if compact:
        is_compact(game, "compact")
        return {"compact": True}
    return {}


def observation_module(game: Game) -> ModuleType:
    """The game's observation module (`observation_tensor`, `observation_shape`,
    `observation_layout`)."""
    name = game.info.name
    if name == "cafe":
        from coffeetable.games.cafe import observation as cafe

        return cafe
    if name == "coffee-rush":
        from coffeetable.games.coffee_rush import observation as rush

        return rush
    raise ValueError(f"no observation tensor for the game {name!r}")


ObservationFn = Callable[[State, int], npt.NDArray[np.float32]]


class Observing(Protocol):
    """What an environment observes through: `observe(state, seat)`, a new array equal to
    `observation_tensor(state, seat)`, and `write(state, seat)`, the same values in an array
    that the next call may change (to copy at once into a buffer of one's own)."""

    def observe(self, state: Any, seat: int) -> npt.NDArray[np.float32]: ...

    def write(self, state: Any, seat: int) -> npt.NDArray[np.float32]: ...


class _FromScratch:
    """`Observing` for a game whose tensor is built from scratch at every call."""

    def __init__(self, fn: ObservationFn) -> None:
        self.observe = self.write = fn


def observer(game: Game, compact: bool = False) -> Observing:
    """A new `Observing` of the game, for one environment to keep (rather than look the
    game's module up at every step). Where the game has an `Observer` (both games), it is a
    new one: it keeps each seat's tensor and rewrites only the parts whose state changed,
    so each environment needs its own. `compact`: Café's compact layout."""
    module = observation_module(game)
    kwargs = _layout_args(game, compact)
    cls = getattr(module, "Observer", None)
    if cls is not None:
        made: Observing = cls(game, **kwargs)
    else:
        made = _FromScratch(module.observation_tensor)
    return made


def observation_function(game: Game, compact: bool = False) -> ObservationFn:
    """`observer(game, compact).observe`: `(state, seat) -> tensor`, equal to the game's
    `observation_tensor`, for one environment to keep."""
    return observer(game, compact).observe


def observation_tensor(state: State, seat: int, compact: bool = False) -> npt.NDArray[np.float32]:
    """What `seat` may know about `state`, as the game's flat float32 vector (`compact`:
    Café's compact layout)."""
    module = observation_module(state.game)
    out: npt.NDArray[np.float32] = module.observation_tensor(
        state, seat, **_layout_args(state.game, compact)
    )
    return out


def observation_layout(game: Game, num_players: int, compact: bool = False) -> TensorLayout:
    """The named slices of the game's observation for `num_players` (`compact`: Café's
    compact layout)."""
    layout: TensorLayout = observation_module(game).observation_layout(
        game, num_players, **_layout_args(game, compact)
    )
    return layout


def observation_shape(
    game: Game,
    num_players: int,
    options: Mapping[str, Any] | None = None,
    compact: bool = False,
) -> tuple[int]:
    shape: tuple[int] = observation_module(game).observation_shape(
        game, num_players, options, **_layout_args(game, compact)
    )
    return shape


def observation_box(game: Game, num_players: int, compact: bool = False) -> gymnasium.spaces.Box:
    """The Gymnasium Box of the observation: float32, 0 to each slice's declared bound."""
    layout = observation_layout(game, num_players, compact)
    return gymnasium.spaces.Box(layout.low(), layout.high(), dtype=np.float32)


__all__ = [
    "OBSERVATIONS",
    "is_compact",
    "observation_box",
    "observation_function",
    "observation_layout",
    "observation_module",
    "observation_shape",
    "observation_tensor",
    "observer",
]
