"""Environment steps per second of coffeetable's RL environments, next to PettingZoo's own
classic tic-tac-toe and connect four measured in the same run (docs/rl.md).

Every environment is driven the same way: `env.last()` (which builds the observation and
the action mask), a random legal action sampled from the mask by the action space
(`action_space(agent).sample(mask)`), `env.step`; finished agents are stepped with None and
a finished game is reset with the next seed. Steps of finished agents are not counted. The
solo Café Gymnasium environment is driven with `info["action_mask"]`, and
`random_rollouts` (16 games side by side, masks but no observations) is shown for the raw
rate of the engines behind the environments.

Each repeat measures every environment once, interleaved, for `--seconds`; the table shows
the median over `--repeats` repeats, the range, and the median of the per-repeat ratios to
tic-tac-toe and connect four (taken moments apart on this shared, noisy machine).

PettingZoo's classic environments import pygame: `pip install -e '.[rl,bench]'`.

`--against DIR` compares two versions of the code instead (before / after a change): the
environment rows (and tic-tac-toe) are measured in two worker processes, one importing
coffeetable from DIR/src (A) and one from this checkout (B; `--b DIR2`: from DIR2/src, e.g. a
tree built with `COFFEETABLE_COMPILE=1 python setup.py build_ext --inplace`), alternately (A then B, then B
then A in the next repeat), so that each pair is taken moments apart on a shared, noisy
machine; the table gives the median rates, the median of the per-pair ratios B/A, and each
side's median ratio to its own tic-tac-toe.

Usage: python3 benchmarks/rl_steps.py [--seconds 1.5] [--repeats 5] [--against DIR [--b DIR2]]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coffeetable.rl import CafeSoloEnv, cafe_v0, cafe_v1, coffee_rush_v0, random_rollouts


def aec_rate(make: Callable[[], Any], seconds: float, seed: int) -> float:
    """Live-agent steps per second of an AEC environment with random masked actions."""
    env = make()
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    steps = 0
    game = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed * 1000 + game)
        game += 1
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(env.action_space(agent).sample(obs["action_mask"]))
            steps += 1
    return steps / (time.perf_counter() - start)


def solo_rate(seconds: float, seed: int, observation: str = "full") -> float:
    """Steps per second of CafeSoloEnv (v0: the full observation; v1: "compact")."""
    env = CafeSoloEnv(observation=observation)
    env.action_space.seed(seed)
    steps = 0
    game = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, info = env.reset(seed=seed * 1000 + game)
        game += 1
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(
                env.action_space.sample(info["action_mask"])
            )
            done = terminated or truncated
            steps += 1
    return steps / (time.perf_counter() - start)


def rollout_rate(game: str, players: int, seconds: float, seed: int) -> float:
    """random_rollouts with 16 games; the step count is sized from a short first run."""
    probe = random_rollouts(game, 16, 10, seed, num_players=players)
    steps = max(10, int(probe.steps_per_second * seconds / 16))
    return random_rollouts(game, 16, steps, seed, num_players=players).steps_per_second


#: label -> (measure(seed) -> steps/s, the labels of the peers to take ratios against)
Table = dict[str, tuple[Callable[[int], float], list[str]]]


def interleaved(
    table: Table, repeats: int
) -> tuple[dict[str, list[float]], dict[tuple[str, str], list[float]]]:
    """Every row measured once per repeat, in order (peers moments apart on this shared,
    noisy machine): the rates per row, and per (row, peer) the ratios of each repeat."""
    runs: dict[str, list[float]] = {label: [] for label in table}
    ratios: dict[tuple[str, str], list[float]] = {}
    for repeat in range(repeats):
        now: dict[str, float] = {}
        for label, (measure, _) in table.items():
            now[label] = measure(repeat + 1)
            runs[label].append(now[label])
        for label, (_, peers) in table.items():
            for peer in peers:
                ratios.setdefault((label, peer), []).append(now[label] / now[peer])
    return runs, ratios


def print_rates(
    runs: dict[str, list[float]],
    ratios: dict[tuple[str, str], list[float]],
    short: Callable[[str], str],
) -> None:
    """One line per row: median, range, and the median ratio to each peer (`short(peer)`)."""
    width = max(len(label) for label in runs)
    for label, rates in runs.items():
        line = (
            f"{label:<{width}}  {statistics.median(rates):>10,.0f}  "
            f"({min(rates):,.0f}-{max(rates):,.0f})"
        )
        parts = [
            f"{statistics.median(values):.3f}x {short(peer)}"
            for (row, peer), values in ratios.items()
            if row == label
        ]
        if parts:
            line += "  = " + ", ".join(parts)
        print(line)


def pettingzoo_classic(name: str) -> Callable[[], Any] | None:
    """A maker for PettingZoo's classic env (None when pygame is missing)."""
    try:
        import pettingzoo

        if hasattr(pettingzoo, "make"):
            pettingzoo.make("aec", f"classic/{name}")  # fails early without pygame
            return lambda: pettingzoo.make("aec", f"classic/{name}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = __import__(f"pettingzoo.classic.{name}", fromlist=["env"])
        return module.env  # type: ignore[no-any-return]
    except Exception:  # ImportError, or PettingZoo's FailedToImport
        return None


def arguments(doc: str | None, seconds: float, repeats: int) -> argparse.ArgumentParser:
    """The command line of an RL benchmark: `--seconds` per measurement, `--repeats`."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=seconds, help="per measurement")
    parser.add_argument("--repeats", type=int, default=repeats)
    return parser


#: the rows `--against` compares: label -> (maker of the env, or "solo")
AGAINST_ROWS = {
    "PettingZoo tic-tac-toe (AEC)": ("tictactoe", 0),
    "cafe_v0, 1 player (AEC)": ("cafe", 1),
    "cafe_v0, 2 players (AEC)": ("cafe", 2),
    "cafe_v0, 4 players (AEC)": ("cafe", 4),
    "coffee_rush_v0, 2 players (AEC)": ("rush", 2),
    "coffee_rush_v0, 4 players (AEC)": ("rush", 4),
    "CafeSolo-v0 (Gymnasium)": ("solo", 1),
    "cafe_v1, 1 player (AEC)": ("cafe1", 1),
    "cafe_v1, 2 players (AEC)": ("cafe1", 2),
    "cafe_v1, 4 players (AEC)": ("cafe1", 4),
    "CafeSolo-v1 (Gymnasium)": ("solo1", 1),
}


def worker() -> None:
    """`--worker`: measure the rows named on stdin ("label|seed|seconds"), one rate a line."""
    ttt = pettingzoo_classic("tictactoe_v3")
    makers: dict[str, Callable[[int], Any]] = {
        "cafe": lambda n: cafe_v0.env(num_players=n),
        "cafe1": lambda n: cafe_v0.env(num_players=n, observation="compact"),
        "rush": lambda n: coffee_rush_v0.env(num_players=n),
    }
    print("ready", flush=True)
    for line in sys.stdin:
        label, seed, seconds = line.rstrip("\n").split("|")
        kind, n = AGAINST_ROWS[label]
        if kind.endswith("1"):  # the compact observation: nan on a checkout without it
            try:
                CafeSoloEnv(observation="compact")
            except Exception:
                print("nan", flush=True)
                continue
        if kind.startswith("solo"):
            rate = solo_rate(float(seconds), int(seed), "compact" if kind == "solo1" else "full")
        elif kind == "tictactoe":
            rate = aec_rate(ttt, float(seconds), int(seed))
        else:
            rate = aec_rate(lambda kind=kind, n=n: makers[kind](n), float(seconds), int(seed))
        print(rate, flush=True)


def against(other: Path, repeats: int, seconds: float, mine: Path | None = None) -> None:
    """A (coffeetable from `other`/src) against B (this checkout, or `mine`/src), alternately
    (module doc)."""
    here = (mine or Path(__file__).resolve().parents[1]).resolve()
    procs = {}
    for side, root in (("A", other.resolve()), ("B", here)):
        env = dict(os.environ, PYTHONPATH=str(root / "src"))
        procs[side] = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert procs[side].stdout is not None
        if procs[side].stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker on {root} did not start (pygame missing?)")

    def ask(side: str, label: str, seed: int) -> float:
        proc = procs[side]
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"{label}|{seed}|{seconds}\n")
        proc.stdin.flush()
        return float(proc.stdout.readline())

    rates: dict[tuple[str, str], list[float]] = {}
    for repeat in range(repeats):
        for label in AGAINST_ROWS:
            for side in ("A", "B") if repeat % 2 == 0 else ("B", "A"):
                rates.setdefault((side, label), []).append(ask(side, label, repeat + 1))
    for proc in procs.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    med = statistics.median
    ref = next(iter(AGAINST_ROWS))
    print(
        f"env steps/s, median of {repeats} alternating pairs of {seconds:g} s; "
        f"A = {other}/src, B = {here}/src"
    )
    width = max(len(label) for label in AGAINST_ROWS)
    print(f"{'':<{width}}  {'A':>8}  {'B':>8}  {'B/A':>6}  {'A/ttt':>6}  {'B/ttt':>6}")
    for label in AGAINST_ROWS:
        a, b = rates[("A", label)], rates[("B", label)]
        ratio = med([y / x for x, y in zip(a, b, strict=True)])
        a_ttt = med([x / t for x, t in zip(a, rates[("A", ref)], strict=True)])
        b_ttt = med([y / t for y, t in zip(b, rates[("B", ref)], strict=True)])
        print(
            f"{label:<{width}}  {med(a):>8,.0f}  {med(b):>8,.0f}  {ratio:>5.2f}x  "
            f"{a_ttt:>5.3f}x  {b_ttt:>5.3f}x"
        )


def main() -> None:
    parser = arguments(__doc__, 1.5, 5)
    parser.add_argument("--against", type=Path, help="another checkout: compare A/B")
    parser.add_argument(
        "--b",
        type=Path,
        help="with --against: B's checkout (default this one), e.g. a compiled build",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    if args.against is not None:
        against(args.against, args.repeats, args.seconds, args.b)
        return
    secs = args.seconds

    refs: dict[str, Callable[[int], float]] = {}
    for label, name in (("tic-tac-toe", "tictactoe_v3"), ("connect four", "connect_four_v3")):
        make = pettingzoo_classic(name)
        if make is not None:
            refs[f"PettingZoo {label} (AEC)"] = lambda seed, make=make: aec_rate(make, secs, seed)
    ours: dict[str, Callable[[int], float]] = {
        "cafe_v0, 1 player (AEC)": lambda s: aec_rate(lambda: cafe_v0.env(num_players=1), secs, s),
        "cafe_v0, 2 players (AEC)": lambda s: aec_rate(lambda: cafe_v0.env(num_players=2), secs, s),
        "cafe_v0, 4 players (AEC)": lambda s: aec_rate(lambda: cafe_v0.env(num_players=4), secs, s),
        "coffee_rush_v0, 2 players (AEC)": lambda s: aec_rate(
            lambda: coffee_rush_v0.env(num_players=2), secs, s
        ),
        "coffee_rush_v0, 4 players (AEC)": lambda s: aec_rate(
            lambda: coffee_rush_v0.env(num_players=4), secs, s
        ),
        "CafeSolo-v0 (Gymnasium)": lambda s: solo_rate(secs, s),
        "cafe_v1, 1 player (AEC)": lambda s: aec_rate(lambda: cafe_v1.env(num_players=1), secs, s),
        "cafe_v1, 2 players (AEC)": lambda s: aec_rate(lambda: cafe_v1.env(num_players=2), secs, s),
        "cafe_v1, 4 players (AEC)": lambda s: aec_rate(lambda: cafe_v1.env(num_players=4), secs, s),
        "CafeSolo-v1 (Gymnasium)": lambda s: solo_rate(secs, s, "compact"),
        "random_rollouts cafe, 2 players x16": lambda s: rollout_rate("cafe", 2, secs, s),
        "random_rollouts coffee-rush, 2 players x16": lambda s: rollout_rate(
            "coffee-rush", 2, secs, s
        ),
    }
    table: Table = {label: (measure, []) for label, measure in refs.items()}
    table.update({label: (measure, list(refs)) for label, measure in ours.items()})
    runs, ratios = interleaved(table, args.repeats)
    print(
        f"env steps/s, median of {args.repeats} repeats of {secs:g} s each "
        f"(min-max); random legal actions from the action mask"
    )
    print_rates(runs, ratios, lambda ref: ref.split(" ", 1)[1].split(" (")[0])
    if not refs:
        print("(PettingZoo's classic envs need pygame: pip install -e '.[rl,bench]')")


if __name__ == "__main__":
    main()
