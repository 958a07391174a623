"""Issue 36's crash test (slow suite): one real `coffeetable serve` process per database
(SQLite file, PostgreSQL schema) under scripted play, killed with kill -9 at random moments
20+ times and started again each time; the clients reconnect and go on.

People play both games, at tables with two people, with bots, and with a person who never
plays (the realtime clock runs out and a bot takes the seat); they take back some of their
own steps. A table that ends during the kills is followed by a new one at the same place, so
the kills always fall on games in progress. Then:

- every move a client was acknowledged (an `update` carrying its own move) is stored,
  unless the client took it back itself (an `undo` it saw, or one it sent and never heard
  the answer to): lost 0;
- nothing twice: the stored versions of a table are unique, and no client connection got
  one version twice;
- every table resumes: it ends, or is still playable (its version moves on): stuck 0;
- every stored game replays by the rules from its seed, to its end if it is finished.

The counts are printed (run with -s to see them)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from coffeetable.core.registry import find_game
from coffeetable.server.auth import SESSION_COOKIE
from coffeetable.server.storage.backends import open_storage
from tests.server.conftest import REQUIRE_ENV, _drop_schema, _postgres_schema_url
from tests.server.live import Player, ServerProcess, server_tracebacks

pytestmark = [pytest.mark.server, pytest.mark.slow]

KILLS = 22  # kill -9 cycles per database
KILL_EVERY = (0.5, 2.0)  # seconds of play between a restart and the next kill
DOWN = (0.0, 0.5)  # seconds the server stays dead
THINK = (0.15, 0.6)  # seconds a person takes over a move while the kills go on
UNDO = 0.3  # chance that a person takes back a step that may be taken back
FINISH = 120.0  # seconds for the games to end after the kills
CLOCK = {"kind": "realtime", "initial": 600, "increment": 5}
SHORT_CLOCK = {"kind": "realtime", "initial": 6, "increment": 1}

# (game, seats, sleeper): the tables played side by side; each starts anew when it ends
SLOTS: list[tuple[str, list[dict[str, Any]], bool]] = [
    ("cafe", [{"kind": "human"}, {"kind": "open"}], False),
    ("coffee-rush", [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}], False),
    ("cafe", [{"kind": "human"}, {"kind": "bot", "bot": "random"}], False),
    ("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "random"}], False),
    ("cafe", [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], True),
]

Move = tuple[int, int, str]  # (version, seat, action)


@dataclass
class Tally:
    """What one person saw."""

    acked: list[Move] = field(default_factory=list)
    undone: set[Move] = field(default_factory=set)  # taken back, seen as an `undo` message
    maybe_undone: set[Move] = field(default_factory=set)  # an undo sent, its answer never seen
    undos: int = 0
    duplicates: int = 0
    sessions: int = 0


class Person(threading.Thread):
    """One person at one seat: plays random legal moves, sometimes takes one back, and
    reconnects whenever the socket drops; never plays if `sleeper` (the clock runs out)."""

    def __init__(
        self,
        server: ServerProcess,
        table_id: str,
        token: str,
        seed: int,
        sleeper: bool,
        fast: threading.Event,
    ) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.table_id = table_id
        self.token = token
        self.rng = random.Random(seed)
        self.sleeper = sleeper
        self.tally = Tally()
        self.over = False
        self.fast = fast  # no more thinking: the kills are over
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and not self.over:
            try:
                self._session()
            except Exception:
                time.sleep(0.2)

    def _think(self) -> float:
        return 0.0 if self.fast.is_set() else self.rng.uniform(*THINK)

    def _session(self) -> None:
        pending_undo: Move | None = None
        try:
            with connect(
                f"{self.server.ws_url}/ws/tables/{self.table_id}",
                additional_headers={"Cookie": f"{SESSION_COOKIE}={self.token}"},
                open_timeout=5,
                max_size=8 * 1024 * 1024,
            ) as ws:
                self.tally.sessions += 1
                versions_here: set[int] = set()
                pending: str | None = None
                state: dict[str, Any] = {}
                ready_at: float | None = None
                while not self.stop.is_set():
                    try:
                        message = json.loads(ws.recv(timeout=0.2))
                    except TimeoutError:
                        message = None
                    if message is not None:
                        kind = message["type"]
                        if kind in ("snapshot", "update", "undo"):
                            state = message
                        if kind in ("update", "undo"):
                            if message["version"] in versions_here:
                                self.tally.duplicates += 1
                            versions_here.add(message["version"])
                        if kind == "update":
                            move = message["move"]
                            mine = (move["version"], move["seat"], move["action"])
                            if pending is not None and move["seat"] == state.get("seat"):
                                if move["action"] == pending:
                                    self.tally.acked.append(mine)
                                    if (
                                        message.get("undoable")
                                        and not self.sleeper
                                        and self.rng.random() < UNDO
                                    ):
                                        pending_undo = mine
                                        ws.send(
                                            json.dumps(
                                                {"type": "undo", "version": message["version"]}
                                            )
                                        )
                                pending = None
                        if kind == "undo":
                            undone = message["undone"]
                            taken = (undone["version"], undone["seat"], undone["action"])
                            if taken in self.tally.acked:
                                self.tally.undone.add(taken)
                                self.tally.undos += 1
                            if taken == pending_undo:
                                pending_undo = None
                        if kind == "error":
                            pending = None
                            pending_undo = None
                        if state.get("view", {}).get("over"):
                            self.over = True
                            return
                    seat = state.get("seat")
                    view = state.get("view") or {}
                    if (
                        self.sleeper
                        or pending is not None
                        or pending_undo is not None
                        or not state.get("legal")
                        or seat not in view.get("current_seats", [])
                    ):
                        continue
                    if ready_at is None:
                        ready_at = time.monotonic() + self._think()
                    if time.monotonic() < ready_at:
                        continue
                    ready_at = None
                    pending = self.rng.choice(state["legal"])
                    ws.send(
                        json.dumps({"type": "act", "version": state["version"], "action": pending})
                    )
        finally:
            if pending_undo is not None:  # sent, never answered: it may have been done
                self.tally.maybe_undone.add(pending_undo)


def _retry(call: Any, stop: threading.Event, seconds: float = 60) -> Any:
    """Call until the server answers (it may be dead for a moment)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return call()
        except (httpx.HTTPError, AssertionError):
            if stop.is_set() or time.monotonic() > deadline:
                raise
            time.sleep(0.3)


