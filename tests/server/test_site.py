"""A site of several nodes over real sockets: three `coffeetable serve` nodes on PostgreSQL
and Redis, two `coffeetable bot-worker` processes, and nginx in front (tests/server/site.py).
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.live import Player, Socket, play_out
from tests.server.site import Site

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("site")
    with Site(Path(folder)).running() as running:
        yield running


def _moves(socket: Socket) -> list[tuple[int, int, str]]:
    """The moves a socket was sent in updates, in the order it got them."""
    return [
        (m["version"], m["move"]["seat"], m["move"]["action"])
        for m in socket.received
        if m["type"] == "update"
    ]


def _watch(socket: Socket, until: float) -> None:
    """Read what the socket is sent until the game is over (or `until`)."""
    while not socket.over and time.monotonic() < until:
        try:
            socket.recv(0.5)
        except TimeoutError:
            continue


def test_one_table_on_three_nodes_with_a_bot_and_a_clock(site: Site) -> None:
    ana, ben, cy = (Player(site.nginx).guest() for _ in range(3))
    table = ana.create(
        "coffee-rush",
        [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
        clock={"kind": "realtime", "initial": 900, "increment": 5},
    )
    table_id = table["id"]
    assert ben.post(f"/api/tables/{table_id}/join").status_code == 200
    # two people of one table on two nodes, a spectator on a third
    a = ana.socket(table_id, via=site.nodes[0])
    b = ben.socket(table_id, via=site.nodes[1])
    c = cy.socket(table_id, via=site.nodes[2])
    for s in (a, b, c):
        s.recv_until("snapshot")
    started = ana.post(f"/api/tables/{table_id}/start")
    assert started.status_code == 200, started.text
    for s in (a, b, c):
        s.recv_until("snapshot")  # the first position, on every node
    play_out([a, b], random.Random(35), timeout=400)
    _watch(c, time.monotonic() + 60)
    assert a.over and b.over and c.over

    record = ana.http.get(f"/api/tables/{table_id}/record").json()
    made = [(seat, action) for seat, action in record["actions"]]
    assert len(made) > 20
    # every client saw every move once, in order: the same as the record
    for s in (a, b, c):
        seen = _moves(s)
        versions = [v for v, _, _ in seen]
        assert versions == list(range(1, len(made) + 1)), "a gap, a duplicate or a reordering"
        assert [(seat, action) for _, seat, action in seen] == made
    # the bot played through the bot workers, and the clock ran on the driving node
    assert sum(1 for seat, _ in made if seat == 2) > 0
    clock = a.received[-1].get("clock") or next(
        m["clock"] for m in reversed(a.received) if m.get("clock")
    )
    assert clock["remaining"][0] < 900 + 5 * len(made)
    health = [httpx.get(f"{n.url}/api/health").json() for n in site.nodes]
    assert all(h["ok"] and h["redis"] == "ok" and h["database"] == "ok" for h in health)
    assert len({h["node"] for h in health}) == 3
    for s in (a, b, c):
        s.close()


def test_a_move_lost_in_a_race_gets_stale_version_on_any_node(site: Site) -> None:
    ana, ben = Player(site.nginx).guest(), Player(site.nginx).guest()
    table = ana.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    assert ben.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    # one person with two sockets on two nodes plays the same version twice
    first = ana.socket(table["id"], via=site.nodes[0])
    second = ana.socket(table["id"], via=site.nodes[1])
    other = ben.socket(table["id"], via=site.nodes[2])
    for s in (first, second, other):
        s.recv_until("snapshot")
    mover = first if first.legal else None
    if mover is None:  # Café's draft starts with the last seat: let Ben pick first
        other.act(other.legal[0])
        other.recv_until("update")
        first.recv_until("update")
        second.recv_until("update")
        mover = first
    twin = second
    version = mover.version
    mover.act(mover.legal[0], version)
    mover.recv_until("update")
    twin.drain(0.5)
    twin.act(mover.legal[0] if mover.legal else "pass", version)  # made against the old version
    reply = twin.recv_until("error")
    assert reply["code"] == "stale_version"
    history = httpx.get(f"{site.nodes[2].url}/api/tables/{table['id']}/log").json()
    assert [line["version"] for line in history] == list(range(1, len(history) + 1))
    for s in (first, second, other):
        s.close()


def test_join_races_on_two_nodes_give_the_last_seat_to_one(site: Site) -> None:
    host = Player(site.nginx).guest()
    table = host.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    one, two = Player(site.nodes[0]).guest(), Player(site.nodes[1]).guest()
    answers = [p.post(f"/api/tables/{table['id']}/join") for p in (one, two)]
    assert sorted(r.status_code for r in answers) == [200, 409]
    seats = host.http.get(f"/api/tables/{table['id']}").json()["seats"]
    assert sum(1 for s in seats if s["user"] in (one.name, two.name)) == 1


def test_lobby_updates_reach_lobby_sockets_on_every_node(site: Site) -> None:
    from websockets.sync.client import connect

    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(connect(f"{n.ws_url}/ws/lobby", open_timeout=10))
            for n in site.nodes
        ]
        for ws in sockets:
            ws.recv(timeout=10)  # the list
        host = Player(site.nodes[0]).guest()
        table = host.create("cafe", [{"kind": "human"}, {"kind": "open"}])
        import json

        for ws in sockets:
            message: dict[str, Any] = json.loads(ws.recv(timeout=10))
            while message["table"]["id"] != table["id"]:
                message = json.loads(ws.recv(timeout=10))
            assert message["type"] == "table"


def _driver_of(site: Site, table_id: str) -> int:
    """The index of the node that holds the table's lease."""
    client = site.redis()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        holder = client.get(f"ct:lease:{table_id}")
        if holder is not None:
            pid = int(holder.decode().split(":")[1])
            for index, node in enumerate(site.nodes):
                if node.proc is not None and node.proc.pid == pid:
                    return index
        time.sleep(0.2)
    raise AssertionError("no node drives the table")


