"""Self-play games for a learned value, and the games of a bot rating run, played here or by any
number of workers through a Redis queue (docs/bots.md, "The learned value" and "Bot levels on
the rating scale").

A job is one seeded game: (bots, deal, players, game). `play(job)` plays it and returns, for
each seat after each of its steps, the features the game's `learned.FEATURES` give from that
seat's own information, and the game's outcome. A game is decided by its job alone (the deal seeds the
game, the bots are seeded from the deal), so it gives the same positions wherever it is played.

Through a queue (`SelfPlayQueue`, `work`): a coordinator puts its run's jobs on one Redis
stream, `coffeetable:selfplay:jobs`, read by a consumer group; any number of worker processes
on any machines (`coffeetable selfplay-worker --redis URL`) take them, play them and add the
results to the run's own reply stream; the coordinator gathers them, by deal, and yields them
in the order of its jobs, so a run through the queue gives what a local run of the same
jobs gives, whatever the number of workers. A worker's job is acknowledged only once its result
is sent: a job whose worker died is taken by another worker once it has been pending for
longer than its lease, and a worker stopped by Ctrl-C or SIGTERM puts its job back at once
(also one Redis had just handed it; one it has answered is acknowledged, not played again). A
run that ends early (its time is up, or it is interrupted: Ctrl-C, or SIGTERM within
`stopped_by_sigterm`) deletes its key, and the workers then drop the jobs of it that are
left. Workers check that they compute the features and use the deck of the coordinator (a
digest of each) before they play.

The same queue carries the games of a rating run (`tournament.GameJob`: a pair of bots on a
deal, seat by seat; benchmarks/bot_elo.py --redis): `SelfPlayQueue.run_games(jobs)` yields
each game's record (`tournament.play`) as it comes, whoever played it. A worker plays such a
game only if the rules, bots and models it would play them with are the coordinator's, byte
for byte (`source_digest`): a rating is of the code that played its games.

Plain Python and the standard library (the `redis` client for the queue): numpy is needed only
to store and train (benchmarks/selfplay.py, benchmarks/train_value.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from coffeetable import find_game
from coffeetable.bots import make_bot, tournament
from coffeetable.bots.greedy import turn_over
from coffeetable.bots.learned import FEATURES, deck_sha256
from coffeetable.bots.tournament import GameJob
from coffeetable.core.errors import CoffeetableError, DataError
from coffeetable.core.game import State

PREFIX = "coffeetable:selfplay"
GROUP = "workers"
#: a job pending this long (seconds) is taken from its worker by another: the worker is deemed
#: dead. Longer than a game at 1 s a decision (Café 2 players: about 150 decisions)
LEASE = 1800.0


@dataclass(frozen=True)
class Job:
    """One game of `game`: `bots` in every seat, on deal `deal`, with `players` seats. With
    `others`, where a seat's turn ends the other seats' features are kept too (row flag 2):
    a search scores its leaves there, at the start of another seat's turn."""

    bots: str
    deal: int
    players: int
    game: str = "cafe"
    others: bool = False


def play(job: Job) -> dict[str, Any]:
    """One game of `job.bots` in every seat on deal `job.deal`: each seat's features after
    each of its steps, as rows (seat, round, 1 if the step ended its turn else 0, features),
    with `job.others` also each other seat's where a turn ends (flag 2), and the outcome: the
    scores and the winners."""
    features = _features(job.game)
    state = find_game(job.game).new_initial_state(job.players, job.deal, {})
    bots = [make_bot(job.bots, job.deal * 16 + s) for s in range(job.players)]
    rows: list[tuple[int, int, int, list[float]]] = []
    started: dict[int, int] = {}  # seat -> round its turn began in
    while not state.is_over():
        seat = min(state.current_seats())
        started.setdefault(seat, state.round_number())
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
        if state.is_over():
            break
        for s in list(started):
            if turn_over(state, s, started[s]):
                del started[s]
                rows.append((s, state.round_number(), 1, features(state, s)))
                if job.others:
                    for o in range(job.players):
                        if o != s and o not in started:
                            rows.append((o, state.round_number(), 2, features(state, o)))
            elif s == seat:  # a step within the turn
                rows.append((s, state.round_number(), 0, features(state, s)))
    return {
        "deal": job.deal,
        "spec": job.bots,
        "rows": rows,
        "scores": [s.total for s in state.scores()],
        "winners": state.winners(),
    }


