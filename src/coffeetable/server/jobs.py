"""Bot jobs: bot decisions and hints, run off the event loop (docs/deploy.md).

A bot's search is CPU-bound Python, up to a second or more for ISMCTS, so it never runs on a
node's event loop. Two back ends of one interface, `Jobs.choose(...)`:

- `PoolJobs`: the node's own worker processes (`serve --bot-workers N`), the default. A pool
  whose worker died (the OOM killer, a crash) is replaced, and the decision is tried again
  once: a worker's death costs one retry.
- `RedisJobs`: a queue in Redis that `coffeetable bot-worker` processes on any machine take
  jobs from (`run_worker`). It is built on Redis Streams with a consumer group, Redis's own
  reliable queue: a job read by a worker stays pending until the worker acknowledges it, and a
  job whose worker died (its heartbeat key expired) is claimed by another worker and run
  again; a job that killed three workers is given up with an error. Bot decisions, hints and
  game reviews' decisions (`Jobs.analyse`) have a stream each, and workers take bot
  decisions first, then hints, then reviews, so neither ever starves bot seats.
  Why not arq, RQ or Celery: arq retries a job of a dead worker only after the job's whole
  timeout and runs jobs on its event loop; RQ forks a process per job and moves the job of a
  dead worker to a failed registry; Celery redelivers only after a visibility timeout of its
  own, and brings a large framework. A consumer group does exactly what is needed here, in
  the same Redis, with the retry as soon as the worker's heartbeat stops.

Whoever asks for a job waits a bounded time for the answer and asks again after that, and a
move is stored by compare-and-swap on the table's version: a job run twice never moves twice.
The job carries the full position (with the hidden deck order): workers are a trusted part of
the server, and every bot searches only on determinizations (tests/bots check that). A
position never reaches a client.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import orjson

from coffeetable.core.game import JSON
from coffeetable.server.bots import calibrate_deck, choose_move, review_decision
from coffeetable.server.bus import PREFIX

log = logging.getLogger("coffeetable.server.jobs")

BOT_STREAM = f"{PREFIX}jobs:bot"
HINT_STREAM = f"{PREFIX}jobs:hint"
REVIEW_STREAM = f"{PREFIX}jobs:review"
#: the streams in the order workers take their jobs
STREAMS = (BOT_STREAM, HINT_STREAM, REVIEW_STREAM)
GROUP = "workers"
#: Seconds a worker's heartbeat lasts; it renews it every HEARTBEAT_EVERY.
HEARTBEAT_TTL = 3.0
HEARTBEAT_EVERY = 1.0
#: A job read this many times (each time its worker died) is given up.
MAX_DELIVERIES = 3


class JobError(Exception):
    """A job that could not be done (the bot failed, or no worker answered in time)."""


class Jobs:
    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def choose(
        self,
        game_name: str,
        position: JSON,
        seat: int,
        bot: str,
        seed: int,
        plan: Sequence[str] = (),
        *,
        deck: str | None = None,
        hint: bool = False,
        timeout: float = 60.0,
    ) -> tuple[str, list[str]]:
        """`bots.choose_move` in a worker: the move's notation and the bot's plan after it.
        `deck`: the text of the table's players' deck (None: the default deck); workers
        are trusted and parse it (once per process). `hint` jobs come after bot seats'
        jobs. JobError if it could not be done."""
        raise NotImplementedError

    async def calibrate(
        self, game_name: str, deck: str | None, plan: dict[str, Any], *, timeout: float
    ) -> dict[str, Any]:
        """`bots.calibrate_deck` in a worker: a deck's calibration figures. JobError if it
        could not be done."""
        raise NotImplementedError

    async def analyse(self, job: JSON, *, timeout: float = 300.0) -> JSON:
        """`review.analyse_job` in a worker: the review of one decision of a game (a
        `review.decision_job`), as JSON. Taken after bot seats' jobs and hints. JobError if
        it could not be done."""
        raise NotImplementedError

    async def depth(self) -> int:
        """Jobs waiting or running."""
        return 0


class PoolJobs(Jobs):
    """The node's own pool of worker processes (`mode="thread"`: threads, for tests that
    cannot fork). Deck calibrations, which run for minutes, get a process of their own,
    started for the first one, so that bot seats never wait behind them."""

    def __init__(self, workers: int = 1, mode: str = "process") -> None:
        self.workers = workers
        self.mode = mode
        self._pool: concurrent.futures.Executor | None = None
        self._calibrations: concurrent.futures.Executor | None = None
        self._running = 0

    def _new_executor(self, workers: int) -> concurrent.futures.Executor:
        if self.mode == "process":
            return concurrent.futures.ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_end_with_parent,
                initargs=(os.getpid(),),
            )
        return concurrent.futures.ThreadPoolExecutor(max_workers=workers)

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            self._pool = self._new_executor(self.workers)
        return self._pool

    def pids(self) -> list[int]:
        """The worker processes' ids (for the health report and the tests)."""
        processes = getattr(self._pool, "_processes", None) or {}
        return sorted(processes)

    async def choose(
        self,
        game_name: str,
        position: JSON,
        seat: int,
        bot: str,
        seed: int,
        plan: Sequence[str] = (),
        *,
        deck: str | None = None,
        hint: bool = False,
        timeout: float = 60.0,
    ) -> tuple[str, list[str]]:
        result: tuple[str, list[str]] = await self._run(
            choose_move, game_name, position, seat, bot, seed, tuple(plan), deck
        )
        return result

    async def analyse(self, job: JSON, *, timeout: float = 300.0) -> JSON:
        result: JSON = await self._run(review_decision, job)
        return result

    async def _run(self, function: Any, *args: Any) -> Any:
        """`function(*args)` in the pool; a pool whose worker died is replaced, and the job
        tried once more."""
        loop = asyncio.get_running_loop()
        self._running += 1
        try:
            for attempt in (1, 2):
                pool = self._executor()
                try:
                    return await loop.run_in_executor(pool, function, *args)
                except BrokenProcessPool:
                    # a worker died: a new pool, and the job once more
                    log.warning("a bot worker process died; starting a new pool")
                    if self._pool is pool:
                        pool.shutdown(wait=False, cancel_futures=True)
                        self._pool = None
                    if attempt == 2:
                        raise JobError("the bot's worker process died twice") from None
                except Exception as exc:
                    raise JobError(f"the bot failed: {type(exc).__name__}: {exc}") from exc
            raise AssertionError("unreachable")
        finally:
            self._running -= 1

    async def calibrate(
        self, game_name: str, deck: str | None, plan: dict[str, Any], *, timeout: float
    ) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        if self._calibrations is None:
            self._calibrations = self._new_executor(1)
        self._running += 1
        try:
            future = loop.run_in_executor(
                self._calibrations, calibrate_deck, game_name, deck, dict(plan)
            )
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise JobError(f"the calibration took longer than {timeout:g} s") from None
        except BrokenProcessPool:
            self._calibrations = None
            raise JobError("the calibration's worker process died") from None
        except Exception as exc:
            raise JobError(f"the calibration failed: {type(exc).__name__}: {exc}") from exc
        finally:
            self._running -= 1

    async def depth(self) -> int:
        return self._running

    async def close(self) -> None:
        # a calibration may have minutes to run: its process is stopped, not waited for
        processes = getattr(self._calibrations, "_processes", None) or {}
        for process in list(processes.values()):
            with contextlib.suppress(Exception):
                process.terminate()
        for pool in (self._pool, self._calibrations):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._calibrations = None


