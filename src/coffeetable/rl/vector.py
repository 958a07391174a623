"""Batched environments: N games stepped at once, stacked numpy arrays out (docs/rl.md).

    from coffeetable.rl import CafeSoloVectorEnv, AECBatch
    envs = CafeSoloVectorEnv(256, workers=2)      # or gymnasium.make_vec("coffeetable/CafeSolo-v0", 256)
    obs, infos = envs.reset(seed=1)               # obs (256, 17171); infos["action_mask"] (256, 15905)
    obs, rewards, terminations, truncations, infos = envs.step(actions)

    batch = AECBatch("cafe", 64, num_players=3)
    obs, masks, seats = batch.reset(seed=1)       # the acting seat of each game, its view and mask
    obs, masks, seats, rewards, terminations, infos = batch.step(actions)

- `CafeSoloVectorEnv` is a Gymnasium `VectorEnv` of `CafeSoloEnv` (solo Café; Coffee Rush
  has no solo game). Lane i behaves exactly as `CafeSoloEnv` reset with `seed + i` and then
  reset without a seed after each game, under Gymnasium's autoreset mode of the
  constructor (`NEXT_STEP`, Gymnasium's default, or `SAME_STEP`); the tests check it step for
  step against Gymnasium's own `SyncVectorEnv` of the same environment.
- `AECBatch` is the batched AEC-style API of the multi-seat games (and solo Café): per game,
  the acting seat (`agent_selection` of `cafe_v0` / `coffee_rush_v0`), its observation and
  mask; `step` takes one action per game. Rewards come as a (N, players) array; a game that
  ends is replaced at once by the next (same-step autoreset): its final rewards and
  `terminations[i]` come with the step that ended it, and `obs[i]`, `masks[i]`, `seats[i]`
  are already the new game's. Lane i plays what the raw AEC environment reset with
  `seed + i`, then reset without a seed after each game, plays.
- `workers=k` spreads the lanes over k worker processes (contiguous blocks); observations,
  masks and the step's arrays live in shared memory, commands go through pipes. The lanes'
  seeds do not depend on the split, so any `workers` gives the same games, move for move.
- Illegal actions: `AECBatch.step` raises `IllegalActionError` naming the lane and changes
  no game; `CafeSoloVectorEnv` follows `CafeSoloEnv`'s `illegal` option (a penalty step, or
  the error before any lane moves).
- `action_masks()` gives the masks as an (N, actions) bool array (sb3-contrib's convention).
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing as mp
import multiprocessing.connection as mpc
import traceback
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from coffeetable.core.errors import DataError, IllegalActionError
from coffeetable.core.registry import find_game
from coffeetable.rl.aec import CoffeetableAECEnv
from coffeetable.rl.observations import observation_box, observation_shape
from coffeetable.rl.solo import CafeSoloEnv
from coffeetable.rl.spaces import action_space

Array = npt.NDArray[Any]
#: a lane's seed: an int, or None for one drawn from the operating system
Seeds = Sequence[int | None]


def lane_seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """Gymnasium's convention: an int s seeds lane i with s + i; a list gives one per lane."""
    if seed is None:
        return [None] * n
    if isinstance(seed, int | np.integer):
        return [int(seed) + i for i in range(n)]
    seeds = list(seed)
    if len(seeds) != n:
        raise DataError(f"{len(seeds)} seeds for {n} environments")
    return seeds


