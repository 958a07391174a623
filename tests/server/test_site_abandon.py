"""Abandonment on a site of two nodes (tests/server/site.py): the node holding the table's
lease makes the offer, the players' sockets sit on different nodes, a sign of life on the
other node withdraws the offer, and votes from both nodes decide it once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coffeetable.server.storage import open_storage
from tests.server.live import Player, ServerProcess, Socket
from tests.server.site import Site

pytestmark = pytest.mark.server

LIMIT = 2


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("site-abandon")
    env = {"COFFEETABLE_ABANDON_MINIMUM": "1"}
    with Site(Path(folder), nodes=2, workers=1, extra_env=env).running() as running:
        yield running


def _driver_of(site: Site, table_id: str) -> int:
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


async def _stored(db_url: str, table_id: str) -> Any:
    storage = open_storage(db_url)
    try:
        table = await storage.get_table(table_id)
    finally:
        await storage.close()
    assert table is not None
    return table.abandonment


def _until(sock: Socket, check: Any, timeout: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = sock.recv(max(0.01, deadline - time.monotonic()))
        if msg["type"] == "table" and check(msg["table"]):
            table: dict[str, Any] = msg["table"]
            return table
    raise AssertionError("the table never came to that")


def test_an_abandonment_vote_across_two_nodes(site: Site) -> None:
    people = [Player(site.nginx).guest() for _ in range(3)]
    seats = [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    table = people[0].create("coffee-rush", seats, abandon_after=LIMIT)
    table_id = table["id"]
    for player in people[1:]:
        assert player.post(f"/api/tables/{table_id}/join").status_code == 200
    assert people[0].post(f"/api/tables/{table_id}/start").status_code == 200
    driver = _driver_of(site, table_id)
    nodes: list[ServerProcess] = [site.nodes[driver], site.nodes[1 - driver]]
    # everyone connects once, so that we know who moves first
    first = people[1].socket(table_id, via=nodes[0])
    leaver = first.recv_until("snapshot")["view"]["current_seats"][0]
    first.close()
    a, b = (i for i in range(3) if i != leaver)
    # one voter on the node that drives the table, the other on the other node
    socks = {
        a: people[a].socket(table_id, via=nodes[0]),
        b: people[b].socket(table_id, via=nodes[1]),
    }
    for sock in socks.values():
        sock.recv_until("snapshot")

    offer = _until(socks[b], lambda t: t["abandon"] is not None)["abandon"]
    assert offer["seat"] == leaver and offer["voters"] == [a, b]
    assert _until(socks[a], lambda t: t["abandon"] is not None)["abandon"]["seat"] == leaver

    # the leaver shows up on the node that does not drive the table: the offer goes
    back = people[leaver].socket(table_id, via=nodes[1])
    back.recv_until("snapshot")
    for sock in socks.values():
        _until(sock, lambda t: t["abandon"] is None)
    back.close()

    # gone again: asked again after another limit, and both nodes' votes decide it once
    _until(socks[a], lambda t: t["abandon"] is not None)
    _until(socks[b], lambda t: t["abandon"] is not None)
    socks[b].send({"type": "abandon", "seat": leaver, "vote": "bot"})
    _until(socks[a], lambda t: t["abandon"] is not None and t["abandon"]["votes"])
    socks[a].send({"type": "abandon", "seat": leaver, "vote": "bot"})
    for sock in socks.values():
        after = _until(sock, lambda t: t["seats"][leaver]["replaced"])
        assert after["abandon"] is None and after["status"] == "running"
    # the bot (on the bot worker) plays the seat, and the game moves on on both nodes
    sock = socks[a]
    version = sock.version
    deadline = time.monotonic() + 30
    while sock.version <= version and time.monotonic() < deadline:
        try:
            sock.recv(1)
        except TimeoutError:
            continue
    assert sock.version > version
    # exactly once: each socket saw the seat change hands once, and no further offer
    for sock in socks.values():
        sock.drain(0.5)
        handed = [
            m
            for m in sock.received
            if m["type"] == "table" and m["table"]["seats"][leaver]["replaced"]
        ]
        assert handed and all(m["table"]["abandon"] is None for m in handed)
    state = people[a].http.get(f"/api/tables/{table_id}").json()
    assert state["seats"][leaver]["replaced"] and state["abandon"] is None
    # the stored state: the seat left once, and no offer or wait is left over
    stored = asyncio.run(_stored(site.db_url, table_id))
    assert stored == {"offer": None, "waited": {}, "left": [leaver]}
    for s in socks.values():
        s.close()