class Slot(threading.Thread):
    """One place at which tables of one kind are played one after the other, while `more`."""

    def __init__(self, server: ServerProcess, index: int, seed: int, fast: threading.Event) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.fast = fast
        self.game, self.seats, self.sleeper = SLOTS[index]
        self.rng = random.Random(seed)
        self.more = threading.Event()
        self.more.set()
        self.stop = threading.Event()
        self.tables: list[str] = []
        self.people: list[Person] = []
        self.error: BaseException | None = None

    def _post(self, player: Player, path: str, ok: tuple[int, ...], **body: Any) -> Any:
        def call() -> Any:
            r = player.post(path, **body)
            assert r.status_code in ok, r.text
            return r.json()

        return _retry(call, self.stop)

    def _new_table(self) -> list[Person]:
        host = Player(self.server)
        _retry(host.guest, self.stop)
        guests = []
        if any(s["kind"] == "open" for s in self.seats):
            guests.append(Player(self.server))
            _retry(guests[0].guest, self.stop)
        clock = SHORT_CLOCK if self.sleeper else CLOCK
        table = self._post(
            host,
            "/api/tables",
            (201,),
            game=self.game,
            seats=self.seats,
            clock=clock,
            request_id=uuid.uuid4().hex,  # a repeated request (the server died) is harmless
        )
        tid = table["id"]
        for guest in guests:
            self._post(guest, f"/api/tables/{tid}/join", (200,))
        # a start repeated after a crash finds the table running: 409
        self._post(host, f"/api/tables/{tid}/start", (200, 409))
        self.tables.append(tid)
        people = [
            Person(
                self.server,
                tid,
                p.token,
                self.rng.randrange(10**9),
                self.sleeper and i == 0,
                self.fast,
            )
            for i, p in enumerate([host, *guests])
        ]
        for p in [host, *guests]:
            p.close()
        for person in people:
            person.start()
        self.people.extend(people)
        return people

    def run(self) -> None:
        try:
            while self.more.is_set() and not self.stop.is_set():
                people = self._new_table()
                while not all(p.over for p in people) and not self.stop.is_set():
                    time.sleep(0.2)
        except BaseException as exc:
            if not self.stop.is_set():
                self.error = exc


def _kill(server: ServerProcess) -> None:
    """kill -9 the server process; its bot workers die with it (an orphaned pool process
    would otherwise outlive it)."""
    proc = server.proc
    assert proc is not None
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(proc.pid)], capture_output=True, text=True
    )
    children = [int(p) for p in out.stdout.split()]
    proc.kill()
    proc.wait(10)
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    server.proc = None


async def _stored(db_url: str, table_ids: list[str]) -> dict[str, Any]:
    storage = open_storage(db_url)
    try:
        out = {}
        for tid in table_ids:
            loaded = await storage.load_table(tid)
            assert loaded is not None, tid
            out[tid] = loaded
        return out
    finally:
        await storage.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'crash.db'}"
        return
    url, base, reason = _postgres_schema_url()
    if url is None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"PostgreSQL is not reachable ({reason}), and {REQUIRE_ENV}=1 requires it")
        pytest.skip(f"PostgreSQL is not reachable ({reason})")
    try:
        yield url
    finally:
        _drop_schema(base, url)