# ==== the arrays of a batch ========================================================================
class _Buffers:
    """Named arrays with one row per lane, in this process or in shared memory."""

    def __init__(self, fields: Mapping[str, tuple[tuple[int, ...], Any]], n: int, shared: bool):
        self.fields = {
            name: ((n, *shape), np.dtype(dtype)) for name, (shape, dtype) in fields.items()
        }
        self.memory: dict[str, SharedMemory] = {}
        self.arrays: dict[str, Array] = {}
        for name, (shape, dtype) in self.fields.items():
            if shared:
                size = max(1, int(np.prod(shape)) * dtype.itemsize)
                block = SharedMemory(create=True, size=size)
                self.memory[name] = block
                self.arrays[name] = np.ndarray(shape, dtype=dtype, buffer=block.buf)
                self.arrays[name].fill(0)
            else:
                self.arrays[name] = np.zeros(shape, dtype=dtype)

    def handles(self) -> dict[str, tuple[str, tuple[int, ...], str]]:
        """What a worker needs to attach to the shared arrays."""
        return {
            name: (self.memory[name].name, shape, dtype.str)
            for name, (shape, dtype) in self.fields.items()
        }

    def close(self) -> None:
        self.arrays.clear()
        for block in self.memory.values():
            block.close()
            block.unlink()
        self.memory.clear()


def _attach(
    handles: Mapping[str, tuple[str, tuple[int, ...], str]],
) -> tuple[dict[str, SharedMemory], dict[str, Array]]:
    blocks = {name: SharedMemory(name=h[0]) for name, h in handles.items()}
    arrays = {
        name: np.ndarray(h[1], dtype=np.dtype(h[2]), buffer=blocks[name].buf)
        for name, h in handles.items()
    }
    return blocks, arrays


# ==== shards: the lanes [lo, hi) of a batch, stepped in one process ==============================
class _Shard(ABC):
    """Lanes `lo`..`hi - 1` of a batch. Writes each step's results into its rows of the
    batch's arrays; returns only what is rare (final observations, errors)."""

    def __init__(self, arrays: Mapping[str, Array], lo: int, hi: int) -> None:
        self.rows = {name: a[lo:hi] for name, a in arrays.items()}
        self.lo = lo

    def write_mask(self, i: int, legal: Mapping[int, Any]) -> None:
        mask = self.rows["masks"][i]
        mask.fill(0)
        if legal:
            mask[np.fromiter(legal, dtype=np.intp, count=len(legal))] = 1

    @abstractmethod
    def reset(self, seeds: Seeds) -> Any: ...

    @abstractmethod
    def step(self, actions: Array) -> Any: ...

    @abstractmethod
    def explain(self, lane: int, action: int) -> str: ...


class _SoloShard(_Shard):
    """Lanes of `CafeSoloEnv`; fields obs, masks, rewards, terminated, truncated, score,
    illegal."""

    def __init__(
        self,
        arrays: Mapping[str, Array],
        lo: int,
        hi: int,
        env_kwargs: Mapping[str, Any],
        same_step: bool,
    ) -> None:
        super().__init__(arrays, lo, hi)
        self.envs = [CafeSoloEnv(**env_kwargs) for _ in range(hi - lo)]
        self.same_step = same_step
        self.autoreset = [False] * len(self.envs)

    def _write(self, i: int) -> None:
        env = self.envs[i]
        self.rows["obs"][i] = env.observer.write(env.state, 0)
        self.write_mask(i, env._legal)
        self.rows["score"][i] = env.score()

    def reset(self, seeds: Seeds) -> None:
        r = self.rows
        for i, (env, seed) in enumerate(zip(self.envs, seeds, strict=True)):
            env.reset(seed=seed)
            self.autoreset[i] = False
            self._write(i)
        r["rewards"].fill(0)
        r["terminated"].fill(False)
        r["truncated"].fill(False)
        r["illegal"].fill(False)

    def step(self, actions: Array) -> list[tuple[int, Array, dict[str, Any]]]:
        """The step of every lane; with SAME_STEP, (lane, final obs, final info) of the games
        that ended."""
        r = self.rows
        finals: list[tuple[int, Array, dict[str, Any]]] = []
        for i, env in enumerate(self.envs):
            if self.autoreset[i]:  # NEXT_STEP: this step resets, the action is ignored
                env.reset()
                self.autoreset[i] = False
                reward, terminated, truncated, illegal = 0.0, False, False, False
            else:
                reward, terminated, truncated, illegal = env.advance(actions[i])
            r["rewards"][i] = reward
            r["terminated"][i] = terminated
            r["truncated"][i] = truncated
            r["illegal"][i] = illegal
            if terminated or truncated:
                if self.same_step:
                    final = env.observation(env.state, 0)
                    finals.append((self.lo + i, final, env.info(illegal)))
                    env.reset()
                else:
                    self.autoreset[i] = True
            self._write(i)
        return finals

    def explain(self, lane: int, action: int) -> str:
        return self.envs[lane - self.lo]._explain(action)


