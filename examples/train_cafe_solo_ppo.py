"""Train solo Café with a standard library, sb3-contrib's MaskablePPO, on the batched
environment, plot the learning curve and compare the policy with random play (docs/rl.md).

The environment is `coffeetable.rl.sb3.SB3VecEnv`: `--envs` solo games stepped together in
`--workers` processes, the reward shaped by the greedy bot's estimate of the final score
(`shaping="estimate"`: an episode's return is the final score minus a constant of the
seed), and `action_masks()` for MaskablePPO. The policy is MaskablePPO's default MLP on the
raw observation vector; no feature engineering. Every finished training game's final score
goes into the learning curve (`--plot`, a PNG; a moving mean over 100 games).

Evaluation plays `--eval-games` new seeds with the trained policy (the arg max of the masked
distribution, and sampled from it) and with uniformly random legal actions, on the same
seeds.

Usage: python3 examples/train_cafe_solo_ppo.py [--minutes 10] [--envs 16] [--workers 2]
       [--eval-games 50] [--plot cafe_solo_ppo.png] [--seed 0] [--gamma 0.99] [--lr 3e-4]
Needs the `rl-train` extra: pip install -e '.[rl-train]' (stable-baselines3, sb3-contrib,
torch, matplotlib).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor

from coffeetable.rl import CafeSoloEnv
from coffeetable.rl.sb3 import SB3VecEnv


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


def play(env: CafeSoloEnv, seed: int, choose: Any) -> int:
    """One game; `choose(obs, mask)` picks each action. The final score."""
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(choose(obs, info["action_mask"]))
        done = terminated or truncated
    return int(info["score"])


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
    top.axhline(learned, color="C2", linestyle=":", label=f"trained policy ({learned:.2f})")
    top.set_title("MaskablePPO on CafeSolo-v0")
    top.legend(loc="upper left", fontsize="small")
    bottom.set_xlabel("environment steps")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="training time (10)")
    parser.add_argument("--envs", type=int, default=16, help="games stepped together (16)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--eval-games", type=int, default=50, help="seeds to evaluate (50)")
    parser.add_argument("--plot", default="cafe_solo_ppo.png", help="the learning curve PNG")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1)")
    parser.add_argument("--gamma", type=float, default=0.99, help="discount (0.99)")
    parser.add_argument("--lr", type=float, default=3e-4, help="learning rate (3e-4)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)  # more only contend on a small shared machine

    env = VecMonitor(SB3VecEnv(args.envs, workers=args.workers, shaping="estimate"))
    env.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=512,
        n_epochs=2,
        learning_rate=args.lr,
        gamma=args.gamma,
        ent_coef=0.0,
        seed=args.seed,
        verbose=0,
    )
    curve = Curve(args.minutes * 60)
    start = time.perf_counter()
    model.learn(10**9, callback=curve)
    seconds = time.perf_counter() - start
    env.close()
    steps = model.num_timesteps
    print(
        f"trained {steps:,} env steps ({len(curve.points):,} games) in {seconds:.0f} s: "
        f"{steps / seconds:,.0f} steps/s"
    )

    seeds = [10_000 + i for i in range(args.eval_games)]
    solo = CafeSoloEnv()
    rng = np.random.default_rng(args.seed)

    def policy(deterministic: bool) -> Any:
        def choose(obs: Any, mask: Any) -> int:
            action, _ = model.predict(
                obs, action_masks=mask.astype(bool), deterministic=deterministic
            )
            return int(action)

        return choose

    def random_play(obs: Any, mask: Any) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    results = {
        "policy, arg max": [play(solo, s, policy(True)) for s in seeds],
        "policy, sampled": [play(solo, s, policy(False)) for s in seeds],
        "random play": [play(solo, s, random_play) for s in seeds],
    }
    print(f"mean solo score on seeds {seeds[0]}-{seeds[-1]}:")
    for name, scores in results.items():
        print(
            f"  {name:>15}: {statistics.mean(scores):5.2f} "
            f"(stdev {statistics.pstdev(scores):.2f}, max {max(scores)})"
        )
    randoms = results["random play"]
    for name in ("policy, arg max", "policy, sampled"):
        pairs = list(zip(results[name], randoms, strict=True))
        ahead = sum(a > b for a, b in pairs)
        behind = sum(a < b for a, b in pairs)
        print(f"  {name} vs random: ahead on {ahead} seeds, behind on {behind}")
    if curve.points:
        best = max(statistics.mean(results[n]) for n in ("policy, arg max", "policy, sampled"))
        plot(curve.points, statistics.mean(randoms), best, args.plot)
        print(f"learning curve: {args.plot}")


if __name__ == "__main__":
    main()