# a bounded run of kill cycles: minutes on a busy machine (pyproject's timeout is 300 s)
@pytest.mark.timeout(600)
def test_kill_the_server_at_random_and_lose_nothing(db_url: str, tmp_path: Path) -> None:
    server = ServerProcess(db_url, tmp_path / "server.log")
    server.start()
    rng = random.Random(36)
    fast = threading.Event()
    slots = [Slot(server, i, rng.randrange(10**9), fast) for i in range(len(SLOTS))]
    started = time.monotonic()
    try:
        for slot in slots:
            slot.start()
        time.sleep(3.0)  # the first tables are set up and under way
        kills = 0
        while kills < KILLS:
            time.sleep(rng.uniform(*KILL_EVERY))
            _kill(server)
            kills += 1
            time.sleep(rng.uniform(*DOWN))
            server.start()
            for slot in slots:
                assert slot.error is None, slot.error
        chaos_seconds = time.monotonic() - started

        # no more kills and no new tables: the games go on to their end, quickly
        for slot in slots:
            slot.more.clear()
        fast.set()
        for slot in slots:
            slot.join(FINISH)
        people = [p for slot in slots for p in slot.people]
        deadline = time.monotonic() + FINISH
        while time.monotonic() < deadline and not all(p.over for p in people):
            time.sleep(0.5)

        # a table that has not ended must still be playable: its version moves on
        viewer = httpx.Client(base_url=server.url, timeout=30)
        tables = [tid for slot in slots for tid in slot.tables]
        unfinished = [
            tid for tid in tables if viewer.get(f"/api/tables/{tid}").json()["status"] != "finished"
        ]
        before = {tid: len(viewer.get(f"/api/tables/{tid}/log").json()) for tid in unfinished}
        time.sleep(5.0)
        stuck = sum(
            1
            for tid in unfinished
            if viewer.get(f"/api/tables/{tid}").json()["status"] != "finished"
            and len(viewer.get(f"/api/tables/{tid}/log").json()) == before[tid]
        )
        viewer.close()
        for person in people:
            person.stop.set()
        for slot in slots:
            slot.stop.set()
        for person in people:
            person.join(10)
        server.stop()

        stored = asyncio.run(_stored(db_url, tables))
        lost = duplicated = replay_errors = finished = 0
        acked = undos = ambiguous = 0
        for tid in tables:
            table, actions = stored[tid]
            versions = [a.version for a in actions]
            duplicated += len(versions) - len(set(versions))
            moves = {(a.version, a.seat, a.notation) for a in actions}
            for person in (p for p in people if p.table_id == tid):
                tally = person.tally
                acked += len(tally.acked)
                undos += tally.undos
                duplicated += tally.duplicates
                for move in tally.acked:
                    if move in moves:
                        continue
                    if move in tally.undone:
                        continue
                    if move in tally.maybe_undone:
                        ambiguous += 1
                        continue
                    lost += 1
            if table.status == "finished":
                finished += 1
            game = find_game(table.game)
            try:
                state = game.new_initial_state(len(table.seats), table.seed, table.options)
                for action in actions:
                    state.apply(action.seat, game.parse_action(action.notation))
                if state.is_over() != (table.status == "finished"):
                    replay_errors += 1
            except Exception:
                replay_errors += 1
        print(
            f"\ncrash ({db_url.split(':', 1)[0]}): {kills} kill cycles in {chaos_seconds:.0f} s; "
            f"{acked} acknowledged moves, {sum(len(a) for _, a in stored.values())} stored; "
            f"lost {lost}, duplicated {duplicated}; undos {undos} (and {ambiguous} sent but "
            f"unanswered at a kill); tables {len(tables)}: finished {finished}, stuck {stuck}, "
            f"still playing {len(tables) - finished - stuck}; replay errors {replay_errors}; "
            f"connections {sum(p.tally.sessions for p in people)}; "
            f"{time.monotonic() - started:.0f} s in all"
        )
        assert kills >= 20
        assert acked >= 200
        assert lost == 0
        assert duplicated == 0
        assert stuck == 0
        assert replay_errors == 0
        assert undos >= 1
        assert finished >= len(SLOTS)
    finally:
        for slot in slots:
            slot.stop.set()
            for person in slot.people:
                person.stop.set()
        server.stop()
    log = server.log_text()
    assert not server_tracebacks(log), log[-8000:]


def test_only_a_half_spawned_workers_traceback_is_let_through() -> None:
    """`server_tracebacks` lets through only a worker killed mid-spawn (seen in CI)."""
    spawn = (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main\n'
        "    exitcode = _main(fd, parent_sentinel)\n"
        '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 130, in _main\n'
        "    preparation_data = reduction.pickle.load(from_parent)\n"
        "EOFError: Ran out of input\n"
    )
    server = (
        "Traceback (most recent call last):\n"
        '  File "/x/coffeetable/server/match.py", line 1, in act\n'
        "EOFError: Ran out of input\n"
    )
    assert server_tracebacks("INFO: started\n" + spawn + "INFO: more\n") == []
    assert len(server_tracebacks(spawn + server)) == 1
    assert len(server_tracebacks("INFO\n" + server)) == 1