class _AECShard(_Shard):
    """Lanes of a raw AEC environment; fields obs, masks, seats, rewards (per seat),
    terminated."""

    def __init__(
        self,
        arrays: Mapping[str, Array],
        lo: int,
        hi: int,
        game: str,
        env_kwargs: Mapping[str, Any],
    ) -> None:
        super().__init__(arrays, lo, hi)
        g = find_game(game)
        self.envs = [CoffeetableAECEnv(game=g, **env_kwargs) for _ in range(hi - lo)]

    def _write(self, i: int) -> None:
        env = self.envs[i]
        seat = min(env.state.current_seats())
        self.rows["seats"][i] = seat
        self.rows["obs"][i] = env.observer.write(env.state, seat)
        self.write_mask(i, env.legal_actions(seat))

    def reset(self, seeds: Seeds) -> None:
        for i, (env, seed) in enumerate(zip(self.envs, seeds, strict=True)):
            env.reset(seed=seed)
            self._write(i)
        self.rows["rewards"].fill(0)
        self.rows["terminated"].fill(False)

    def step(self, actions: Array) -> list[tuple[int, Array]]:
        """One action per lane, by its acting seat (checked legal by the caller). For each
        game that ended: (lane, every seat's observation of the final state); the game is
        then replaced at once."""
        rewards = self.rows["rewards"]
        terminated = self.rows["terminated"]
        ended = []
        for i, env in enumerate(self.envs):
            env.step(int(actions[i]))
            over = env.state.is_over()
            terminated[i] = over
            if over:
                rewards[i] = [env.rewards[a] for a in env.possible_agents]
                final = [env.observation(env.state, s) for s in range(env.num_players)]
                ended.append((self.lo + i, np.stack(final)))
                env.reset()
            else:
                rewards[i] = 0.0
            self._write(i)
        return ended

    def observe(self, lane: int, seat: int) -> tuple[Array, Array]:
        env = self.envs[lane - self.lo]
        legal = env.legal_actions(seat)
        return env.observation(env.state, seat), env.actions.mask_of(legal)

    def explain(self, lane: int, action: int) -> str:
        env = self.envs[lane - self.lo]
        return env._explain(min(env.state.current_seats()), action)


# ==== running shards here or in worker processes ================================================
def _worker(
    conn: mpc.Connection,
    shard_type: type[_Shard],
    handles: Mapping[str, tuple[str, tuple[int, ...], str]],
    lo: int,
    hi: int,
    kwargs: Mapping[str, Any],
) -> None:
    blocks, arrays = _attach(handles)
    try:
        shard = shard_type(arrays, lo, hi, **kwargs)
        conn.send(("ok", None))
        while True:
            method, args = conn.recv()
            if method == "close":
                break
            try:
                conn.send(("ok", getattr(shard, method)(*args)))
            except Exception as exc:  # sent back and raised in the parent
                conn.send(("error", (exc, traceback.format_exc())))
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        del arrays
        for block in blocks.values():
            block.close()