@pytest.mark.slow  # waits out a lease (~45 s): CI's slow pass
def test_a_dead_nodes_tables_are_driven_by_another_within_10_s(site: Site) -> None:
    """kill -9 the node that drives a table: another node takes its lease, and both the bot
    and the clock go on there."""
    ana = Player(site.nginx).guest()
    table = ana.create(
        "coffee-rush",
        [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
        clock={"kind": "realtime", "initial": 25, "increment": 0},
    )
    table_id = table["id"]
    assert ana.post(f"/api/tables/{table_id}/start").status_code == 200
    driver = _driver_of(site, table_id)
    watcher_node = site.nodes[(driver + 1) % len(site.nodes)]
    s = ana.socket(table_id, via=watcher_node)
    s.recv_until("snapshot")
    # play until it is the bot's turn, then kill its driver
    rng = random.Random(7)
    while 0 in (s.view or {}).get("current_seats", []):
        s.act(rng.choice(s.legal))
        reply = s.recv()
        while reply["type"] not in ("update", "error"):
            reply = s.recv()
    version = s.version
    killed_at = time.monotonic()
    site.kill_node(driver)
    try:
        client = site.redis()
        while client.get(f"ct:lease:{table_id}") is not None:  # it expires...
            time.sleep(0.1)
        new_driver = _driver_of(site, table_id)  # ...and another node takes it
        handed_over = time.monotonic() - killed_at
        assert new_driver != driver
        assert handed_over < 10, f"the lease passed on {handed_over:.1f} s after its node died"
        # the bot's move arrives from the new driver
        while s.version == version or 0 not in (s.view or {}).get("current_seats", []):
            s.recv(timeout=30)
        took = time.monotonic() - killed_at
        print(f"lease passed on after {handed_over:.1f} s; the bot moved after {took:.1f} s")
        assert took < 10 + 5, f"the bot moved {took:.1f} s after its node died"
        # now nobody plays seat 0: its 25 s bank runs out on the new driver, once
        deadline = time.monotonic() + 90
        replaced = None
        while time.monotonic() < deadline and replaced is None:
            message = s.recv(timeout=90)
            if message["type"] == "table" and message["table"]["seats"][0]["replaced"]:
                replaced = message
        assert replaced is not None, "the clock never ran out"
    finally:
        site.nodes[driver].start()
    s.close()


def _pending_jobs(client: Any) -> int:
    """Bot jobs taken by a worker and not answered yet (0 before the queue exists)."""
    import redis

    try:
        return int(client.xpending("ct:jobs:bot", "workers")["pending"])
    except redis.ResponseError:  # NOGROUP: no job was queued yet
        return 0


def test_a_worker_killed_mid_decision_loses_nothing(site: Site) -> None:
    """kill -9 the bot worker that took a job, while ISMCTS thinks: another worker takes the
    job over and the bot moves, once; the table goes on."""
    for worker in site.workers:
        worker.stop()
    ana = Player(site.nginx).guest()
    table = ana.create("cafe", [{"kind": "human"}, {"kind": "bot", "bot": "ismcts:hard"}])
    table_id = table["id"]
    assert ana.post(f"/api/tables/{table_id}/start").status_code == 200
    s = ana.socket(table_id, via=site.nodes[0])
    s.recv_until("snapshot")
    if 0 in (s.view or {}).get("current_seats", []):  # the deal made Ana draft first
        s.act(s.legal[0])
        s.recv_until("update")
    version = s.version
    assert 1 in (s.view or {}).get("current_seats", [])  # the bot's job waits for a worker
    client = site.redis()
    site.workers[0].start()
    deadline = time.monotonic() + 30
    while not _pending_jobs(client):
        assert time.monotonic() < deadline, "no worker took the job"
        time.sleep(0.05)
    site.workers[0].kill()  # it thinks for about a second: killed mid-decision
    assert s.version == version
    for worker in site.workers:
        worker.start()
    while s.version == version:
        message = s.recv(timeout=60)
        assert message["type"] != "error", message
    assert s.version == version + 1
    log = ana.http.get(f"{site.nodes[1].url}/api/tables/{table_id}/log").json()
    assert [line["seat"] for line in log][version:] == [1]  # the bot moved exactly once
    s.close()


@pytest.mark.slow  # a Redis outage of 10 s (~25 s): CI's slow pass
def test_redis_away_for_10_s_mid_game_play_resumes_by_itself(tmp_path: Path) -> None:
    """The site's Redis dies for 10 s mid-game (a restart: it comes back empty). Moves are
    still stored meanwhile; afterwards the nodes catch up, the bot and the clock resume, and
    the game ends with every move in order."""
    site = Site(tmp_path, nodes=2, workers=1, own_redis=True).start()
    try:
        ana, ben = Player(site.nginx).guest(), Player(site.nginx).guest()
        table = ana.create(
            "coffee-rush",
            [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "bot": "greedy"}],
            clock={"kind": "realtime", "initial": 900, "increment": 5},
        )
        table_id = table["id"]
        assert ben.post(f"/api/tables/{table_id}/join").status_code == 200
        assert ana.post(f"/api/tables/{table_id}/start").status_code == 200
        a = ana.socket(table_id, via=site.nodes[0])
        b = ben.socket(table_id, via=site.nodes[1])
        for s in (a, b):
            s.recv_until("snapshot")
        rng = random.Random(10)
        stop_at = time.monotonic() + 5
        _play_for([a, b], rng, stop_at)
        assert site.own_redis is not None
        site.own_redis.kill()
        outage_ends = time.monotonic() + 10
        _play_for([a, b], rng, outage_ends)  # moves still stored meanwhile
        site.own_redis.start()
        play_out([a, b], rng, timeout=300)
        assert a.over and b.over
        record = ana.http.get(f"/api/tables/{table_id}/record").json()
        made = [(seat, action) for seat, action in record["actions"]]
        log = httpx.get(f"{site.nodes[1].url}/api/tables/{table_id}/log").json()
        assert [(line["seat"], line["action"]) for line in log] == made
        for s in (a, b):
            versions = [v for v, _, _ in _moves(s)]
            assert versions == sorted(set(versions)), "a duplicate or a reordering"
            for version, seat, action in _moves(s):
                assert made[version - 1] == (seat, action)
    finally:
        logs = site.logs()
        site.stop()
    assert "Traceback" not in logs, logs[-8000:]


