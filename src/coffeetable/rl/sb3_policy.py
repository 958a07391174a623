"""A MaskablePPO policy for solo Café that scores each legal action from its features
(docs/rl.md, "MaskablePPO that beats random play").

    from sb3_contrib import MaskablePPO
    from coffeetable.rl.sb3 import SB3VecEnv
    from coffeetable.rl.sb3_policy import CafeSoloActionPolicy
    env = SB3VecEnv(16, shaping="estimate")
    model = MaskablePPO(CafeSoloActionPolicy, env).learn(100_000)

sb3-contrib's default `MlpPolicy` maps the 17,171 observation values to 15,905 logits, one
output unit per action index, each learnt on its own; in a solo game only tens of indices
are legal at a time and most indices are seen legal rarely, so that head learns almost
nothing in a budget of minutes. `CafeSoloActionPolicy` keeps MaskablePPO's algorithm,
distribution and masking and replaces the networks:

- **actor**: the logit of each legal action is `f(phi(obs, a))`, one small MLP `f` shared by
  every action, over the state-dependent action features of
  `coffeetable.rl.action_features.CafeSoloActionFeatures` (kind x seat facts, the cells the
  action names, its colour, the card of a take, what a placement covers). Illegal actions
  get no logit (the mask sets them to sb3-contrib's large negative value).
- **critic**: an MLP over a compact summary of the state: the global and seat fields of the
  observation without the 21 x 21 x 33 grid and the per-card table, plus the `slots` table
  (the visible cells, 38 x 36).

It takes either observation layout of solo Café, told apart by the observation space's size:
`CafeSolo-v0`'s full one or `CafeSolo-v1`'s compact one (`SB3VecEnv(n,
observation="compact")`). Both give the networks the same inputs (the features and the
critic's fields are the same values), so training is the same; the compact one moves 2,618
values per observation through the rollout buffer instead of 17,171.

The features are computed with numpy from the observation and the mask, so the policy needs
`action_masks` on every call (MaskablePPO passes them in training and in `predict`; a call
without them raises `ValueError`). Solo Café only (the 1-player observation layout), any
options. Needs the `rl-train` extra.
"""

from __future__ import annotations

import itertools
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import PyTorchObs, Schedule
from torch import nn

from coffeetable.core.registry import find_game
from coffeetable.rl.action_features import CafeSoloActionFeatures, FeatureCache
from coffeetable.rl.observations import observation_layout
from coffeetable.rl.spaces import CafeActionSpace
from coffeetable.rl.spaces import action_space as make_action_space

#: the observation fields the critic reads (everything but the big per-cell / per-card ones)
VALUE_FIELDS = (
    "options",
    "round",
    "phase",
    "counts",
    "supply",
    "display",
    "p0.warehouse",
    "p0.stage",
    "p0.ap",
    "p0.open",
    "p0.pending_fill",
    "p0.hand",
    "p0.score",
    "p0.area",
    "slots",  # the compact layout: "p0.slots", the same table
)

MaskLike = npt.NDArray[Any] | torch.Tensor | None


def mlp(sizes: list[int], activation: type[nn.Module] = nn.Tanh) -> nn.Sequential:
    """Linear layers of `sizes` with `activation` between them (none after the last)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class LegalActions:
    """The policy's distribution over each row's legal actions only: `logits` (B, L) of the
    legal `index` (B, L) of each row, `valid` (B, L) False on padding. The same distribution
    as sb3-contrib's masked categorical over all 15,905 indices (illegal ones have
    probability 0 there too), without building and normalising 15,905 logits per row.
    Offers what MaskablePPO uses: `get_actions`, `log_prob`, `entropy` (and `sample`,
    `mode`)."""

    def __init__(self, logits: torch.Tensor, index: torch.Tensor, valid: torch.Tensor) -> None:
        self.index = index
        self.valid = valid
        padded = torch.where(valid, logits, torch.full_like(logits, -1e8))
        self.distribution = torch.distributions.Categorical(logits=padded, validate_args=False)

    def _actions(self, position: torch.Tensor) -> torch.Tensor:
        return self.index.gather(1, position.unsqueeze(1)).squeeze(1)

    def sample(self) -> torch.Tensor:
        return self._actions(self.distribution.sample())  # type: ignore[no-untyped-call]

    def mode(self) -> torch.Tensor:
        return self._actions(self.distribution.probs.argmax(dim=1))

    def get_actions(self, deterministic: bool = False) -> torch.Tensor:
        return self.mode() if deterministic else self.sample()

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probabilities of `actions` (B,); an action that is not legal in its row
        raises `ValueError`."""
        hits = (self.index == actions.long().reshape(-1, 1)) & self.valid
        if not bool(hits.any(dim=1).all()):
            raise ValueError("an action is not among the legal actions of its row")
        position = hits.int().argmax(dim=1)
        return self.distribution.log_prob(position)  # type: ignore[no-any-return,no-untyped-call]

    def entropy(self) -> torch.Tensor:
        p_log_p = self.distribution.probs * self.distribution.logits
        return -torch.where(self.valid, p_log_p, torch.zeros_like(p_log_p)).sum(dim=1)


class CafeSoloActionPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with an action-feature actor (module docstring).
    `actor_arch` (default [64]) are the hidden layers of the shared action scorer,
    `critic_arch` (default [64, 64]) those of the value network; the feature rows of the last
    `cache_size` (default 2048) distinct observations are cached (`FeatureCache`): PPO scores
    each rollout several times."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Space[Any],
        action_space: gymnasium.spaces.Discrete,
        lr_schedule: Schedule,
        actor_arch: list[int] | None = None,
        critic_arch: list[int] | None = None,
        cache_size: int = 2048,
        **kwargs: Any,
    ) -> None:
        space = make_action_space(find_game("cafe"))
        assert isinstance(space, CafeActionSpace)
        layouts = {observation_layout(space.game, 1, c).size: c for c in (False, True)}
        compact = layouts.get(int(np.prod(observation_space.shape or (0,))))
        if (
            compact is None
            or len(observation_space.shape or ()) != 1
            or action_space.n != space.size
        ):
            raise ValueError(
                "CafeSoloActionPolicy is for solo Café: observations of shape "
                + " or ".join(f"({size},)" for size in layouts)
                + f" and Discrete({space.size}) actions; got "
                f"{observation_space.shape} and {action_space}"
            )
        layout = observation_layout(space.game, 1, compact)
        self.actor_arch = list(actor_arch if actor_arch is not None else [64])
        self.critic_arch = list(critic_arch if critic_arch is not None else [64, 64])
        self.action_features = CafeSoloActionFeatures(space, compact)
        self.feature_cache = FeatureCache(cache_size)
        self.cache_size = cache_size
        fields = [("p0.slots" if compact and name == "slots" else name) for name in VALUE_FIELDS]
        self.value_index = np.concatenate([np.arange(*layout.span(name)) for name in fields])
        kwargs.pop("net_arch", None)  # the networks are ours
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data: dict[str, Any] = super()._get_constructor_parameters()
        data.update(
            actor_arch=self.actor_arch, critic_arch=self.critic_arch, cache_size=self.cache_size
        )
        return data

    def _build(self, lr_schedule: Schedule) -> None:
        self.scorer = mlp([self.action_features.size, *self.actor_arch, 1])
        self.critic = mlp([len(self.value_index), *self.critic_arch, 1])
        self._value_index = torch.as_tensor(self.value_index)
        if self.ortho_init:
            self.scorer.apply(lambda m: self.init_weights(m, gain=float(np.sqrt(2))))
            self.critic.apply(lambda m: self.init_weights(m, gain=float(np.sqrt(2))))
            self.init_weights(self.scorer[-1], gain=0.01)
            self.init_weights(self.critic[-1], gain=1.0)
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]
            **self.optimizer_kwargs,
        )

    # --- the two heads ---------------------------------------------------------------------
    def _masks(self, obs: torch.Tensor, action_masks: MaskLike) -> npt.NDArray[np.bool_]:
        if action_masks is None:
            raise ValueError(
                "CafeSoloActionPolicy scores the legal actions only: pass action_masks "
                "(MaskablePPO's predict(obs, action_masks=...), or env.action_masks())"
            )
        if isinstance(action_masks, torch.Tensor):
            action_masks = action_masks.detach().cpu().numpy()
        return np.asarray(action_masks, dtype=bool).reshape(obs.shape[0], -1)

    def _distribution(self, obs: torch.Tensor, action_masks: MaskLike) -> LegalActions:
        masks = self._masks(obs, action_masks)
        phi, index, valid = self.action_features.batch(
            obs.detach().cpu().numpy(), masks, self.feature_cache
        )
        valid_t = torch.as_tensor(valid, device=self.device)
        scores = self.scorer(torch.as_tensor(phi, device=self.device)).squeeze(-1)
        logits = torch.zeros(valid.shape, device=self.device).masked_scatter(valid_t, scores)
        return LegalActions(logits, torch.as_tensor(index, device=self.device), valid_t)

    def _values(self, obs: torch.Tensor) -> torch.Tensor:
        state = obs.float().index_select(1, self._value_index.to(obs.device))
        return self.critic(state)  # type: ignore[no-any-return]

    # --- MaskableActorCriticPolicy's entry points ------------------------------------------
    def forward(
        self,
        obs: torch.Tensor,
        deterministic: bool = False,
        action_masks: MaskLike = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        distribution = self._distribution(obs, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions, self._values(obs), log_prob

    def evaluate_actions(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        action_masks: MaskLike = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        distribution = self._distribution(obs, action_masks)
        return self._values(obs), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: PyTorchObs, action_masks: MaskLike = None) -> Any:
        assert isinstance(obs, torch.Tensor)
        return self._distribution(obs, action_masks)

    def predict_values(self, obs: PyTorchObs) -> torch.Tensor:
        assert isinstance(obs, torch.Tensor)
        return self._values(obs)


__all__ = ["VALUE_FIELDS", "CafeSoloActionPolicy", "LegalActions"]