class _Runner:
    """The shards of a batch of `n` lanes: one here (`workers=0`) or one per worker process."""

    def __init__(
        self,
        shard_type: type[_Shard],
        fields: Mapping[str, tuple[tuple[int, ...], Any]],
        n: int,
        workers: int,
        kwargs: Mapping[str, Any],
        context: str | None,
    ) -> None:
        if n < 1:
            raise DataError("a batch needs at least one environment")
        if workers < 0:
            raise DataError("workers must be 0 (this process) or more")
        workers = min(workers, n)
        self.n = n
        self.buffers = _Buffers(fields, n, shared=workers > 0)
        self.arrays = self.buffers.arrays
        bounds = np.linspace(0, n, max(workers, 1) + 1).astype(int)
        self.ranges = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self.local: _Shard | None = None
        self.conns: list[mpc.Connection] = []
        self.processes: list[Any] = []
        if workers == 0:
            self.local = shard_type(self.arrays, 0, n, **kwargs)
            return
        ctx: Any = mp.get_context(context)
        handles = self.buffers.handles()
        try:
            for lo, hi in self.ranges:
                parent, child = ctx.Pipe()
                process = ctx.Process(
                    target=_worker,
                    args=(child, shard_type, handles, lo, hi, dict(kwargs)),
                    daemon=True,
                )
                process.start()
                child.close()
                self.conns.append(parent)
                self.processes.append(process)
            for conn in self.conns:
                self._receive(conn)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _receive(conn: mpc.Connection) -> Any:
        try:
            status, value = conn.recv()
        except EOFError:
            raise RuntimeError("a worker process of the batch has died") from None
        if status == "error":
            exc, text = value
            raise exc from RuntimeError(f"in a worker process:\n{text}")
        return value

    def call(self, method: str, per_shard: Sequence[tuple[Any, ...]]) -> list[Any]:
        """`method(*args)` on every shard, in parallel over the workers; their results."""
        if self.local is not None:
            return [getattr(self.local, method)(*per_shard[0])]
        for conn, args in zip(self.conns, per_shard, strict=True):
            conn.send((method, args))
        return [self._receive(conn) for conn in self.conns]

    def split(self, values: Sequence[Any] | Array) -> list[tuple[Any, ...]]:
        """One argument tuple per shard: its slice of `values`."""
        return [(values[lo:hi],) for lo, hi in self.ranges]

    def on_lane(self, method: str, lane: int, *args: Any) -> Any:
        """`method(lane, *args)` on the shard that holds `lane`."""
        if self.local is not None:
            return getattr(self.local, method)(lane, *args)
        k = next(k for k, (lo, hi) in enumerate(self.ranges) if lo <= lane < hi)
        self.conns[k].send((method, (lane, *args)))
        return self._receive(self.conns[k])

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(("close", ()))
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        for conn in self.conns:
            conn.close()
        self.conns.clear()
        self.processes.clear()
        self.local = None
        self.buffers.close()


def _give(copy: bool, array: Array) -> Array:
    """A batch's array as returned: a copy, or (copy=False) the array itself, which the next
    step overwrites."""
    return array.copy() if copy else array


def _check_actions(actions: Any, n: int, size: int) -> Array:
    out = np.asarray(actions)
    if out.shape != (n,) or not np.issubdtype(out.dtype, np.integer):
        raise IllegalActionError(
            f"expected {n} integer actions, one per environment; got shape {out.shape}, "
            f"dtype {out.dtype}"
        )
    outside = np.flatnonzero((out < 0) | (out >= size))
    if outside.size:
        i = int(outside[0])
        raise IllegalActionError(
            f"environment {i}: action {int(out[i])} is outside the action space 0..{size - 1}"
        )
    return out.astype(np.int64, copy=False)