def _play_for(sockets: list[Socket], rng: random.Random, until: float) -> int:
    """Random legal moves for the sockets' seats until `until`; the moves stored."""
    stored = 0
    while time.monotonic() < until:
        moved = False
        for s in sockets:
            with contextlib.suppress(TimeoutError):
                s.drain(0.01)
            if s.legal and not s.over and s.seat in (s.view or {}).get("current_seats", []):
                s.act(rng.choice(s.legal))
                try:
                    reply = s.recv(10)
                    while reply["type"] not in ("update", "error"):
                        reply = s.recv(10)
                except TimeoutError:
                    continue
                stored += reply["type"] == "update"
                moved = True
        if not moved:
            time.sleep(0.2)
    return stored


def test_bad_input_on_any_node_gets_a_clear_error_and_changes_nothing(site: Site) -> None:
    ana, ben = Player(site.nginx).guest(), Player(site.nginx).guest()
    table = ana.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    assert ben.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    for node in site.nodes:
        s = ana.socket(table["id"], via=node)
        s.recv_until("snapshot")
        version = s.version
        for bad, code in (
            ("not json", "bad_json"),
            ('{"type": "act"}', "invalid"),
            ('{"type": "act", "version": 0, "action": "teleport"}', "illegal"),
            ('{"type": "fly"}', "unknown_type"),
        ):
            s.send(bad)
            reply = s.recv_until("error")
            assert reply["code"] in (code, "not_your_turn", "stale_version"), reply
        s.close()
        log = httpx.get(f"{node.url}/api/tables/{table['id']}/log").json()
        assert log == [] and version == 0
    # HTTP: a forged seat, an unknown table, a malformed body, on each node
    for node in site.nodes:
        other = Player(node).guest()
        assert other.post(f"/api/tables/{table['id']}/start").status_code in (403, 409)
        assert other.http.get("/api/tables/nope").status_code == 404
        r = other.http.post(
            "/api/tables", content=b"{", headers={"content-type": "application/json"}
        )
        assert r.status_code == 422 and "error" in r.json()


