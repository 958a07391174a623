"""Self-play through the Redis queue (bots/selfplay.py): two worker processes give the results
a local run of the same jobs gives, in the jobs' order; a dead worker's job is played by
another; a run that ends early leaves no job to play; a worker with other features refuses.
The games of a rating run go the same way: a worker gives the records a local run gives, and
refuses with other rules, bots or models than the coordinator's (the source digest).
Against a real Redis ($COFFEETABLE_TEST_REDIS, database 5 by default), each test on its own
key prefix; skipped when no Redis answers (a failure with COFFEETABLE_REQUIRE_SITE=1, as in CI)."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import operator
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coffeetable.bots import selfplay
from coffeetable.bots.selfplay import GROUP, Job, SelfPlayQueue, play, work
from coffeetable.core.errors import DataError

REDIS_URL = os.environ.get("COFFEETABLE_TEST_REDIS", "redis://127.0.0.1:6379/5")


def require_redis() -> Any:
    """A client of the test Redis; the test is skipped without one (failed in CI)."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=5)
    try:
        client.ping()
    except redis.RedisError:
        if os.environ.get("COFFEETABLE_REQUIRE_SITE") == "1":  # CI (.ci/run) has Redis
            pytest.fail(f"COFFEETABLE_REQUIRE_SITE=1 but no Redis at {REDIS_URL}")
        pytest.skip(f"no Redis at {REDIS_URL}")
    return client


@pytest.fixture
def prefix() -> Iterator[str]:
    client = require_redis()
    name = f"test:selfplay:{uuid.uuid4().hex[:8]}"
    yield name
    for key in client.scan_iter(f"{name}:*"):
        client.delete(key)


def _worker(prefix: str) -> None:
    work(REDIS_URL, prefix, idle_exit=3.0)


JOBS = [
    Job("random", 700, 1),
    Job("greedy", 701, 1),
    Job("random", 702, 2),
    Job("random", 703, 3),
    Job("random", 704, 1),
    Job("greedy", 705, 2, "coffee-rush", others=True),
]


def test_a_coffee_rush_job_gives_its_games_features() -> None:
    from coffeetable.bots.learned import RUSH_FEATURES

    result = play(Job("greedy", 750, 2, "coffee-rush"))
    assert result == play(Job("greedy", 750, 2, "coffee-rush"))  # decided by the job alone
    assert {len(f) for _, _, _, f in result["rows"]} == {len(RUSH_FEATURES)}
    assert {s for s, _, _, _ in result["rows"]} == {0, 1}
    turn_ends = [f for s, _, e, f in result["rows"] if e]
    assert turn_ends and len(turn_ends) < len(result["rows"])
    assert len(result["scores"]) == 2 and result["winners"]
    # the digest a worker checks is the game's: Café's is the one older workers compute
    assert selfplay.code_digest() == selfplay.code_digest("cafe")
    assert selfplay.code_digest("coffee-rush") != selfplay.code_digest("cafe")
    # with `others`, every other seat is kept where a turn ends too (flag 2)
    both = play(Job("greedy", 750, 2, "coffee-rush", others=True))
    assert [r for r in both["rows"] if r[2] != 2] == result["rows"]
    ends = [(s, f) for s, _, e, f in both["rows"] if e == 1]
    others = [(s, f) for s, _, e, f in both["rows"] if e == 2]
    assert len(others) == len(ends)
    assert all(o != s for (s, _), (o, _) in zip(ends, others, strict=True))
    with pytest.raises(DataError, match="no learned features"):
        play(Job("greedy", 750, 2, "no-such-game"))


@pytest.mark.slow  # self-play through two worker processes (~11 s idle): CI's slow pass
def test_two_workers_give_what_a_local_run_gives(prefix: str) -> None:
    local = [play(job) for job in JOBS]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_worker, args=(prefix,)) for _ in range(2)]
    for process in workers:
        process.start()
    try:
        queued = list(SelfPlayQueue(REDIS_URL, prefix).run(JOBS, stall=120))
    finally:
        for process in workers:
            process.join(timeout=60)
    assert [r["deal"] for r in queued] == [job.deal for job in JOBS]
    assert queued == [_as_json_reads(r) for r in local]
    assert all(r["rows"] for r in queued)
    assert all(process.exitcode == 0 for process in workers)