# ==== Gymnasium: solo Café ======================================================================
class CafeSoloVectorEnv(VectorEnv[Array, Array, Array]):
    """`num_envs` solo Café games as one Gymnasium `VectorEnv` (module docstring).

    Keyword arguments: `workers` (0: this process), `autoreset_mode` (`AutoresetMode.NEXT_STEP`
    or `SAME_STEP`, or their names), `copy` (return copies of the observation and info arrays,
    as Gymnasium's vector envs do; False returns the batch's own arrays, overwritten by the
    next step), `context` (multiprocessing start method for the workers; default "spawn"),
    and `CafeSoloEnv`'s (`shaping`, `illegal`, `illegal_reward`, `max_steps`, `observation`,
    `espresso`, `promos`; `gymnasium.make_vec("coffeetable/CafeSolo-v1", n)` passes
    `observation="compact"`)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium reads it from the class
        "render_modes": [],
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int,
        *,
        workers: int = 0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        context: str | None = "spawn",
        **env_kwargs: Any,
    ) -> None:
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise DataError("autoreset_mode must be NEXT_STEP or SAME_STEP")
        probe = CafeSoloEnv(**env_kwargs)  # DataError for bad options, here
        self.num_envs = num_envs
        self.copy = copy
        self.illegal = probe.illegal
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.render_mode = None
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        size = probe.actions.size
        fields: dict[str, tuple[tuple[int, ...], Any]] = {
            "obs": (
                observation_shape(probe.game, 1, compact=probe.observation_kind == "compact"),
                np.float32,
            ),
            "masks": ((size,), np.int8),
            "rewards": ((), np.float64),
            "terminated": ((), np.bool_),
            "truncated": ((), np.bool_),
            "score": ((), np.int64),
            "illegal": ((), np.bool_),
        }
        kwargs = {"env_kwargs": env_kwargs, "same_step": mode == AutoresetMode.SAME_STEP}
        self._runner = _Runner(_SoloShard, fields, num_envs, workers, kwargs, context)
        self._a = self._runner.arrays
        self._all = np.ones(num_envs, dtype=np.bool_)

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Array, dict[str, Any]]:
        seeds = lane_seeds(seed, self.num_envs)  # DataError for a bad list, here
        super().reset(seed=seed if isinstance(seed, int) else None)
        self._runner.call("reset", self._runner.split(seeds))
        return _give(self.copy, self._a["obs"]), self._infos()

    def step(self, actions: Any) -> tuple[Array, Array, Array, Array, dict[str, Any]]:
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise IllegalActionError(f"expected {self.num_envs} actions, got shape {acts.shape}")
        if self.illegal == "raise":
            masks = self._a["masks"]
            inside = (acts >= 0) & (acts < masks.shape[1])
            legal = inside.copy()
            legal[inside] = masks[np.flatnonzero(inside), acts[inside]] == 1
            bad = np.flatnonzero(~legal)
            if bad.size:  # no lane has moved yet
                i = int(bad[0])
                why = self._runner.on_lane("explain", i, int(acts[i]))
                raise IllegalActionError(f"environment {i}: {why}")
        finals = [f for part in self._runner.call("step", self._runner.split(acts)) for f in part]
        infos = self._infos()
        for lane, obs, info in finals:
            infos = self._add_info(infos, {"final_obs": obs, "final_info": info}, lane)
        a = self._a
        return (
            _give(self.copy, a["obs"]),
            a["rewards"].copy(),
            a["terminated"].copy(),
            a["truncated"].copy(),
            infos,
        )

    def _infos(self) -> dict[str, Any]:
        a = self._a
        return {
            "action_mask": _give(self.copy, a["masks"]),
            "_action_mask": self._all.copy(),
            "score": a["score"].copy(),
            "_score": self._all.copy(),
            "illegal_action": a["illegal"].copy(),
            "_illegal_action": self._all.copy(),
        }

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every lane now, (num_envs, actions) booleans."""
        return self._a["masks"].astype(np.bool_)

    def close_extras(self, **kwargs: Any) -> None:
        self._runner.close()


