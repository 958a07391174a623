"""Solo Café as a single-agent Gymnasium environment (docs/rl.md).

    import gymnasium, coffeetable.rl
    env = gymnasium.make("coffeetable/CafeSolo-v0", espresso=True)
    obs, info = env.reset(seed=7)
    obs, reward, terminated, truncated, info = env.step(info["action_mask"].argmax())

- **Observation**: the Café observation tensor of seat 0 (a float32 Box): the full layout
  (`observation="full"`, the default of the class and of `CafeSolo-v0`) or the compact one
  (`observation="compact"`, the default of `CafeSolo-v1`); the legal actions
  are in `info["action_mask"]` (int8, 1 = legal), with `info["score"]` (the score as if the
  game ended now) and `info["illegal_action"]` (whether the last action was illegal).
- **Actions**: `Discrete(15905)`, the dense Café index of `coffeetable.rl.spaces`.
- **Reward**: the final score, on the step that ends the game; 0 on every other step. With
  `shaping="estimate"` every step is instead rewarded with the change of the greedy bot's
  estimate of the final score (`coffeetable.bots.heuristics.value`), which is the final
  score once the game is over; an episode's return is then the final score minus the
  estimate at the start.
- **Illegal actions** (`illegal="penalty"`, the default): nothing changes, the reward is
  `illegal_reward` (-1) and `info["illegal_action"]` is True. `illegal="raise"` raises
  `IllegalActionError` instead. Either way, mask your policy.
- **Truncation** after `max_steps` steps (default 1000, illegal ones included); a solo game
  takes 40-250 legal steps.
- **Seeds**: `reset(seed=s)` sets up exactly `new_initial_state(1, s, options)`; `reset()`
  draws the seed from the environment's generator (`np_random`).
- Options: `espresso`, `promos` (advanced mode needs 2 players or more).
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np
import numpy.typing as npt

from coffeetable.bots.heuristics import value as estimate
from coffeetable.core.errors import DataError, IllegalActionError
from coffeetable.core.game import Action
from coffeetable.core.registry import find_game
from coffeetable.games.cafe.observation import Observer as CafeObserver
from coffeetable.rl.observations import is_compact, observation_box, observer
from coffeetable.rl.spaces import CafeActionSpace, MaskedDiscrete, action_space

Obs = npt.NDArray[np.float32]
SHAPINGS = (None, "estimate")
ILLEGAL = ("penalty", "raise")


class CafeSoloEnv(gymnasium.Env[Obs, np.int64]):
    """Solo Café: one seat, reward = the final score (module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        render_mode: str | None = None,
        shaping: str | None = None,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
        max_steps: int = 1000,
        observation: str = "full",
        **options: Any,
    ) -> None:
        self.game = find_game("cafe")
        compact = is_compact(self.game, observation)  # DataError for another name
        self.game.new_initial_state(1, 0, options)  # DataError for bad options now
        self.options = self.game.normalize_options(options)
        if shaping not in SHAPINGS:
            raise DataError(f"unknown shaping {shaping!r}; use None or 'estimate'")
        if illegal not in ILLEGAL:
            raise DataError(
                f"unknown illegal-action handling {illegal!r}; use 'penalty' or 'raise'"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise DataError(f"unknown render mode {render_mode!r}; modes: ansi, human")
        if max_steps < 1:
            raise DataError("max_steps must be at least 1")
        self.render_mode = render_mode
        self.shaping = shaping
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.max_steps = max_steps
        self.actions: CafeActionSpace = action_space(self.game)  # type: ignore[assignment]
        #: the observation layout, "full" or "compact" (docs/rl.md)
        self.observation_kind = observation
        self.observer = observer(self.game, compact)  # each seat's tensor kept, updated
        self.observation = self.observer.observe
        self.observation_space = observation_box(self.game, 1, compact)  # type: ignore[assignment]
        self.action_space = MaskedDiscrete(self.actions.size)
        self.state = self.game.new_initial_state(1, 0, self.options)
        self._legal: dict[int, Action] = {}
        self._value = 0.0
        self._steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(seed) if seed is not None else int(self.np_random.integers(2**62))
        self.state = self.game.new_initial_state(1, game_seed, self.options)
        self.seed_used = game_seed
        self._steps = 0
        self._value = estimate(self.state, 0) if self.shaping else 0.0
        self._legal = self.actions.legal(self.state, 0)
        return self._observe(illegal=False)

    def _observe(self, illegal: bool) -> tuple[Obs, dict[str, Any]]:
        return self.observation(self.state, 0), self.info(illegal)

    def info(self, illegal: bool) -> dict[str, Any]:
        """The step's info: the mask of legal actions, the score now, whether the action was
        illegal."""
        return {
            "action_mask": self.actions.mask_of(self._legal),
            "score": self.score(),
            "illegal_action": illegal,
        }

    def score(self) -> int:
        """The score as if the game ended now (the observer's, computed again only when the
        area or warehouse changed)."""
        return cast(CafeObserver, self.observer).score(self.state, 0).total  # type: ignore[arg-type]

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now as booleans (sb3-contrib's `MaskablePPO` convention); the
        same as `info["action_mask"]`."""
        mask: npt.NDArray[np.bool_] = self.actions.mask_of(self._legal, np.bool_)
        return mask

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        reward, terminated, truncated, illegal = self.advance(action)
        obs, info = self._observe(illegal)
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, truncated, info

    def advance(self, action: Any) -> tuple[float, bool, bool, bool]:
        """`step` without building its observation and info: (reward, terminated, truncated,
        illegal). The vector environment (`coffeetable.rl.vector`) writes the observation
        into its own buffers."""
        if self.state.is_over():
            raise IllegalActionError("the game is over; call reset()")
        self._steps += 1
        index = int(action)
        move = self._legal.get(index)
        reward = 0.0
        if move is None:
            if self.illegal == "raise":
                self._steps -= 1
                raise IllegalActionError(self._explain(index))
            reward = self.illegal_reward
        else:
            self.state.apply_unchecked(0, move)
            self._legal = self.actions.legal(self.state, 0)
            if self.shaping:
                value = estimate(self.state, 0)
                reward = value - self._value
                self._value = value
            elif self.state.is_over():
                reward = float(self.state.scores()[0].total)
        terminated = self.state.is_over()
        truncated = not terminated and self._steps >= self.max_steps
        return float(reward), terminated, truncated, move is None

    def _explain(self, index: int) -> str:
        if not 0 <= index < self.actions.size:
            return f"action {index} is outside the action space 0..{self.actions.size - 1}"
        try:
            move = self.actions.decode(self.state, 0, index)
        except ValueError as exc:
            return f"action {index} is not legal now: {exc}"
        why = self.state.explain_illegal(0, move)
        return f"action {index} ({move.notation()}) is not legal now: {why}"

    def render(self) -> str | None:
        text = self.state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text


__all__ = ["CafeSoloEnv"]