def _as_json_reads(result: dict[str, Any]) -> dict[str, Any]:
    """A local result as the queue gives it (rows as tuples, features as lists)."""
    return {**result, "rows": [(s, r, e, list(f)) for s, r, e, f in result["rows"]]}


def test_a_dead_workers_job_is_played_by_another(prefix: str) -> None:
    import redis

    queue = SelfPlayQueue(REDIS_URL, prefix, lease=0.5)
    results = queue.run([Job("random", 710, 1)], stall=60)
    client = redis.Redis.from_url(REDIS_URL)
    # the coordinator queues its job when first asked for a result: a worker takes it and
    # dies before answering (it reads the job and never acknowledges it)
    context = multiprocessing.get_context("spawn")
    reader = context.Process(target=_take_and_die, args=(prefix,))
    started = time.monotonic()
    reader.start()
    got = []
    for result in results:
        got.append(result)
    reader.join(timeout=60)
    assert [r["deal"] for r in got] == [710]
    assert got[0] == _as_json_reads(play(Job("random", 710, 1)))
    assert time.monotonic() - started < 60
    assert client.xlen(f"{prefix}:jobs") == 0


def _hold_a_game(prefix: str, processes: int) -> None:
    """A worker (`processes` of them) that plays until stopped, without the coordinator's
    wait: a test stops it mid-game."""
    selfplay.run_workers(REDIS_URL, processes, prefix)


def _pending(client: Any, prefix: str) -> int:
    selfplay._ensure_group(client, f"{prefix}:jobs")
    return int(client.xpending(f"{prefix}:jobs", GROUP)["pending"])


@pytest.mark.parametrize("processes", [1, 2])
def test_a_stopped_worker_hands_its_game_back(prefix: str, processes: int) -> None:
    """SIGTERM (`kill`, a service manager) on a worker mid-game, one process or the parent
    of two: it stops at once and its game goes back on the queue, where another worker
    plays it now, not after the job's lease (30 minutes here)."""
    import signal

    import redis

    client = redis.Redis.from_url(REDIS_URL)
    jobs = [Job("greedy", 760 + k, 1) for k in range(processes)]  # a second or two each
    got: list[dict[str, Any]] = []
    coordinator = _queue_in_thread(prefix, jobs, got)
    worker = multiprocessing.get_context("spawn").Process(
        target=_hold_a_game, args=(prefix, processes)
    )
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while _pending(client, prefix) < processes:
            assert time.monotonic() < deadline and worker.is_alive()
            time.sleep(0.005)
        os.kill(worker.pid or 0, signal.SIGTERM)
        worker.join(timeout=20)
        assert worker.exitcode == 0  # stopped, not killed, and before its games ended
        assert _pending(client, prefix) == 0
        assert client.xlen(f"{prefix}:jobs") == processes  # back on the queue
        assert work(REDIS_URL, prefix, idle_exit=1.0, max_jobs=processes) == processes
        coordinator.join(timeout=60)
    finally:
        if worker.is_alive():
            worker.kill()
    assert got == [_as_json_reads(play(job)) for job in jobs]
    assert client.xlen(f"{prefix}:jobs") == 0


def _queue_in_thread(prefix: str, jobs: list[Job], got: list[dict[str, Any]]) -> Any:
    """A coordinator running `jobs` in a thread (it queues them when first asked)."""
    import threading

    coordinator = threading.Thread(
        target=lambda: got.extend(SelfPlayQueue(REDIS_URL, prefix).run(jobs, stall=60))
    )
    coordinator.start()
    return coordinator


