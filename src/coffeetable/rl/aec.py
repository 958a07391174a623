"""PettingZoo AEC environments over the core game protocol (docs/rl.md).

`CoffeetableAECEnv` is the shared raw environment; `cafe_v0` and `coffee_rush_v0` are thin
modules that name the game. Agents are `player_0 ... player_{n-1}` (seat numbers).

- **Turns.** `agent_selection` is the lowest seat in `state.current_seats()`. Café's
  placement-and-actions phase is simultaneous: every seat with a card or actions left may
  act, in any order, and the seats interact only through the shared cube supply. The
  environment serialises it: the lowest such seat acts until it is done for the round,
  then the next. That is one of the orders the rules allow, so every game the environment
  plays is a legal Café game; what it fixes is who draws first from a scarce supply (the
  lower seat), and a later seat sees what the earlier ones did this round (public
  anyway).
- **Observations.** `{"observation": float32 vector, "action_mask": int8 vector}` for the
  observing agent: only what that seat may know (`observation_tensor`), and its legal
  actions now (all zero when it may not act). `observation="full"` or `"compact"` (Café's
  layout without the dense grids) chooses the layout; the default is the class's
  (`cafe_v0`: full, `cafe_v1`: compact).
- **Rewards** come at the end only. `reward="win"`: the winners share +1 and the others
  share -1 (two players: +1 / -1; a tie between all seats: 0 each); `reward="score"`:
  the final score minus the mean final score of the other seats (solo: the final score).
  The default is "win", and "score" in solo Café.
- **Illegal actions** raise `IllegalActionError` (a ValueError) and change nothing;
  `env(illegal_reward=-1.0)` instead wraps the environment in PettingZoo's
  `TerminateIllegalWrapper` (the game ends, that agent gets the given reward).
- **Seeds.** `reset(seed=s)` sets the game up exactly as `game.new_initial_state(n, s,
  options)`; `reset()` without a seed draws the next game's seed from a generator seeded
  by the last seed given (or by the operating system). `reset`'s `options` are not used:
  the game's options are keyword arguments of the constructor.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from coffeetable.core.errors import DataError, IllegalActionError
from coffeetable.core.game import Action, Game, State
from coffeetable.core.registry import find_game
from coffeetable.rl.observations import is_compact, observation_box, observer
from coffeetable.rl.spaces import MaskedDiscrete, action_space

REWARDS = ("win", "score")
ObsDict = dict[str, np.ndarray[Any, Any]]


def final_rewards(state: State, mode: str) -> list[float]:
    """The end-of-game reward of every seat (module docstring)."""
    n = state.num_players
    totals = [s.total for s in state.scores()]
    if mode == "score":
        if n == 1:
            return [float(totals[0])]
        return [float(t - (sum(totals) - t) / (n - 1)) for t in totals]
    winners = set(state.winners())
    k = len(winners)
    if k == n:
        return [0.0] * n
    return [1.0 / k if s in winners else -1.0 / (n - k) for s in range(n)]


class CoffeetableAECEnv(AECEnv[str, ObsDict, int]):
    """A raw PettingZoo AEC environment for one coffeetable game."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": ["ansi", "human"],
        "name": "coffeetable",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    game_name = ""
    #: the observation layout when `observation` is not given ("full"; `cafe_v1`: "compact")
    default_observation = "full"

    def __init__(
        self,
        num_players: int = 2,
        reward: str | None = None,
        render_mode: str | None = None,
        game: Game | None = None,
        observation: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.game = game if game is not None else find_game(self.game_name)
        self.num_players = num_players
        # validate everything now: a bad player count or option raises DataError here
        self.game.new_initial_state(num_players, 0, options)
        self.options = self.game.normalize_options(options)
        if reward is None:
            reward = "score" if num_players == 1 else "win"
        if reward not in REWARDS:
            raise DataError(f"unknown reward {reward!r}; rewards: {', '.join(REWARDS)}")
        self.reward_mode = reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise DataError(
                f"unknown render mode {render_mode!r}; modes: "
                + ", ".join(self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        if observation is None:
            observation = self.default_observation
        #: the observation layout, "full" or "compact" (Café only; docs/rl.md)
        self.observation_kind = observation
        compact = is_compact(self.game, observation)
        self.actions = action_space(self.game)
        self.observer = observer(self.game, compact)  # each seat's tensor kept, updated
        self.observation = self.observer.observe
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        box = observation_box(self.game, num_players, compact)
        mask = gymnasium.spaces.Box(0, 1, shape=(self.actions.size,), dtype=np.int8)
        self._observation_spaces = {
            a: gymnasium.spaces.Dict({"observation": box, "action_mask": mask})
            for a in self.possible_agents
        }
        self._action_spaces = {a: MaskedDiscrete(self.actions.size) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: State = self.game.new_initial_state(num_players, 0, self.options)
        self._legal: tuple[int, int, dict[int, Action]] | None = None
        self._moves = 0
        self.agents: list[str] = []

    # --- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._action_spaces[agent]

    # --- the episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = int(seed)
        else:
            game_seed = self._seeds.getrandbits(63)
        self.state = self.game.new_initial_state(self.num_players, game_seed, self.options)
        self.seed_used = game_seed
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._legal = None
        self._moves = 0
        self._select()

    def _select(self) -> None:
        seats = self.state.current_seats()
        if seats:
            self.agent_selection = self.possible_agents[min(seats)]

    def legal_actions(self, seat: int) -> dict[int, Action]:
        """Index -> engine action for `seat` now (cached until the next step)."""
        cached = self._legal
        if cached is not None and cached[0] == self._moves and cached[1] == seat:
            return cached[2]
        legal = self.actions.legal(self.state, seat)
        self._legal = (self._moves, seat, legal)
        return legal

    def observe(self, agent: str) -> ObsDict:
        seat = self._seat[agent]
        return {
            "observation": self.observation(self.state, seat),
            "action_mask": self.actions.mask_of(self.legal_actions(seat)),
        }

    def action_masks(self, agent: str | None = None) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal actions of `agent` (default: `agent_selection`) as booleans, sb3-contrib's
        `action_masks()` convention; the same as `observe(agent)["action_mask"]`."""
        seat = self._seat[self.agent_selection if agent is None else agent]
        mask: np.ndarray[Any, np.dtype[np.bool_]] = self.actions.mask_of(
            self.legal_actions(seat), np.bool_
        )
        return mask

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        if action is None:
            raise IllegalActionError(f"{agent} must act: None is for finished agents only")
        index = int(action)
        move = self.legal_actions(seat).get(index)
        if move is None:
            raise IllegalActionError(self._explain(seat, index))
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_unchecked(seat, move)
        self._moves += 1
        if self.state.is_over():
            self._clear_rewards()
            for a, r in zip(
                self.possible_agents, final_rewards(self.state, self.reward_mode), strict=True
            ):
                self.rewards[a] = r
                self.terminations[a] = True
            self._accumulate_rewards()
        else:
            # rewards come at the end only: until then every reward is 0 (set so by reset)
            # and stays 0, so there is nothing to clear or to add to the cumulative ones
            self._select()
        if self.render_mode == "human":
            self.render()

    def _explain(self, seat: int, index: int) -> str:
        if not 0 <= index < self.actions.size:
            return f"action {index} is outside the action space 0..{self.actions.size - 1}"
        try:
            move = self.actions.decode(self.state, seat, index)
        except ValueError as exc:
            return f"action {index} is not legal now: {exc}"
        return (
            f"action {index} ({move.notation()}) is not legal now: "
            + self.state.explain_illegal(seat, move)
        )

    # --- rendering --------------------------------------------------------------------------
    def render(self) -> str | None:
        text = self.state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper[str, ObsDict, int]):
    """PettingZoo's `OrderEnforcingWrapper` (the same checks, errors and warnings), whose
    `last()` reads the agent and its observation, reward, termination, truncation and info
    straight from the raw environment, and whose `step` checks the action's bounds as
    `AssertOutOfBoundsWrapper` does and steps the raw environment, when only that wrapper
    lies between (`wrap` without `illegal_reward`): the inherited methods read each value
    through `__getattr__` forwarding, one wrapper at a time. Otherwise (a wrapper in between may
    hold values of its own, as `TerminateIllegalWrapper` does) it is the inherited one."""

    def __init__(self, env: AECEnv[str, ObsDict, int]) -> None:
        super().__init__(env)
        inner = env.env if type(env) is wrappers.AssertOutOfBoundsWrapper else None
        self._raw = inner if isinstance(inner, CoffeetableAECEnv) else None

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo's own class prints itself: the env's name

    def step(self, action: int | None) -> None:
        """PettingZoo's `OrderEnforcingWrapper.step` and `AssertOutOfBoundsWrapper.step` (the
        same checks, error and warning) calling the raw environment directly when only the
        bounds check lies between, as `last()` does; otherwise the inherited one."""
        raw = self._raw
        if raw is None or not self._has_reset or not raw.agents:
            super().step(action)
            return
        self._has_updated = True
        agent = raw.agent_selection
        if not (
            (action is None and (raw.terminations[agent] or raw.truncations[agent]))
            or raw.action_space(agent).contains(action)
        ):
            raise AssertionError("action is not in action space")
        raw.step(action)

    def last(
        self, observe: bool = True
    ) -> tuple[ObsDict | None, float, bool, bool, dict[str, Any]]:
        raw = self._raw
        if raw is None or not self._has_reset:
            inherited: tuple[ObsDict | None, float, bool, bool, dict[str, Any]]
            inherited = super().last(observe)
            return inherited
        agent = raw.agent_selection
        observation: ObsDict | None = raw.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )


def wrap(raw: CoffeetableAECEnv, illegal_reward: float | None = None) -> AECEnv[str, ObsDict, int]:
    """PettingZoo's usual wrappers: order enforcing (`OrderEnforcingWrapper`, PettingZoo's
    with a direct `last()`), bounds checks on the action, and, with `illegal_reward`, the end
    of the game on an illegal action."""
    env: AECEnv[str, ObsDict, int] = raw
    if illegal_reward is not None:
        env = wrappers.TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = OrderEnforcingWrapper(env)
    return env


__all__ = ["REWARDS", "CoffeetableAECEnv", "OrderEnforcingWrapper", "final_rewards", "wrap"]