# ==== the batched AEC-style API =================================================================
class AECBatch:
    """`n_envs` games of one game and configuration, each with its acting seat (module
    docstring). Keyword arguments: `num_players`, `reward` ("win" or "score"), `observation`
    ("full", the default, or "compact": Café's layouts, as `cafe_v0` / `cafe_v1`), `workers`,
    `context`, `copy` (as `CafeSoloVectorEnv`) and the game's options. `close()` ends the workers
    (also a context manager)."""

    def __init__(
        self,
        game: str,
        n_envs: int,
        *,
        num_players: int = 2,
        reward: str | None = None,
        observation: str = "full",
        workers: int = 0,
        context: str | None = "spawn",
        copy: bool = True,
        **options: Any,
    ) -> None:
        self.copy = copy
        env_kwargs = {
            "num_players": num_players,
            "reward": reward,
            "observation": observation,
            **options,
        }
        probe = CoffeetableAECEnv(
            game=find_game(game), **env_kwargs
        )  # DataError for bad options, here
        self.game = probe.game
        self.num_envs = n_envs
        self.num_players = num_players
        self.possible_agents = probe.possible_agents
        self.observation_space = observation_box(
            self.game, num_players, probe.observation_kind == "compact"
        )
        self.action_space = gymnasium.spaces.Discrete(probe.actions.size)
        self.actions = action_space(self.game)
        fields = {
            "obs": (self.observation_space.shape, np.float32),
            "masks": ((probe.actions.size,), np.int8),
            "seats": ((), np.int64),
            "rewards": ((num_players,), np.float32),
            "terminated": ((), np.bool_),
        }
        kwargs = {"game": probe.game.info.name, "env_kwargs": env_kwargs}
        self._runner = _Runner(_AECShard, fields, n_envs, workers, kwargs, context)
        self._a = self._runner.arrays

    def reset(self, seed: int | Sequence[int | None] | None = None) -> tuple[Array, Array, Array]:
        """New games (lane i: `seed + i`); (observations, masks, acting seats)."""
        self._runner.call("reset", self._runner.split(lane_seeds(seed, self.num_envs)))
        a = self._a
        return _give(self.copy, a["obs"]), _give(self.copy, a["masks"]), a["seats"].copy()

    def step(self, actions: Any) -> tuple[Array, Array, Array, Array, Array, dict[str, Any]]:
        """One action per game, by its acting seat. Returns (observations, masks, seats) of the
        next acting seats, `rewards` (n_envs, players) of this step (nonzero only when a
        game ends), `terminations` (n_envs,) and infos: `"final_obs"`, for each lane whose game
        ended with this step (already replaced by a new game), every seat's observation of
        the final state, a (players, observation) array."""
        acts = _check_actions(actions, self.num_envs, int(self.action_space.n))
        a = self._a
        bad = np.flatnonzero(a["masks"][np.arange(self.num_envs), acts] == 0)
        if bad.size:  # no game has moved yet
            i = int(bad[0])
            why = self._runner.on_lane("explain", i, int(acts[i]))
            raise IllegalActionError(f"environment {i}: {why}")
        parts = self._runner.call("step", self._runner.split(acts))
        final_obs = {lane: obs for part in parts for lane, obs in part}
        return (
            _give(self.copy, a["obs"]),
            _give(self.copy, a["masks"]),
            a["seats"].copy(),
            a["rewards"].copy(),
            a["terminated"].copy(),
            {"final_obs": final_obs},
        )

    def observe(self, lane: int, seat: int) -> tuple[Array, Array]:
        """The observation and mask of any seat of one game (all zero mask when it may not
        act)."""
        if not 0 <= lane < self.num_envs or not 0 <= seat < self.num_players:
            raise DataError(f"no lane {lane} seat {seat} in this batch")
        out: tuple[Array, Array] = self._runner.on_lane("observe", lane, seat)
        return out

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The acting seats' legal actions, (n_envs, actions) booleans."""
        return self._a["masks"].astype(np.bool_)

    def close(self) -> None:
        self._runner.close()

    def __enter__(self) -> AECBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["AECBatch", "CafeSoloVectorEnv", "lane_seeds"]