def test_a_worker_stopped_as_a_job_arrives_hands_it_back(
    prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM) just after Redis gave the worker a job, before the worker held it:
    the job goes back on the queue at once, not after its lease (30 minutes)."""
    client = require_redis()
    jobs = [Job("random", 770, 1)]
    got: list[dict[str, Any]] = []
    coordinator = _queue_in_thread(prefix, jobs, got)
    take = selfplay._take

    def take_then_stop(redis: Any, stream: str, name: str) -> Any:
        taken = take(redis, stream, name)
        if taken is not None:
            raise KeyboardInterrupt  # delivered to this worker, not yet in its hands
        return taken

    try:
        monkeypatch.setattr(selfplay, "_take", take_then_stop)
        assert work(REDIS_URL, prefix, idle_exit=30.0) == 0
        assert _pending(client, prefix) == 0
        assert client.xlen(f"{prefix}:jobs") == 1  # back on the queue
        monkeypatch.setattr(selfplay, "_take", take)
        assert work(REDIS_URL, prefix, idle_exit=1.0, max_jobs=1) == 1
    finally:
        coordinator.join(timeout=60)
    assert got == [_as_json_reads(play(jobs[0]))]
    assert client.xlen(f"{prefix}:jobs") == 0


def test_a_worker_stopped_after_answering_does_not_hand_the_game_back(
    prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM) after the worker sent its result and before it acknowledged the
    job: the job is done (acknowledged and deleted), not put back for another worker to play
    again."""
    import redis

    client = require_redis()
    jobs = [Job("random", 771, 1)]
    got: list[dict[str, Any]] = []
    coordinator = _queue_in_thread(prefix, jobs, got)
    xack = redis.Redis.xack
    stops: list[str] = []

    def stop_at_the_first_ack(self: Any, name: Any, *args: Any, **kwargs: Any) -> Any:
        if not stops and str(name).endswith(":jobs"):
            stops.append(name)
            raise KeyboardInterrupt  # the result is sent, the job not yet acknowledged
        return xack(self, name, *args, **kwargs)

    try:
        monkeypatch.setattr(redis.Redis, "xack", stop_at_the_first_ack)
        work(REDIS_URL, prefix, idle_exit=30.0, max_jobs=1)
        assert stops  # it was stopped there
        assert _pending(client, prefix) == 0
        assert client.xlen(f"{prefix}:jobs") == 0  # not queued again
    finally:
        coordinator.join(timeout=60)
    assert got == [_as_json_reads(play(jobs[0]))]


