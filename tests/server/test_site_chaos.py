"""Chaos on a site of several nodes (slow suite): three nodes, two bot workers and nginx on
PostgreSQL and Redis; 20+ tables with people, bots and clocks; a random node or bot worker
is killed with kill -9 every few seconds, 30+ times, and started again; the people's clients
reconnect through nginx. Then every acknowledged move must be stored, none twice, no table
stuck, no clock fired twice, and every stored game must replay by the rules.

The counts are printed (run with -s to see them)."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from coffeetable.core.registry import find_game
from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, server_tracebacks
from tests.server.site import Site

pytestmark = [pytest.mark.server, pytest.mark.slow]

TABLES = 22
KILLS = 32
KILL_EVERY = (2.0, 4.0)  # seconds between kills
THINK = (0.8, 2.0)  # seconds a person takes over a move: the games outlast the kills
DEADLINE = 420.0  # seconds for the whole run


class Person(threading.Thread):
    """One person at one seat: plays random legal moves through nginx, reconnecting
    whenever the socket drops; never plays if `sleeper` (so that the clock runs out)."""

    def __init__(self, site: Site, table_id: str, token: str, seed: int, sleeper: bool) -> None:
        super().__init__(daemon=True)
        self.site = site
        self.table_id = table_id
        self.token = token
        self.rng = random.Random(seed)
        self.sleeper = sleeper
        self.acked: list[tuple[int, int, str]] = []  # (version, seat, action) acknowledged
        self.seen: list[int] = []  # versions of the updates received, in order, per socket
        self.duplicates = 0
        self.reconnects = 0
        self.over = False
        self.stop = threading.Event()
        self.ready_at: float | None = None

    def _think(self) -> bool:
        """Take some time over the move; False if the person was stopped meanwhile."""
        if self.ready_at is None:
            self.ready_at = time.monotonic() + self.rng.uniform(*THINK)
        if time.monotonic() < self.ready_at:
            return False
        self.ready_at = None
        return True

    def run(self) -> None:
        while not self.stop.is_set() and not self.over:
            try:
                self._session()
            except Exception:
                self.reconnects += 1
                time.sleep(0.3)

    def _session(self) -> None:
        with connect(
            f"{self.site.nginx.ws_url}/ws/tables/{self.table_id}",
            additional_headers={"Cookie": f"{SESSION_COOKIE}={self.token}"},
            open_timeout=10,
            max_size=8 * 1024 * 1024,
        ) as ws:
            versions_here: set[int] = set()
            pending: tuple[int, str] | None = None
            state: dict[str, Any] = {}
            while not self.stop.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.5))
                except TimeoutError:
                    message = None
                if message is not None:
                    kind = message["type"]
                    if kind in ("snapshot", "update", "undo"):
                        state = message
                    if kind == "update":
                        version = message["version"]
                        if version in versions_here:
                            self.duplicates += 1
                        versions_here.add(version)
                        self.seen.append(version)
                        move = message["move"]
                        if pending is not None and move["seat"] == state.get("seat"):
                            if move["action"] == pending[1]:
                                self.acked.append((version, move["seat"], move["action"]))
                            pending = None
                    if kind == "error":
                        pending = None
                    if state.get("view", {}).get("over"):
                        self.over = True
                        return
                seat = state.get("seat")
                view = state.get("view") or {}
                if (
                    not self.sleeper
                    and pending is None
                    and state.get("legal")
                    and seat in view.get("current_seats", [])
                ):
                    if not self._think():
                        continue
                    action = self.rng.choice(state["legal"])
                    pending = (state["version"], action)
                    ws.send(
                        json.dumps({"type": "act", "version": state["version"], "action": action})
                    )
                    state = {**state, "legal": []}  # wait for the answer


def _clock_fires(site: Site) -> Counter[tuple[str, int]]:
    fires: Counter[tuple[str, int]] = Counter()
    for path in site.folder.glob("node*.log"):
        for match in re.finditer(
            r"clock: table (\S+) seat (\d+) ran out", path.read_text(errors="replace")
        ):
            fires[(match.group(1), int(match.group(2)))] += 1
    return fires


# a bounded run of kill cycles: minutes on a busy machine (pyproject's timeout is 300 s)
@pytest.mark.timeout(900)
def test_kill_nodes_and_workers_at_random_and_lose_nothing(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = Path(tmp_path_factory.mktemp("chaos"))
    site = Site(folder, nodes=3, workers=2).start()
    rng = random.Random(35)
    people: list[Person] = []
    tables: list[str] = []
    try:
        for index in range(TABLES):
            host = Player(site.nginx).guest()
            sleeper_table = index % 5 == 4  # a person who never plays: the clock decides
            if index % 2 == 0:
                guest = Player(site.nginx).guest()
                table = host.create(
                    "coffee-rush",
                    [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
                    clock={
                        "kind": "realtime",
                        "initial": 8 if sleeper_table else 900,
                        "increment": 2,
                    },
                )
                assert guest.post(f"/api/tables/{table['id']}/join").status_code == 200
                seats = [(host, False), (guest, sleeper_table)]
            else:
                table = host.create(
                    "cafe",
                    [{"kind": "human"}, {"kind": "bot", "bot": rng.choice(["greedy", "random"])}],
                    clock={
                        "kind": "realtime",
                        "initial": 8 if sleeper_table else 900,
                        "increment": 2,
                    },
                )
                seats = [(host, sleeper_table)]
            assert host.post(f"/api/tables/{table['id']}/start").status_code == 200
            tables.append(table["id"])
            for player, sleeper in seats:
                person = Person(site, table["id"], player.token, rng.randrange(10**9), sleeper)
                person.start()
                people.append(person)

        kills = Counter[str]()
        running_kills = 0
        started = time.monotonic()
        while sum(kills.values()) < KILLS and time.monotonic() - started < DEADLINE / 2:
            time.sleep(rng.uniform(*KILL_EVERY))
            if not all(p.over for p in people):
                running_kills += 1
            if rng.random() < 0.6:
                index = rng.randrange(len(site.nodes))
                site.kill_node(index)
                kills["node"] += 1
                time.sleep(rng.uniform(0.2, 1.5))
                site.nodes[index].start()
            else:
                index = rng.randrange(len(site.workers))
                site.workers[index].kill()
                kills["worker"] += 1
                time.sleep(rng.uniform(0.2, 1.5))
                site.workers[index].start()

        # the games go on to their end without more chaos
        while time.monotonic() - started < DEADLINE and not all(p.over for p in people):
            time.sleep(1.0)
        for person in people:
            person.stop.set()
        for person in people:
            person.join(10)

        viewer = httpx.Client(base_url=site.nginx.url, timeout=30)
        stored: dict[str, list[tuple[int, str]]] = {}
        lost = duplicates = stuck = finished = replay_errors = 0
        acked = 0
        for table_id in tables:
            table = viewer.get(f"/api/tables/{table_id}").json()
            log = viewer.get(f"/api/tables/{table_id}/log").json()
            stored[table_id] = [(line["seat"], line["action"]) for line in log]
            versions = [line["version"] for line in log]
            duplicates += len(versions) - len(set(versions))
            moves = {(line["version"], line["seat"], line["action"]) for line in log}
            for person in (p for p in people if p.table_id == table_id):
                acked += len(person.acked)
                lost += sum(1 for move in person.acked if move not in moves)
                duplicates += person.duplicates
            if table["status"] == "finished":
                finished += 1
            else:
                stuck += 1
            # the stored moves replay by the rules from the table's seed (as the record does)
            record = viewer.get(f"/api/tables/{table_id}/record")
            if record.status_code == 200:
                data = record.json()
                state = find_game(data["game"]).new_initial_state(
                    len(data["seats"]), data["seed"], data["options"]
                )
                try:
                    for seat, text in data["actions"]:
                        state.apply(seat, find_game(data["game"]).parse_action(text))
                except Exception:
                    replay_errors += 1
        fires = _clock_fires(site)
        fired_twice = sum(1 for n in fires.values() if n > 1)
        print(
            f"\nchaos: {sum(kills.values())} kills ({kills['node']} nodes, {kills['worker']} "
            f"workers; {running_kills} while games ran); {acked} acknowledged moves of people, "
            f"{sum(len(v) for v in stored.values())} moves stored; lost {lost}, duplicated "
            f"{duplicates}; tables stuck {stuck}, finished {finished} of {len(tables)}; "
            f"clocks fired {sum(fires.values())} (twice: {fired_twice}); replay errors "
            f"{replay_errors}; attempts to reconnect {sum(p.reconnects for p in people)}"
        )
        assert sum(kills.values()) >= 30
        assert running_kills >= 30
        assert lost == 0
        assert duplicates == 0
        assert stuck == 0
        assert fired_twice == 0
        assert replay_errors == 0
        assert sum(fires.values()) >= 1
    finally:
        for person in people:
            person.stop.set()
        logs = site.logs()
        site.stop()
    assert not server_tracebacks(logs), logs[-8000:]
