"""Train a small solo-Café policy with REINFORCE, in numpy only, then compare its mean score
with the random and greedy bots on the same seeds (docs/rl.md).

The policy is linear over action features: the logit of a legal action is theta . phi(obs,
action), and the softmax runs over the legal actions of `info["action_mask"]` only. The
features (`coffeetable.rl.action_features`) are computed from the observation vector alone,
through its documented layout (`observation_layout`), and from the action index's structure
(`CafeActionSpace.split`): the action's kind crossed with a few facts about the seat (action
points, round, warehouse), the grid channels of the cells it names (the `slots` table), its
colour, the card and payment of a take, and the cells a placement covers in the `p0.grid`
frame.

Training uses `CafeSoloEnv(shaping="estimate")`: every step is rewarded with the change of
the greedy bot's estimate of the final score, so an episode's return is the final score
minus a constant of the seed. Evaluation plays the learned policy greedily (arg max).

Usage: python3 examples/train_cafe_solo.py [--minutes 3] [--eval-games 10] [--seed 0]
Nothing is downloaded; it needs the `rl` extra (numpy, gymnasium, pettingzoo).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import numpy.typing as npt

from coffeetable import find_game
from coffeetable.bots.base import make_bot
from coffeetable.rl import CafeSoloEnv
from coffeetable.rl.action_features import CafeSoloActionFeatures as Features

Array = npt.NDArray[np.float64]


class Policy:
    def __init__(self, size: int, rng: np.random.Generator) -> None:
        self.theta = np.zeros(size)
        self.rng = rng
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def probs(self, phi: Array) -> Array:
        z = phi @ self.theta
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()  # type: ignore[no-any-return]

    def adam(self, grad: Array, lr: float) -> None:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.v = 0.999 * self.v + 0.001 * grad * grad
        m = self.m / (1 - 0.9**self.t)
        v = self.v / (1 - 0.999**self.t)
        self.theta += lr * m / (np.sqrt(v) + 1e-8)


def run_episode(
    env: CafeSoloEnv,
    feats: Features,
    policy: Policy,
    seed: int,
    greedy: bool,
) -> tuple[int, list[Array], list[float]]:
    """One game. Returns the final score, the score-function terms and the rewards."""
    obs, info = env.reset(seed=seed)
    grads: list[Array] = []
    rewards: list[float] = []
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        phi = feats(obs.astype(np.float64), legal)
        p = policy.probs(phi)
        j = int(np.argmax(p)) if greedy else int(policy.rng.choice(len(p), p=p))
        if not greedy:
            grads.append(phi[j] - p @ phi)
        obs, reward, terminated, truncated, info = env.step(legal[j])
        rewards.append(reward)
        done = terminated or truncated
    return int(env.state.scores()[0].total), grads, rewards


def discounted(rewards: list[float], gamma: float) -> Array:
    """Discounted rewards to go. With gamma = 1 the shaped return from step t would be the
    final score minus the estimate at t, blind to what the action at t did; a discount
    credits each action with the estimate changes that soon follow it."""
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def train(
    minutes: float, seed: int, batch: int = 8, lr: float = 0.1, gamma: float = 0.9
) -> tuple[Policy, Features]:
    env = CafeSoloEnv(shaping="estimate")
    space = env.actions
    feats = Features(space)
    policy = Policy(feats.size, np.random.default_rng(seed))
    deadline = time.perf_counter() + minutes * 60
    episode = 0
    recent: list[int] = []
    gains: list[float] = []
    while time.perf_counter() < deadline:
        terms: list[tuple[list[Array], Array]] = []
        for _ in range(batch):
            score, grads, rewards = run_episode(env, feats, policy, 10_000 + episode, False)
            episode += 1
            recent.append(score)
            gains.append(sum(rewards))
            returns = discounted(rewards, gamma)
            terms.append((grads, returns))
        everything = np.concatenate([r for _, r in terms])
        mean, std = everything.mean(), everything.std() + 1e-6
        grad = np.zeros(feats.size)
        steps = 0
        for grads, returns in terms:
            for g, ret in zip(grads, (returns - mean) / std, strict=True):
                grad += g * ret
                steps += 1
        policy.adam(grad / max(steps, 1), lr)
        if episode % (batch * 25) == 0:
            print(
                f"  {episode} episodes, mean score of the last {len(recent[-200:])}: "
                f"{statistics.mean(recent[-200:]):.1f} (estimate gained: "
                f"{statistics.mean(gains[-200:]):+.1f})",
                flush=True,
            )
    print(f"trained on {episode} episodes in {minutes:g} minute(s)")
    return policy, feats


def bot_scores(name: str, seeds: list[int]) -> list[int]:
    game = find_game("cafe")
    out = []
    for seed in seeds:
        bot = make_bot(name, seed)
        state = game.new_initial_state(1, seed)
        while not state.is_over():
            action, _ = bot.choose(state, 0)
            state.apply(0, action)
        out.append(state.scores()[0].total)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument("--eval-games", type=int, default=10, help="games per player (10)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    policy, feats = train(args.minutes, args.seed)
    seeds = [1_000 + i for i in range(args.eval_games)]
    env = CafeSoloEnv()
    learned = [run_episode(env, feats, policy, seed, True)[0] for seed in seeds]
    print(f"mean solo score on seeds {seeds[0]}-{seeds[-1]}:")
    print(f"  learned policy: {statistics.mean(learned):5.1f}  {learned}")
    for name in ("random", "greedy"):
        start = time.perf_counter()
        scores = bot_scores(name, seeds)
        print(
            f"  {name:>14} bot: {statistics.mean(scores):5.1f}  {scores}  "
            f"({time.perf_counter() - start:.0f} s)"
        )


if __name__ == "__main__":
    main()