def _take_and_die(prefix: str) -> None:
    """A worker that dies mid-game: it takes one job, then a sound worker comes."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    stream = f"{prefix}:jobs"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        selfplay._ensure_group(client, stream)
        got = client.xreadgroup(GROUP, "doomed", {stream: ">"}, count=1, block=500)
        if got:
            break
    assert got, "the coordinator queued no job"
    work(REDIS_URL, prefix, idle_exit=2.0, max_jobs=1)


def test_a_run_cut_short_leaves_no_game_to_play(prefix: str) -> None:
    import redis

    jobs = [Job("random", 720 + k, 1) for k in range(3)]
    assert list(SelfPlayQueue(REDIS_URL, prefix).run(jobs, seconds=0.0)) == []
    client = redis.Redis.from_url(REDIS_URL)
    assert client.xlen(f"{prefix}:jobs") == 3
    assert work(REDIS_URL, prefix, idle_exit=0.5) == 0  # dropped, unplayed
    assert client.xlen(f"{prefix}:jobs") == 0
    assert not list(client.scan_iter(f"{prefix}:run:*"))


def test_a_worker_with_other_features_refuses(prefix: str) -> None:
    queue = SelfPlayQueue(REDIS_URL, prefix)
    results = queue.run([Job("random", 730, 1)], stall=30)
    context = multiprocessing.get_context("spawn")
    worker = context.Process(target=_worker_with_other_features, args=(prefix,))
    worker.start()
    try:
        with pytest.raises(DataError, match="other features or another deck"):
            next(results)
    finally:
        worker.join(timeout=30)


def _worker_with_other_features(prefix: str) -> None:
    selfplay.code_digest = lambda game="cafe": "another"  # type: ignore[assignment]
    work(REDIS_URL, prefix, idle_exit=2.0, max_jobs=1)


def test_the_worker_command_checks_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from coffeetable.cli.main import main

    assert main(["selfplay-worker", "--redis", "http://example"]) != 0
    assert "--redis must be a redis://" in capsys.readouterr().err
    assert main(["selfplay-worker", "--redis", REDIS_URL, "--processes", "0"]) != 0
    assert "--processes must be at least 1" in capsys.readouterr().err


def test_the_worker_command_plays_the_queue(prefix: str) -> None:
    """`coffeetable selfplay-worker` as a process, on the default prefix's queue: the jobs
    of a run go through it (it stops after --idle-exit)."""
    import subprocess
    import sys

    queue = SelfPlayQueue(REDIS_URL, prefix)
    queue.jobs = f"{selfplay.PREFIX}:jobs"  # the command's queue; the run's keys stay apart
    queue.key = f"{selfplay.PREFIX}:run:{queue.run_id}"
    queue.replies = f"{queue.key}:results"
    results = queue.run([Job("random", 740, 1)], stall=60)
    command = ["selfplay-worker", "--redis", REDIS_URL, "--idle-exit", "2"]
    worker = subprocess.Popen(
        [sys.executable, "-m", "coffeetable", *command],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        got = list(results)
    finally:
        out, _ = worker.communicate(timeout=60)
    assert got == [_as_json_reads(play(Job("random", 740, 1)))]
    assert "1 self-play and rating games played" in out


# ==== the games of a rating run (benchmarks/bot_elo.py --redis) ================================
def _rating_jobs() -> list[Any]:
    from coffeetable import find_game
    from coffeetable.bots import tournament

    game = find_game("coffee-rush")
    return tournament.schedule(game, ["random", "greedy"], 4, 30, 2, ["random", "greedy"])


def _without_time(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "seconds"}


def test_rating_games_through_the_queue_are_a_local_runs(prefix: str) -> None:
    import threading

    from coffeetable.bots import tournament

    jobs = _rating_jobs()
    local = [_without_time(tournament.play(job)) for job in jobs]
    worker = threading.Thread(target=work, args=(REDIS_URL, prefix), kwargs={"max_jobs": 4})
    worker.start()
    try:
        queued = [_without_time(r) for r in SelfPlayQueue(REDIS_URL, prefix).run_games(jobs, 60)]
    finally:
        worker.join(timeout=60)
    key = operator.itemgetter("index")
    assert sorted(queued, key=key) == sorted(local, key=key)
    assert len({r["index"] for r in queued}) == len(jobs) == 4
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    assert client.xlen(f"{prefix}:jobs") == 0 and not list(client.scan_iter(f"{prefix}:run:*"))


def test_a_rating_run_stopped_early_leaves_no_game_to_play(prefix: str) -> None:
    import redis

    queue = SelfPlayQueue(REDIS_URL, prefix)
    results = queue.run_games(_rating_jobs(), stall=0.2)
    with pytest.raises(TimeoutError, match="no worker"):
        next(results)  # nobody plays: the run gives up, and withdraws its games
    client = redis.Redis.from_url(REDIS_URL)
    assert client.xlen(f"{prefix}:jobs") == 4
    assert work(REDIS_URL, prefix, idle_exit=0.5) == 0  # dropped, unplayed
    assert client.xlen(f"{prefix}:jobs") == 0


def test_a_worker_with_other_code_refuses_rating_games(prefix: str) -> None:
    results = SelfPlayQueue(REDIS_URL, prefix).run_games(_rating_jobs()[:1], stall=30)
    context = multiprocessing.get_context("spawn")
    worker = context.Process(target=_worker_with_other_code, args=(prefix,))
    worker.start()
    try:
        with pytest.raises(DataError, match="other rules, bots or models than the run's"):
            next(results)
    finally:
        worker.join(timeout=30)
    assert worker.exitcode == 0


def _worker_with_other_code(prefix: str) -> None:
    selfplay.source_digest = lambda: "another"  # type: ignore[assignment]
    work(REDIS_URL, prefix, idle_exit=2.0, max_jobs=1)


def test_a_bad_rating_job_is_answered_with_an_error_not_played() -> None:
    fields = {
        b"digest": selfplay.source_digest().encode(),
        b"n": b"0",
        b"job": json.dumps({"game": "cafe", "players": 2, "no such": 1}).encode(),
    }
    answer = selfplay._rating_game(fields, "w")
    assert set(answer) == {"error"} and "KeyError" in answer["error"]
    job = dataclasses.asdict(_rating_jobs()[0])
    for bad, error in [
        ({"seats": [0]}, "a 2-player game with seats (0,)"),
        ({"players": "two"}, "ValueError"),
        ({"pair": ["random"]}, "IndexError"),
        ({"played": ["random", "no-such-bot"]}, "no-such-bot"),
        ({"game": "chess"}, "unknown game"),
    ]:
        fields[b"job"] = json.dumps({**job, **bad}).encode()
        answer = selfplay._rating_game(fields, "w")
        assert set(answer) == {"error"} and error in answer["error"], (bad, answer)
    fields[b"job"] = json.dumps(job).encode()
    assert set(selfplay._rating_game(fields, "w")) == {"n", "result"}
    fields[b"job"] = b"{not json"
    assert "JSONDecodeError" in selfplay._rating_game(fields, "w")["error"]


def test_the_source_digest_is_of_the_files_the_games_are_played_by(tmp_path: Path) -> None:
    from importlib import resources

    root = resources.files("coffeetable")
    assert isinstance(root, Path)
    copy = tmp_path / "coffeetable"
    for package in ("core", "games", "bots"):
        shutil.copytree(root / package, copy / package)
    assert selfplay.tree_digest(copy) == selfplay.source_digest()
    # what the games do not read: the published ratings, compiled bytecode
    ratings = copy / "bots" / "data" / "bot-ratings.json"
    ratings.write_text(ratings.read_text("utf-8") + "\n", encoding="utf-8")
    (copy / "games" / "__pycache__").mkdir(exist_ok=True)
    (copy / "games" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert selfplay.tree_digest(copy) == selfplay.source_digest()
    # a rule, a bot, a card: another digest
    for changed in ("games/cafe/state.py", "bots/greedy.py", "bots/make.py"):
        path = copy / changed
        text = path.read_bytes()
        path.write_bytes(text + b"\n")
        assert selfplay.tree_digest(copy) != selfplay.source_digest(), changed
        path.write_bytes(text)
    cards = copy / "games" / "cafe" / "data" / "deck.toml"
    cards.write_bytes(cards.read_bytes() + b"\n")
    assert selfplay.tree_digest(copy) != selfplay.source_digest()


def test_the_selfplay_script_reports_a_queue_it_cannot_reach(tmp_path: Path) -> None:
    """benchmarks/selfplay.py --redis with nothing at the address: a clear error, no
    traceback, no file."""
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "selfplay.py"
    out = tmp_path / "games.npz"
    command = [sys.executable, str(script), "--out", str(out), "--players", "1"]
    command += ["--bots", "random", "--games", "2", "--workers", "0"]
    done = subprocess.run(
        [*command, "--redis", "redis://127.0.0.1:1/0"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "error: the queue: " in done.stderr and "(no game played)" in done.stderr
    assert not out.exists()


def test_the_selfplay_script_killed_withdraws_its_games(tmp_path: Path) -> None:
    """benchmarks/selfplay.py --redis stopped with SIGTERM (as with Ctrl-C): a clear message,
    no traceback, the run's key gone, and a worker drops its games unplayed."""
    import signal
    import subprocess
    import sys

    import redis

    require_redis()
    url = REDIS_URL.rsplit("/", 1)[0] + "/6"  # the script's default queue, in a database apart
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(f"{selfplay.PREFIX}:*"):
        client.delete(key)
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "selfplay.py"
    out = tmp_path / "games.npz"
    command = [sys.executable, str(script), "--out", str(out), "--players", "1"]
    command += ["--bots", "random", "--games", "3", "--workers", "0", "--redis", url]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    jobs = f"{selfplay.PREFIX}:jobs"
    try:
        deadline = time.monotonic() + 60
        while not client.exists(jobs) or client.xlen(jobs) < 3:
            assert time.monotonic() < deadline and run.poll() is None, run.communicate()
            time.sleep(0.02)
        run.send_signal(signal.SIGTERM)
        _, stderr = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 1 and "Traceback" not in stderr, stderr
    assert stderr.strip().endswith("stopped (no game played)")
    assert not list(client.scan_iter(f"{selfplay.PREFIX}:run:*"))
    assert work(url, selfplay.PREFIX, idle_exit=0.5) == 0
    assert client.xlen(jobs) == 0 and not out.exists()
    for key in client.scan_iter(f"{selfplay.PREFIX}:*"):
        client.delete(key)