def test_hints_go_through_the_bot_workers(site: Site) -> None:
    ana = Player(site.nginx).guest()
    table = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    s = ana.socket(table["id"], via=site.nodes[1])
    s.recv_until("snapshot")
    while 0 not in (s.view or {}).get("current_seats", []):
        s.recv(30)
    hint = ana.post(f"/api/tables/{table['id']}/hint")
    assert hint.status_code == 200, hint.text
    assert hint.json()["action"] in s.legal
    s.close()


def test_the_account_routes_rate_limit_is_the_sites_not_each_nodes(site: Site) -> None:
    """Guests made as fast as possible through two nodes, in rounds of 20, until both nodes
    refuse: the site's one bucket (80, as the tests set it, refilled at 2 a second) lets about
    80 through, whichever node; two buckets of their own would let 160 through before both
    refused. A slow machine only adds the refill (2 a second) to what passes."""
    from concurrent.futures import ThreadPoolExecutor

    client = site.redis()
    client.delete("ct:rate:127.0.0.1")
    try:

        def guest(index: int) -> tuple[int, int]:
            node = site.nodes[index % 2]
            return index % 2, httpx.post(f"{node.url}/api/guest", timeout=30).status_code

        started = time.monotonic()
        answers: list[tuple[int, int]] = []
        with ThreadPoolExecutor(8) as pool:
            while len(answers) < 240:
                answers += pool.map(guest, range(len(answers), len(answers) + 20))
                if {node for node, status in answers if status == 429} == {0, 1}:
                    break
        elapsed = time.monotonic() - started
        allowed = sum(1 for _, status in answers if status == 200)
        assert {node for node, status in answers if status == 429} == {0, 1}, (allowed, elapsed)
        assert allowed <= 80 + 2 * elapsed + 20, (allowed, elapsed)
        assert allowed < 160, (allowed, elapsed)
        # a third node shares the bucket too: it refuses within a few requests (its own
        # bucket would let 80 through)
        for _ in range(10):
            refused = httpx.post(f"{site.nodes[2].url}/api/guest", timeout=30)
            if refused.status_code == 429:
                break
        assert refused.status_code == 429 and "try again in" in refused.json()["error"]["message"]
    finally:
        client.delete("ct:rate:127.0.0.1")


def test_a_node_stopped_hands_its_leases_over_and_closes_sockets_with_1012(site: Site) -> None:
    from websockets.exceptions import ConnectionClosed

    ana = Player(site.nginx).guest()
    table = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    driver = _driver_of(site, table["id"])
    s = ana.socket(table["id"], via=site.nodes[driver])
    s.recv_until("snapshot")
    node = site.nodes[driver]
    assert node.proc is not None
    stopped_at = time.monotonic()
    node.proc.terminate()  # SIGTERM: a graceful stop
    try:
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                s.recv(20)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        node.proc.wait(20)
        new_driver = _driver_of(site, table["id"])
        assert new_driver != driver
        assert time.monotonic() - stopped_at < 6  # released at once, not left to expire
    finally:
        node.proc = None
        node.start()
