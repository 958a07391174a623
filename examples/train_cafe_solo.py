"""Train a small solo-Café policy with REINFORCE, in numpy only, then compare its mean score
with the random and greedy bots on the same seeds (docs/rl.md).

The policy is linear over action features: the logit of a legal action is theta . phi(obs,
action), and the softmax runs over the legal actions of `info["action_mask"]` only. The
features are computed from the observation vector alone, through its documented layout
(`observation_layout`), and from the action index's structure (`CafeActionSpace.split`):
the action's kind crossed with a few facts about the seat (action points, round,
warehouse), the grid channels of the cells it names (the `slots` table), its colour, the
card and payment of a take, and the cells a placement covers in the `p0.grid` frame.

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
from coffeetable.games.cafe.area import FOOTPRINTS
from coffeetable.games.cafe.deck import CellKind
from coffeetable.games.cafe.observation import CH, GRID, MAX_SLOTS
from coffeetable.rl import CafeActionSpace, CafeSoloEnv, observation_layout

Array = npt.NDArray[np.float64]
KIND_NAMES = (
    "take",
    "place",
    "produce",
    "fill",
    "dry",
    "roast",
    "deliver",
    "clear",
    "end",
    "bid",
    "bid_done",
    "pass",
)
CELL_KINDS = ("produce", "fill", "dry", "roast", "deliver", "clear")  # with a primary slot
SECOND_KINDS = ("dry", "roast", "deliver")  # with a second slot (source / destination)
SLOT_F = 3 + CH


class Features:
    """phi(obs, legal indices) -> one row of features per legal action (numpy, vectorised)."""

    def __init__(self, space: CafeActionSpace) -> None:
        game = space.game
        layout = observation_layout(game, 1)
        self.space = space
        self.span = {f.name: layout.span(f.name) for f in layout.fields}
        self.starts = np.array([space.offsets[k] for k in KIND_NAMES])
        # static card facts for takes: VP of its shop, cup, and its cells by kind / 6
        cards = []
        for card in game.deck.cards:
            kinds = [cell.kind for row in card.cells for cell in row]
            vp = sum(s.vp for s in card.shops.values())
            row = [vp / 6, float(card.has_cup)] + [kinds.count(k) / 6 for k in CellKind]
            cards.append(row)
        self.cards = np.array(cards)
        self.globals = 10
        self.size = (
            len(KIND_NAMES) * self.globals
            + len(CELL_KINDS) * SLOT_F
            + len(SECOND_KINDS) * SLOT_F
            + 1  # deliver to the warehouse
            + 4 * 3  # colour x (1, warehouse, supply)
            + 6
            + self.cards.shape[1]  # take: payment, card
            + 3
            + 4  # place: cells covered (2, 3, 4), cups / shops / full cells / beans covered
        )

    def part(self, obs: Array, name: str) -> Array:
        start, stop = self.span[name]
        return obs[start:stop]

    def __call__(self, obs: Array, legal: npt.NDArray[np.int64]) -> Array:
        n = len(legal)
        kind = np.searchsorted(self.starts, legal, side="right") - 1
        x = legal - self.starts[kind]
        ap = self.part(obs, "p0.ap")[0]
        rnd = np.argmax(self.part(obs, "round")) / 7
        warehouse = self.part(obs, "p0.warehouse")  # / 4
        supply = self.part(obs, "supply")
        area = self.part(obs, "p0.area")
        g = np.array(
            [1.0, ap, ap == 0, rnd, rnd == 1, area[1], *np.minimum(warehouse, 2.0)],
            dtype=np.float64,
        )
        out = np.zeros((n, self.size))
        col = 0
        # 1. kind x seat facts
        block = np.zeros((n, len(KIND_NAMES), self.globals))
        block[np.arange(n), kind] = g
        out[:, col : col + block[0].size] = block.reshape(n, -1)
        col += block[0].size
        # decompose the indices (state-independent layout of CafeActionSpace)
        s1 = np.full(n, -1)
        s2 = np.full(n, -1)
        colour = np.full(n, -1)
        k = {name: kind == i for i, name in enumerate(KIND_NAMES)}
        s1 = np.where(k["produce"] | k["clear"], x, s1)
        s1 = np.where(k["fill"], x // 5, s1)
        colour = np.where(k["fill"], x % 5 - 1, colour)
        tr = k["dry"] | k["roast"]
        s1 = np.where(tr, (x // (MAX_SLOTS + 1)) // 4, s1)
        colour = np.where(tr, (x // (MAX_SLOTS + 1)) % 4, colour)
        s2 = np.where(tr, x % (MAX_SLOTS + 1) - 1, s2)
        s1 = np.where(k["deliver"], x // (MAX_SLOTS + 1), s1)
        s2 = np.where(k["deliver"], x % (MAX_SLOTS + 1) - 1, s2)
        colour = np.where(k["bid"], x // (MAX_SLOTS + 1), colour)
        slots = self.part(obs, "slots").reshape(MAX_SLOTS, SLOT_F)
        # 2. the primary slot's channels, in a block per kind
        first = np.where(s1[:, None] >= 0, slots[np.maximum(s1, 0)], 0.0)
        for name in CELL_KINDS:
            out[:, col : col + SLOT_F] = first * k[name][:, None]
            col += SLOT_F
        # 3. the second slot (source of a dry / roast, destination of a delivery)
        second = np.where(s2[:, None] >= 0, slots[np.maximum(s2, 0)], 0.0)
        for name in SECOND_KINDS:
            out[:, col : col + SLOT_F] = second * k[name][:, None]
            col += SLOT_F
        out[:, col] = k["deliver"] & (s2 < 0)
        col += 1
        # 4. colour: which, and how many of it in the warehouse and the supply
        has = colour >= 0
        c = np.maximum(colour, 0)
        for j, values in enumerate((np.ones(4), warehouse, supply)):
            out[np.arange(n), col + c * 3 + j] = np.where(has, values[c], 0.0)
        col += 12
        # 5. take: payment and card
        take = k["take"]
        out[np.arange(n), col + x % 6] = take
        col += 6
        out[:, col : col + self.cards.shape[1]] = (
            self.cards[np.where(take, x // 6, 0)] * take[:, None]
        )
        col += self.cards.shape[1]
        # 6. place: what the footprint covers in the p0 frame
        place = k["place"]
        if place.any():
            grid = self.part(obs, "p0.grid").reshape(GRID, GRID, CH)
            padded = np.zeros((GRID + 3, GRID + 3, 4))
            padded[:GRID, :GRID, 0] = grid[:, :, :11].any(axis=2)  # a visible cell
            padded[:GRID, :GRID, 1] = grid[:, :, int(CellKind.CUP)]
            padded[:GRID, :GRID, 2] = grid[:, :, int(CellKind.SHOP)]
            padded[:GRID, :GRID, 3] = grid[:, :, 16:20].sum(axis=2) > 0  # cubes on it
            rot = x // (GRID * GRID)
            r = (x % (GRID * GRID)) // GRID
            cc = x % GRID
            covered = np.zeros((n, 4))
            for dr, dc in FOOTPRINTS[0]:
                covered += np.where(
                    (rot % 2 == 0)[:, None], padded[np.minimum(r + dr, GRID + 2), cc + dc], 0
                )
            for dr, dc in FOOTPRINTS[1]:
                covered += np.where(
                    (rot % 2 == 1)[:, None], padded[np.minimum(r + dr, GRID + 2), cc + dc], 0
                )
            covered *= place[:, None]
            count = covered[:, 0].astype(int)
            for j, m in enumerate((2, 3, 4)):
                out[:, col + j] = place & (count == m)
            out[:, col + 3 : col + 6] = covered[:, 1:] / 2
        return out


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