def _features(game: str) -> Callable[[State, int], list[float]]:
    """The game's feature function, or a DataError for a game no value is learned for."""
    known = FEATURES.get(game)
    if known is None:
        raise DataError(f"no learned features for {game!r}: {', '.join(sorted(FEATURES))}")
    return known[1]


def code_digest(game: str = "cafe") -> str:
    """What a worker must share with the coordinator: the game's features' names and deck."""
    _features(game)
    probe = find_game(game).new_initial_state(2, 0, {})
    text = json.dumps([list(FEATURES[game][0]), deck_sha256(probe)])
    if game != "cafe":  # Café's digest is the one its earlier workers computed
        text = json.dumps([game, text])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: what decides how a rating game is played: the rules, the bots and their models (every
#: file of these packages but the published ratings, which the games do not read)
_PLAYED_BY = ("core", "games", "bots")
_NOT_PLAYED_BY = {"bots/data/bot-ratings.json"}
_SOURCE_SUFFIXES = {".py", ".json", ".toml", ".csv", ".txt", ".yaml"}


@functools.cache
def source_digest() -> str:
    """What a worker must share with the coordinator of a rating run: this install's files
    of the rules, the bots and their models (`_PLAYED_BY`), by path and content."""
    root = resources.files("coffeetable")
    assert isinstance(root, Path)  # an installed package, not a zip
    return tree_digest(root)


def tree_digest(root: Path) -> str:
    """The digest `source_digest` takes of the package at `root`."""
    digest = hashlib.sha256()
    for package in _PLAYED_BY:
        for path in sorted((root / package).rglob("*")):
            name = path.relative_to(root).as_posix()
            if (
                path.suffix in _SOURCE_SUFFIXES
                and "__pycache__" not in path.parts
                and name not in _NOT_PLAYED_BY
                and path.is_file()
            ):
                digest.update(f"{name}\0{path.stat().st_size}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _redis(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_timeout=30)


def _result_json(result: dict[str, Any]) -> str:
    # floats are written as the shortest text that reads back as the same float: exact
    return json.dumps(result, allow_nan=True)


def _from_json(text: bytes | str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text)
    data["rows"] = [(s, r, e, f) for s, r, e, f in data["rows"]]
    return data


class Terminated(KeyboardInterrupt):
    """A SIGTERM within `stopped_by_sigterm`: handled where a Ctrl-C is, and told apart
    where it matters (a Ctrl-C reaches every process of the terminal, a SIGTERM one)."""


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM (`kill`, a service manager, a batch scheduler) stops this
    process as Ctrl-C does, with a KeyboardInterrupt (`Terminated`): a coordinator withdraws
    its run's games and says how to continue, instead of dying with its run's key left for
    the workers to play for nothing; a worker hands its game back. Processes forked meanwhile
    still end at once on a SIGTERM. Outside the main thread (where no handler can be set)
    the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != owner:  # a process forked from this one: end as by default
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class SelfPlayQueue:
    """The coordinator's side: `run(jobs)` queues the jobs and yields their results in order."""

    def __init__(self, url: str, prefix: str = PREFIX, lease: float = LEASE) -> None:
        self.redis = _redis(url)
        self.prefix = prefix
        self.jobs = f"{prefix}:jobs"
        self.lease = lease
        self.run_id = uuid.uuid4().hex[:12]
        self.key = f"{prefix}:run:{self.run_id}"  # exists while the run wants its results
        self.replies = f"{prefix}:run:{self.run_id}:results"
        self._last = time.monotonic()  # when the last answer came
        self._error: str | None = None  # a worker's, raised after the answers before it

    def run(
        self, jobs: Iterable[Job], seconds: float | None = None, stall: float = 3600.0
    ) -> Iterator[dict[str, Any]]:
        """The results of `jobs`, in their order. With `seconds`, no result is waited for
        after that time (the jobs left are withdrawn); `stall`: at most this long without
        any result (no worker?) before a TimeoutError."""
        jobs = list(jobs)
        start = time.monotonic()
        self._ensure_group()
        self.redis.set(self.key, "1", ex=max(60, int(stall) + 60))
        digests = {game: code_digest(game) for game in {job.game for job in jobs}}
        for job in jobs:
            self.redis.xadd(
                self.jobs,
                {
                    "run": self.run_id,
                    "bots": job.bots,
                    "deal": job.deal,
                    "players": job.players,
                    "game": job.game,
                    "others": int(job.others),
                    "digest": digests[job.game],
                    "lease": self.lease,
                },
            )
        got: dict[int, dict[str, Any]] = {}
        done: set[int] = set()
        self._last = time.monotonic()
        try:
            for job in jobs:
                while job.deal not in got:
                    if seconds is not None and time.monotonic() - start > seconds:
                        return
                    for fields in self._answers(stall, "self-play result"):
                        result = _from_json(fields[b"result"])
                        if int(result["deal"]) not in done:  # a job played twice
                            got.setdefault(int(result["deal"]), result)
                done.add(job.deal)
                yield got.pop(job.deal)
        finally:
            self.redis.delete(self.key, self.replies)

    def run_games(self, jobs: Sequence[GameJob], stall: float = 3600.0) -> Iterator[dict[str, Any]]:
        """The records of a rating run's games (`tournament.play`), each as it comes (not in
        the jobs' order), each once; `stall`: at most this long without any record (no
        worker?) before a TimeoutError. Stopping early (closing the iterator, an error, a
        Ctrl-C) withdraws the games not yet played."""
        self._ensure_group()
        self.redis.set(self.key, "1", ex=max(60, int(stall) + 60))
        try:
            digest = source_digest()
            for n, job in enumerate(jobs):
                self.redis.xadd(
                    self.jobs,
                    {
                        "run": self.run_id,
                        "kind": "game",
                        "n": n,
                        "job": json.dumps(dataclasses.asdict(job)),
                        "digest": digest,
                        "lease": self.lease,
                    },
                )
            left = set(range(len(jobs)))
            self._last = time.monotonic()
            while left:
                for fields in self._answers(stall, "rating game's result"):
                    n = int(fields[b"n"])
                    if n in left:  # not a game played twice
                        left.discard(n)
                        yield json.loads(fields[b"result"])
        finally:
            self.redis.delete(self.key, self.replies)

    def _answers(self, stall: float, what: str) -> list[dict[bytes, bytes]]:
        """The workers' answers on the run's reply stream (waiting up to half a second),
        taken off it; a DataError for a worker's error (once the answers before it are
        handed out), a TimeoutError after `stall` seconds without any answer. Keeps the run's
        key alive."""
        if self._error is not None:
            raise DataError(f"a worker failed: {self._error}")
        if time.monotonic() - self._last > stall:
            raise TimeoutError(f"no {what} for {stall:.0f} s: no worker?")
        self.redis.expire(self.key, max(60, int(stall) + 60))
        answers: list[dict[bytes, bytes]] = []
        entries = self.redis.xread({self.replies: "0-0"}, count=100, block=500)
        for _stream, items in entries or ():
            for entry_id, fields in items:
                self.redis.xdel(self.replies, entry_id)
                self._last = time.monotonic()
                error = fields.get(b"error")
                if error is not None:
                    self._error = error.decode()
                    return answers
                answers.append(fields)
        return answers

    def _ensure_group(self) -> None:
        _ensure_group(self.redis, self.jobs)


def _ensure_group(redis: Any, stream: str) -> None:
    import redis as redis_module

    try:
        redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
    except redis_module.ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


def work(
    url: str,
    prefix: str = PREFIX,
    idle_exit: float | None = None,
    max_jobs: int | None = None,
    name: str | None = None,
) -> int:
    """Take self-play jobs from the queue and play them until `max_jobs` are done or no job
    has come for `idle_exit` seconds (None: for ever). Returns the number of games played.
    Ctrl-C or SIGTERM stops it: the game under way, or one Redis had just delivered to it, goes
    back on the queue at once (not after its lease), for another worker to play; a game whose
    result was sent is acknowledged instead (`_release`)."""
    redis = _redis(url)
    stream = f"{prefix}:jobs"
    _ensure_group(redis, stream)
    name = name or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    digests: dict[str, str] = {}
    played = 0
    idle_since = time.monotonic()
    done: bytes | None = None  # a job answered (or dropped) and not yet acknowledged
    try:
        with stopped_by_sigterm():
            while max_jobs is None or played < max_jobs:
                taken = _take(redis, stream, name)
                if taken is None:
                    if idle_exit is not None and time.monotonic() - idle_since > idle_exit:
                        break
                    continue
                entry_id, fields = taken
                run = fields[b"run"].decode()
                if redis.exists(f"{prefix}:run:{run}"):
                    if fields.get(b"kind") == b"game":
                        answer = _rating_game(fields, name)
                    else:
                        answer = _selfplay_answer(fields, name, digests)
                    if redis.exists(f"{prefix}:run:{run}"):
                        redis.xadd(f"{prefix}:run:{run}:results", answer)
                    played += 1
                done = entry_id
                redis.xack(stream, GROUP, entry_id)
                redis.xdel(stream, entry_id)
                done = None
                idle_since = time.monotonic()
    except KeyboardInterrupt:
        if _release(redis, stream, name, done):
            print(f"worker {name}: stopped; its game went back on the queue", file=sys.stderr)
    return played


def _release(redis: Any, stream: str, name: str, done: bytes | None) -> int:
    """A stopped worker's jobs (those Redis has delivered to consumer `name` and that are not
    acknowledged: the one under way, or one that arrived as the stop came, before the worker
    held it) go back on the queue at once, except `done`, a job already answered, which is
    acknowledged. Returns how many went back."""
    handed = 0
    mine = redis.xpending_range(stream, GROUP, min="-", max="+", count=100, consumername=name)
    for entry in mine:
        entry_id = entry["message_id"]
        got = redis.xrange(stream, entry_id, entry_id)
        if entry_id == done or not got:  # answered (deleted below), or deleted meanwhile
            redis.xack(stream, GROUP, entry_id)
            continue
        _hand_back(redis, stream, entry_id, got[0][1])
        handed += 1
    if done is not None:  # also when stopped between its acknowledgement and its deletion
        redis.xdel(stream, done)
    return handed


def _hand_back(redis: Any, stream: str, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
    """A job this worker took and will not finish goes back on the queue as a new entry, for
    any worker to take now (a result already sent counts once: the coordinator keeps the first)."""
    pipe = redis.pipeline(transaction=True)
    pipe.xadd(stream, fields)
    pipe.xack(stream, GROUP, entry_id)
    pipe.xdel(stream, entry_id)
    pipe.execute()


def _selfplay_answer(
    fields: dict[bytes, bytes], name: str, digests: dict[str, str]
) -> dict[str, Any]:
    """A worker's answer to a self-play job: its result, or why it was not played.
    `digests`: the features' digest of each game this worker has met, filled as it goes."""
    game = fields.get(b"game", b"cafe").decode()
    others = fields.get(b"others", b"0") == b"1"
    job = Job(fields[b"bots"].decode(), int(fields[b"deal"]), int(fields[b"players"]), game, others)
    if game not in digests and game in FEATURES:
        digests[game] = code_digest(game)
    if fields[b"digest"].decode() != digests.get(game):
        return {"error": f"worker {name}: other features or another deck than the run's"}
    try:
        return {"result": _result_json(play(job))}
    except DataError as exc:
        return {"error": f"worker {name}: {exc}"}


def _rating_game(fields: dict[bytes, bytes], name: str) -> dict[str, Any]:
    """A worker's answer to a rating run's game: its record, or why it was not played."""
    if fields[b"digest"].decode() != source_digest():
        return {"error": f"worker {name}: other rules, bots or models than the run's"}
    try:
        data = json.loads(fields[b"job"])
        job = GameJob(
            game=str(data["game"]),
            players=int(data["players"]),
            pair=(str(data["pair"][0]), str(data["pair"][1])),
            played=(str(data["played"][0]), str(data["played"][1])),
            index=int(data["index"]),
            deal=int(data["deal"]),
            seats=tuple(int(m) for m in data["seats"]),
            bot_seeds=tuple(int(s) for s in data["bot_seeds"]),
        )
        if len(job.seats) != job.players or len(job.bot_seeds) != job.players:
            raise ValueError(f"a {job.players}-player game with seats {job.seats}")
        record = tournament.play(job)
    except (CoffeetableError, TypeError, ValueError, LookupError) as exc:
        return {"error": f"worker {name}: {type(exc).__name__}: {exc}"}
    return {"n": int(fields[b"n"]), "result": json.dumps(record)}


def _take(redis: Any, stream: str, name: str) -> tuple[bytes, dict[bytes, bytes]] | None:
    """The next job: one a dead worker left (pending longer than its lease) first, then a new
    one (waiting up to a second)."""
    pending = redis.xpending_range(stream, GROUP, min="-", max="+", count=10)
    for entry in pending:
        got = redis.xrange(stream, entry["message_id"], entry["message_id"])
        if not got:  # deleted meanwhile
            redis.xack(stream, GROUP, entry["message_id"])
            continue
        lease_ms = int(float(got[0][1].get(b"lease", LEASE)) * 1000)
        if entry["time_since_delivered"] >= lease_ms:
            claimed = redis.xclaim(stream, GROUP, name, lease_ms, [entry["message_id"]])
            if claimed:
                entry_id, fields = claimed[0]
                return entry_id, fields
    entries = redis.xreadgroup(GROUP, name, {stream: ">"}, count=1, block=1000)
    for _stream, items in entries or ():
        for entry_id, fields in items:
            return entry_id, fields
    return None


def stop_workers(pool: Any) -> None:
    """A coordinator's own workers (`run_workers` in `pool`, a ProcessPoolExecutor) stop now,
    each handing its game under way back to the queue, instead of playing it out. Every
    process this one started is sent a SIGTERM: the coordinator starts no other."""
    _terminate_children()
    pool.shutdown(wait=False, cancel_futures=True)


def _terminate_children() -> None:
    """A SIGTERM to every process this one started: each worker hands its game back (`work`)."""
    import multiprocessing

    for child in multiprocessing.active_children():
        child.terminate()


def run_workers(
    url: str, processes: int, prefix: str = PREFIX, idle_exit: float | None = None
) -> int:
    """`processes` workers (one here with 1), until each is idle for `idle_exit` seconds
    (None: for ever). Returns the games played."""
    if processes == 1:
        return work(url, prefix, idle_exit)
    from concurrent.futures import ProcessPoolExecutor, wait

    with ProcessPoolExecutor(max_workers=processes) as pool:
        futures = [pool.submit(work, url, prefix, idle_exit) for _ in range(processes)]
        try:
            with stopped_by_sigterm():
                return sum(f.result() for f in futures)
        except KeyboardInterrupt as stop:
            # each worker hands its game back and stops: a Ctrl-C reached them all, a SIGTERM
            # (`kill`, a service manager) maybe this process only, so it is passed on
            if isinstance(stop, Terminated):
                _terminate_children()
            wait(futures, timeout=60)
            return sum(f.result() for f in futures if f.done() and not f.exception())
