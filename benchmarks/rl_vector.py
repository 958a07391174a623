"""Steps per second of the batched environments (`coffeetable.rl.vector`) for N = 1, 16 and
256 games, next to PettingZoo's classic tic-tac-toe and to Gymnasium's own SyncVectorEnv and
AsyncVectorEnv of the same single environment (`CafeSoloEnv`), all measured in the same run
(docs/rl.md).

Every batch is driven the same way: a uniformly random legal action per game, drawn from the
stacked masks by one vectorised sampler, then one `step` of the batch; a step of N games
counts N env steps. The Gymnasium envs (ours and the peers) run in SAME_STEP autoreset mode,
so that every step counted is a move. Tic-tac-toe is stepped as in `rl_steps.py`
(`env.last()`, a sample from its mask, `env.step`). Batches are built and reset before their
clock starts: start-up (worker processes) is not counted.

Gymnasium's AsyncVectorEnv runs one process per env (its default start method, fork, here):
at N = 256 that is 256 processes on two cores, each ~32 MB resident; `--async-max` leaves it
out above a size. Our batches run `--workers` processes (spawned) for the whole batch.

Each repeat measures every row once for `--seconds`, interleaved; the table gives the median
over `--repeats`, the range, and medians of the per-repeat ratios to tic-tac-toe and to the
Gymnasium peer of the same N (SyncVectorEnv, and AsyncVectorEnv where measured).

Usage: python3 benchmarks/rl_vector.py [--seconds 2] [--repeats 3] [--workers 2] [--sizes 1,16,256]
PettingZoo's tic-tac-toe needs pygame: pip install -e '.[rl,bench]'.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv
from rl_steps import Table, aec_rate, arguments, interleaved, pettingzoo_classic, print_rates

from coffeetable.rl import AECBatch, CafeSoloEnv, CafeSoloVectorEnv

SAME = AutoresetMode.SAME_STEP


def sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of `masks` (N, actions), vectorised."""
    n, size = masks.shape
    flat = np.flatnonzero(masks.reshape(-1))
    rows = flat // size
    counts = np.bincount(rows, minlength=n)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    picks = starts + (rng.random(n) * counts).astype(np.int64)
    return (flat[picks] - np.arange(n) * size).astype(np.int64)


def gym_rate(make: Callable[[], Any], n: int, seconds: float, seed: int) -> float:
    """Env steps/s of a Gymnasium vector env of `n` lanes (masks in info["action_mask"])."""
    envs = make()
    try:
        rng = np.random.default_rng(seed)
        _, info = envs.reset(seed=seed)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            _, _, _, _, info = envs.step(sample(info["action_mask"], rng))
            steps += n
        return steps / (time.perf_counter() - start)
    finally:
        envs.close()


def batch_rate(make: Callable[[], AECBatch], n: int, seconds: float, seed: int) -> float:
    """Env steps/s of an AECBatch of `n` games."""
    with make() as batch:
        rng = np.random.default_rng(seed)
        _, masks, _ = batch.reset(seed=seed)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            masks = batch.step(sample(masks, rng))[1]
            steps += n
        return steps / (time.perf_counter() - start)


def rows(sizes: list[int], workers: int, async_max: int, secs: float) -> Table:
    """label -> (measure(seed), peer labels to take ratios against)."""
    out: Table = {}
    ttt = pettingzoo_classic("tictactoe_v3")
    if ttt is not None:
        out["PettingZoo tic-tac-toe (AEC, 1 env)"] = (lambda s: aec_rate(ttt, secs, s), [])
    for n in sizes:
        sync = f"Gymnasium SyncVectorEnv(CafeSoloEnv) N={n}"
        out[sync] = (
            lambda s, n=n: gym_rate(
                lambda: SyncVectorEnv([CafeSoloEnv] * n, autoreset_mode=SAME), n, secs, s
            ),
            [],
        )
        peers = [sync]
        if n <= async_max:
            peer = f"Gymnasium AsyncVectorEnv(CafeSoloEnv) N={n}"
            out[peer] = (
                lambda s, n=n: gym_rate(
                    lambda: AsyncVectorEnv([CafeSoloEnv] * n, autoreset_mode=SAME), n, secs, s
                ),
                [],
            )
            peers.append(peer)
        for w in sorted({0, min(workers, n)}):
            where = "in-process" if w == 0 else f"{w} workers"
            out[f"CafeSoloVectorEnv N={n}, {where}"] = (
                lambda s, n=n, w=w: gym_rate(
                    lambda: CafeSoloVectorEnv(n, workers=w, autoreset_mode=SAME), n, secs, s
                ),
                peers,
            )
        # CafeSolo-v1's lane: the compact observation, in this process
        out[f"CafeSoloVectorEnv N={n}, in-process, compact (v1)"] = (
            lambda s, n=n: gym_rate(
                lambda: CafeSoloVectorEnv(n, autoreset_mode=SAME, observation="compact"),
                n,
                secs,
                s,
            ),
            peers,
        )
        for game, players in (("cafe", 2), ("cafe", 4), ("coffee-rush", 2), ("coffee-rush", 4)):
            for w in sorted({0, min(workers, n)}):
                where = "in-process" if w == 0 else f"{w} workers"
                out[f"AECBatch {game} {players}p N={n}, {where}"] = (
                    lambda s, n=n, w=w, game=game, players=players: batch_rate(
                        lambda: AECBatch(game, n, num_players=players, workers=w), n, secs, s
                    ),
                    [],
                )
    return out


def main() -> None:
    parser = arguments(__doc__, 2.0, 3)
    parser.add_argument("--workers", type=int, default=2, help="worker processes of our batches")
    parser.add_argument("--sizes", default="1,16,256", help="batch sizes N")
    parser.add_argument("--async-max", type=int, default=256, help="largest N for AsyncVectorEnv")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    table = rows(sizes, args.workers, args.async_max, args.seconds)
    ref = next((label for label in table if label.startswith("PettingZoo")), None)
    if ref is not None:  # every row against tic-tac-toe too
        table = {
            label: (measure, [ref, *peers] if label != ref else peers)
            for label, (measure, peers) in table.items()
        }
    runs, ratios = interleaved(table, args.repeats)
    print(
        f"env steps/s (all games of a batch), median of {args.repeats} repeats of "
        f"{args.seconds:g} s (min-max); random legal actions from the masks"
    )
    print_rates(
        runs,
        ratios,
        lambda peer: "tic-tac-toe" if peer == ref else peer.split(" ")[1].split("(")[0],
    )
    if ref is None:
        print("(PettingZoo's tic-tac-toe needs pygame: pip install -e '.[rl,bench]')")


if __name__ == "__main__":
    main()