#: How often a pool's worker process looks whether its node is still there (seconds).
PARENT_CHECK_SECONDS = 1.0


def _end_with_parent(parent: int) -> None:
    """In a pool's worker process: end it once the node that started it is gone. A node
    killed outright (SIGKILL, a crash) cannot shut its pool down, and a worker busy with a
    long job (a calibration, a review) would otherwise live on without it."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


async def _ensure_group(redis: Any, stream: str) -> None:
    try:
        await redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
    except Exception as exc:
        if "BUSYGROUP" not in str(exc):
            raise


class RedisJobs(Jobs):
    """Jobs through Redis Streams to `coffeetable bot-worker` processes. Answers come back on
    this node's own reply stream, read by one task."""

    def __init__(self, redis: Any, node_id: str) -> None:
        self.redis = redis
        self.node_id = node_id
        self.replies = f"{PREFIX}replies:{node_id}"
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._read_replies(), name="job-replies")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for future in self._waiting.values():
            future.cancel()

    async def choose(
        self,
        game_name: str,
        position: JSON,
        seat: int,
        bot: str,
        seed: int,
        plan: Sequence[str] = (),
        *,
        deck: str | None = None,
        hint: bool = False,
        timeout: float = 60.0,
    ) -> tuple[str, list[str]]:
        job = {
            "game": game_name,
            "position": position,
            "seat": seat,
            "bot": bot,
            "seed": seed,
            "plan": list(plan),
            "deck": deck,
        }
        answer = await self._submit(HINT_STREAM if hint else BOT_STREAM, job, timeout)
        return str(answer["text"]), [str(p) for p in answer.get("plan", [])]

    async def analyse(self, job: JSON, *, timeout: float = 300.0) -> JSON:
        answer = await self._submit(REVIEW_STREAM, {**job, "kind": "review"}, timeout)
        review: JSON = answer["review"]
        return review

    async def _submit(self, stream: str, job: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Queue `job` on `stream` and wait for its answer (JobError if it failed)."""
        job_id = secrets.token_hex(8)
        job = {"id": job_id, "reply": self.replies, **job}
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[job_id] = future
        try:
            try:
                await _ensure_group(self.redis, stream)
                await self.redis.xadd(stream, {"job": orjson.dumps(job)})
            except Exception as exc:
                raise JobError(f"could not queue the job: {exc}") from exc
            try:
                answer = await asyncio.wait_for(future, timeout)
            except TimeoutError:
                raise JobError(f"no bot worker answered within {timeout:g} s") from None
        finally:
            self._waiting.pop(job_id, None)
        if not answer.get("ok"):
            raise JobError(str(answer.get("error", "the job failed")))
        return answer

    async def calibrate(
        self, game_name: str, deck: str | None, plan: dict[str, Any], *, timeout: float
    ) -> dict[str, Any]:
        job = {"kind": "calibrate", "game": game_name, "deck": deck, "plan": dict(plan)}
        answer = await self._submit(HINT_STREAM, job, timeout)
        return dict(answer["figures"])

    async def depth(self) -> int:
        total = 0
        for stream in STREAMS:
            with contextlib.suppress(Exception):
                total += int(await self.redis.xlen(stream))
        return total

    async def _read_replies(self) -> None:
        # from the stream's beginning: it is this node's own (its id is new with every start),
        # and "$" would miss an answer added between two reads
        last = "0-0"
        lost = False
        while True:
            try:
                got = await self.redis.xread({self.replies: last}, count=100, block=1000)
                if lost:
                    # Redis came back, maybe empty: the jobs queued before are gone, so
                    # whoever waits for one is told now (a bot asks again) rather than
                    # after its whole timeout
                    lost = False
                    for waiting in list(self._waiting.values()):
                        if not waiting.done():
                            waiting.set_exception(JobError("Redis was away; the job was lost"))
                for _stream, entries in got or ():
                    for entry_id, fields in entries:
                        last = entry_id
                        try:
                            answer = orjson.loads(fields[b"answer"])
                        except (KeyError, orjson.JSONDecodeError):
                            continue
                        future = self._waiting.get(answer.get("id"))
                        if future is not None and not future.done():
                            future.set_result(answer)
                    if entries:
                        with contextlib.suppress(Exception):
                            await self.redis.xtrim(self.replies, maxlen=1000, approximate=True)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: whoever waits times out and asks again
                log.warning("reading job answers failed (%s); retrying", exc)
                last = "0-0"  # Redis may have come back empty
                lost = True
                await asyncio.sleep(1.0)


# ==== the worker ==============================================================================
def _answer(job: dict[str, Any]) -> dict[str, Any]:
    """A job's answer: a deck's calibration figures, a review of a decision, or a bot's move
    and plan; a job that fails (a deck that fails to play, a bot that fails on a position)
    is answered with its error, and the worker carries on."""
    kind = job.get("kind")
    try:
        if kind == "calibrate":
            figures = calibrate_deck(job["game"], job.get("deck"), job.get("plan") or {})
            return {"id": job["id"], "ok": True, "figures": figures}
        if kind == "review":
            return {"id": job["id"], "ok": True, "review": review_decision(job)}
        text, plan = choose_move(
            job["game"],
            job["position"],
            job["seat"],
            job["bot"],
            job["seed"],
            job["plan"],
            job.get("deck"),
        )
    except Exception as exc:
        log.exception("%s job %s failed", kind or "bot", job.get("id"))
        return {"id": job.get("id"), "ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"id": job["id"], "ok": True, "text": text, "plan": plan}


class Worker:
    """One worker process: takes a job at a time, bot decisions first, and answers it."""

    def __init__(self, redis_url: str) -> None:
        import redis

        # (redis-py's synchronous client: its answers' types depend on the command)
        self.redis: Any = redis.Redis.from_url(redis_url)
        self.name = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.heartbeat_key = f"{PREFIX}worker:{self.name}"
        self.stopping = threading.Event()
        self.done = 0
        #: jobs read but not yet done, by stream (_next)
        self._held: dict[str, list[tuple[bytes, dict[bytes, bytes]]]] = {}

    def _heartbeat(self) -> None:
        while not self.stopping.is_set():
            with contextlib.suppress(Exception):
                self.redis.set(self.heartbeat_key, "1", px=int(HEARTBEAT_TTL * 1000))
            self.stopping.wait(HEARTBEAT_EVERY)

    def _groups(self) -> None:
        for stream in STREAMS:
            try:
                self.redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
            except Exception as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def _claim_orphans(self) -> tuple[str, bytes, dict[bytes, bytes]] | None:
        """A job whose worker died (no heartbeat), claimed for this worker."""
        for stream in STREAMS:
            pending = self.redis.xpending_range(
                stream, GROUP, min="-", max="+", count=20, idle=int(HEARTBEAT_TTL * 500)
            )
            for entry in pending:
                consumer = entry["consumer"]
                consumer = consumer.decode() if isinstance(consumer, bytes) else consumer
                if consumer == self.name or self.redis.exists(f"{PREFIX}worker:{consumer}"):
                    continue
                claimed = self.redis.xclaim(
                    stream, GROUP, self.name, int(HEARTBEAT_TTL * 500), [entry["message_id"]]
                )
                for entry_id, fields in claimed:
                    if fields is None:
                        continue
                    if entry["times_delivered"] >= MAX_DELIVERIES:
                        self._give_up(stream, entry_id, fields)
                        continue
                    log.warning("took over job %s of dead worker %s", entry_id, consumer)
                    return stream, entry_id, fields
        return None

    def _give_up(self, stream: str, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
        with contextlib.suppress(orjson.JSONDecodeError, KeyError):
            job = orjson.loads(fields[b"job"])
            self._reply(job, {"id": job.get("id"), "ok": False, "error": "the job failed 3 times"})
        self.redis.xack(stream, GROUP, entry_id)
        self.redis.xdel(stream, entry_id)

    def _reply(self, job: dict[str, Any], answer: dict[str, Any]) -> None:
        reply = job.get("reply")
        if isinstance(reply, str) and reply.startswith(PREFIX + "replies:"):
            self.redis.xadd(reply, {"answer": orjson.dumps(answer)}, maxlen=1000)
            self.redis.expire(reply, 3600)

    def _next(self, block_ms: int) -> tuple[str, bytes, dict[bytes, bytes]] | None:
        """The next job: a dead worker's first, then by stream in STREAMS' order; with none
        waiting, the first to come on any stream within `block_ms`. A read of several
        streams may deliver a job of each: those not returned are held (they are this
        worker's now) and come first from their stream."""
        orphan = self._claim_orphans()
        if orphan is not None:
            return orphan
        for stream in STREAMS:
            held = self._held.get(stream)
            if held:
                return stream, *held.pop(0)
            got = self.redis.xreadgroup(GROUP, self.name, {stream: ">"}, count=1, block=None)
            for _name, entries in got or ():
                for entry_id, fields in entries:
                    return stream, entry_id, fields
        got = self.redis.xreadgroup(
            GROUP, self.name, dict.fromkeys(STREAMS, ">"), count=1, block=block_ms
        )
        for name, entries in got or ():
            stream = name.decode() if isinstance(name, bytes) else name
            self._held.setdefault(stream, []).extend(entries)
        for stream in STREAMS:
            held = self._held.get(stream)
            if held:
                return stream, *held.pop(0)
        return None

    def run(self, max_jobs: int | None = None) -> None:
        beat = threading.Thread(target=self._heartbeat, daemon=True)
        beat.start()
        log.info("bot worker %s started", self.name)
        try:
            while not self.stopping.is_set() and (max_jobs is None or self.done < max_jobs):
                try:
                    self._groups()
                    item = self._next(1000)
                except Exception as exc:  # Redis away: wait and try again
                    log.warning("bot worker: Redis error (%s); retrying", exc)
                    time.sleep(1.0)
                    continue
                if item is None:
                    continue
                stream, entry_id, fields = item
                try:
                    job = orjson.loads(fields[b"job"])
                except (KeyError, orjson.JSONDecodeError):
                    self.redis.xack(stream, GROUP, entry_id)
                    continue
                answer = _answer(job)
                try:
                    self._reply(job, answer)
                    self.redis.xack(stream, GROUP, entry_id)
                    self.redis.xdel(stream, entry_id)
                except Exception as exc:  # the job stays pending: another worker redoes it
                    log.warning("bot worker: could not answer job %s: %s", entry_id, exc)
                self.done += 1
        finally:
            self.stopping.set()
            with contextlib.suppress(Exception):
                self.redis.delete(self.heartbeat_key)


def _worker_process(redis_url: str) -> None:
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    Worker(redis_url).run()


def run_workers(redis_url: str, processes: int) -> None:
    """`coffeetable bot-worker`: `processes` worker processes, each replaced if it dies,
    until SIGTERM or SIGINT."""
    ctx = multiprocessing.get_context("spawn")
    children: list[Any] = []
    stopping = threading.Event()

    def stop(*_: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping.is_set():
            children = [c for c in children if c.is_alive()]
            while len(children) < processes:
                child = ctx.Process(target=_worker_process, args=(redis_url,), daemon=True)
                child.start()
                children.append(child)
            stopping.wait(0.5)
    finally:
        for child in children:
            child.terminate()
        for child in children:
            child.join(5)
