"""Train solo Café with a standard library, sb3-contrib's MaskablePPO, plot the learning curve
and compare the trained policy with random play on held-out deals (docs/rl.md).

The environment is `coffeetable.rl.sb3.SB3VecEnv`: `--envs` solo games stepped together (in
`--workers` processes if asked), the reward shaped by the greedy bot's estimate of the final
score (`shaping="estimate"`: every step is rewarded with the change of the estimate), and
`action_masks()` for MaskablePPO. The discount is 1 (`--gamma`): the shaping is then
potential-based, so it changes no policy's ranking; with a discount g < 1 each step would
also earn (1 - g) times the estimate, which pays for long games in promising positions (at
0.9-0.95 policies learnt to play longer games that scored nothing). GAE's lambda (0.9) keeps
the variance down instead. The policy is `coffeetable.rl.sb3_policy
.CafeSoloActionPolicy`: MaskablePPO's algorithm, distribution and masking, with an actor that
scores each legal action with one small MLP shared by all actions, over state-dependent
action features (`coffeetable.rl.action_features`), and a critic over a compact part of the
observation; it trains on `CafeSolo-v1`'s compact observation, with which it learns exactly
what it learns on the full one, on smaller arrays. (`--policy mlp` trains sb3-contrib's
default `MlpPolicy` instead, for comparison, on the full observation.) Every finished training game's final score goes into the learning curve
(`--plot PATH`, a PNG; a moving mean over 100 games).

Evaluation plays `--eval-games` held-out deals (seeds 10000, 10001, ...; training games get
other seeds) with the trained policy (the arg max of the masked distribution, and sampled
from it) and with uniformly random legal actions, each deal once per player, all deals side
by side in one batched environment. It prints each player's mean final score with its
standard error, the rulebook rating bands reached, and the paired difference to random play
on the same deals.

Usage: python3 examples/train_cafe_solo_ppo.py [--minutes 10] [--envs 16] [--workers 0]
       [--eval-games 100] [--plot cafe_solo_ppo.png] [--seed 0] [--gamma 1] [--lam 0.9]
       [--lr 3e-3] [--n-steps 32] [--epochs 10] [--ent 0] [--policy features|mlp]
Needs the `rl-train` extra: pip install -e '.[rl-train]' (stable-baselines3, sb3-contrib,
torch, matplotlib). At the defaults it takes about 13 minutes on two shared cores.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor

from coffeetable.games.cafe.state import SOLO_RATINGS, solo_rating
from coffeetable.rl.sb3 import SB3VecEnv
from coffeetable.rl.sb3_policy import CafeSoloActionPolicy

EVAL_SEED = 10_000
Chooser = Callable[[np.ndarray[Any, Any], np.ndarray[Any, Any]], np.ndarray[Any, Any]]


class Curve(BaseCallback):  # type: ignore[misc]
    """Keeps (env steps, final score, shaped return) of every finished game; stops after
    `seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.points: list[tuple[int, int, float]] = []
        self.start = time.perf_counter()

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "final_score" in info:
                ret = info["episode"]["r"]  # VecMonitor's episode statistics
                self.points.append((self.num_timesteps, info["final_score"], ret))
        return time.perf_counter() - self.start < self.seconds


def play_deals(games: int, choose: Chooser, observation: str = "full") -> list[int]:
    """The final score of each of `games` deals (seeds EVAL_SEED + i), played side by side:
    `choose(obs, masks)` picks the actions of the lanes still playing their deal (their
    first game); `observation` is the layout the policy was trained on."""
    env = SB3VecEnv(games, observation=observation)
    env.seed(EVAL_SEED)
    obs = env.reset()
    scores: list[int | None] = [None] * games
    while any(s is None for s in scores):
        masks = env.action_masks()
        playing = np.array([s is None for s in scores])
        actions = masks.argmax(axis=1)  # lanes whose deal is over: any legal action, cheaply
        actions[playing] = choose(obs[playing], masks[playing])
        obs, _, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            if scores[i] is None:
                scores[i] = infos[i]["final_score"]
    env.close()
    return [int(s) for s in scores if s is not None]


def summary(scores: list[int]) -> str:
    mean = statistics.mean(scores)
    se = statistics.stdev(scores) / math.sqrt(len(scores))
    bands = Counter(solo_rating(s) for s in scores)
    order = [label for _, label in reversed(SOLO_RATINGS) if bands[label]]
    text = ", ".join(f"{bands[label]} {label}" for label in order)
    return f"{mean:5.2f} ± {se:.2f} (max {max(scores)}; {text})"


def plot(points: list[tuple[int, int, float]], baseline: float, learned: float, path: str) -> None:
    """Final score and shaped return of the training games, with moving means."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = np.array([p[0] for p in points])
    window = min(100, len(points))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for ax, column, label in ((top, 1, "final solo score"), (bottom, 2, "shaped return")):
        values = np.array([p[column] for p in points], dtype=float)
        mean = np.convolve(values, np.ones(window) / window, mode="valid")
        ax.scatter(steps, values, s=3, alpha=0.25, label="training games")
        ax.plot(steps[window - 1 :], mean, color="C1", label=f"mean of the last {window}")
        ax.set_ylabel(label)
    top.axhline(baseline, color="grey", linestyle="--", label=f"random play ({baseline:.2f})")
    top.axhline(learned, color="C2", linestyle=":", label=f"trained, arg max ({learned:.2f})")
    top.set_title("MaskablePPO on solo Café (CafeSolo-v0)")
    top.legend(loc="upper left", fontsize="small")
    bottom.set_xlabel("environment steps")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    begin = time.perf_counter()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="training time (10)")
    parser.add_argument("--envs", type=int, default=16, help="games stepped together (16)")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (0)")
    parser.add_argument("--eval-games", type=int, default=100, help="held-out deals (100)")
    parser.add_argument("--plot", default="cafe_solo_ppo.png", help="the learning curve PNG")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    parser.add_argument("--gamma", type=float, default=1.0, help="discount (1)")
    parser.add_argument("--lam", type=float, default=0.9, help="GAE lambda (0.9)")
    parser.add_argument("--lr", type=float, default=3e-3, help="learning rate (3e-3)")
    parser.add_argument("--n-steps", type=int, default=32, help="steps per game per update (32)")
    parser.add_argument("--epochs", type=int, default=10, help="epochs per update (10)")
    parser.add_argument("--ent", type=float, default=0.0, help="entropy coefficient (0)")
    parser.add_argument(
        "--policy", choices=("features", "mlp"), default="features", help="(features)"
    )
    args = parser.parse_args()
    if args.eval_games < 2:
        parser.error("--eval-games must be at least 2 (a standard error needs two games)")
    torch.set_num_threads(args.threads)  # more only contend on a small shared machine

    # the action-feature policy learns the same on either layout (the same features and critic
    # inputs; tests/rl/test_sb3.py) and the compact one (CafeSolo-v1's) moves 2,618 values per
    # observation instead of 17,171; MlpPolicy's network is sized by the observation, so it
    # keeps the full layout (CafeSolo-v0's), the one its figures in docs/rl.md were taken on
    observation = "compact" if args.policy == "features" else "full"
    env = VecMonitor(
        SB3VecEnv(args.envs, workers=args.workers, shaping="estimate", observation=observation)
    )
    env.seed(args.seed)
    policy: Any = CafeSoloActionPolicy if args.policy == "features" else "MlpPolicy"
    model = MaskablePPO(
        policy,
        env,
        n_steps=args.n_steps,
        batch_size=128,
        n_epochs=args.epochs,
        clip_range=0.3,
        learning_rate=args.lr,
        gamma=args.gamma,
        gae_lambda=args.lam,
        ent_coef=args.ent,
        seed=args.seed,
        verbose=0,
    )
    curve = Curve(args.minutes * 60)
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(10**9, callback=curve)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    env.close()
    steps = model.num_timesteps
    print(
        f"trained {steps:,} env steps ({len(curve.points):,} games) in {seconds:.0f} s "
        f"({cpu:.0f} s CPU in this process): {steps / seconds:,.0f} steps/s"
    )

    def policy_play(deterministic: bool) -> Chooser:
        def choose(obs: Any, masks: Any) -> Any:
            actions, _ = model.predict(obs, action_masks=masks, deterministic=deterministic)
            return actions

        return choose

    rng = np.random.default_rng(args.seed)

    def random_play(obs: Any, masks: Any) -> Any:
        return np.array([rng.choice(np.flatnonzero(m)) for m in masks])

    start = time.perf_counter()
    results = {
        "policy, arg max": play_deals(args.eval_games, policy_play(True), observation),
        "policy, sampled": play_deals(args.eval_games, policy_play(False), observation),
        "random play": play_deals(args.eval_games, random_play, observation),
    }
    last = EVAL_SEED + args.eval_games - 1
    print(
        f"mean final score on the held-out deals {EVAL_SEED}-{last} "
        f"(± standard error; rulebook bands), {time.perf_counter() - start:.0f} s:"
    )
    for name, scores in results.items():
        print(f"  {name:>15}: {summary(scores)}")
    randoms = results["random play"]
    for name in ("policy, arg max", "policy, sampled"):
        diffs = [a - b for a, b in zip(results[name], randoms, strict=True)]
        se = statistics.stdev(diffs) / math.sqrt(len(diffs))
        ahead = sum(d > 0 for d in diffs)
        behind = sum(d < 0 for d in diffs)
        print(
            f"  {name} - random, same deals: {statistics.mean(diffs):+.2f} ± {se:.2f} "
            f"(ahead on {ahead} deals, behind on {behind})"
        )
    if curve.points:
        plot(
            curve.points,
            statistics.mean(randoms),
            statistics.mean(results["policy, arg max"]),
            args.plot,
        )
        print(f"learning curve: {args.plot}")
    print(f"wall time in all: {time.perf_counter() - begin:.0f} s")


if __name__ == "__main__":
    main()
