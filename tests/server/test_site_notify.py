"""Presence, turn notifications and mail on a site of several nodes (tests/server/site.py):
a user's presence and turns cross nodes through Redis and the bus, a node killed outright
stops counting its users within its presence expiry, and of three nodes exactly one sends a
digest (the database claims it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from aiosmtpd.controller import Controller

from tests.server.live import Player, free_port
from tests.server.site import Site
from tests.server.test_notify import (
    PUBLIC,
    Sink,
    UserSocket,
    cafe_table,
    person,
    play_until_turn_passes,
    set_mail,
)

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def mailed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, Sink]]:
    folder = tmp_path_factory.mktemp("site-notify")
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    site = Site(
        Path(folder),
        nodes=3,
        workers=1,
        extra_env={
            "COFFEETABLE_PRESENCE_TTL": "4",
            "COFFEETABLE_PRESENCE_REFRESH": "1",
            "COFFEETABLE_MAIL_DELAY": "1",
            "COFFEETABLE_MAIL_EVERY": "0.2",
            "COFFEETABLE_MAIL_MINUTE": "0.1",
        },
        extra_args=["--smtp", f"smtp://127.0.0.1:{controller.port}", "--public-url", PUBLIC],
    )
    try:
        with site.running() as running:
            yield running, sink
    finally:
        controller.stop()


def test_presence_crosses_nodes_and_a_dead_nodes_users_go_offline(
    mailed_site: tuple[Site, Sink],
) -> None:
    site, _ = mailed_site
    first, second, third = site.nodes
    ana, bo = person(first, "Ana"), person(first, "Bo")
    watcher = UserSocket(second, bo.token)  # Bo on node 1 watches Ana
    watcher.send({"type": "watch", "users": [ana.name]})
    watcher.presence_of(ana.name, "offline")
    tab = UserSocket(first, ana.token)  # Ana on node 0
    watcher.presence_of(ana.name, "online")
    counted = httpx.get(f"{third.url}/api/online").json()["count"]
    assert counted >= 2  # Ana (node 0) and Bo (node 1), counted on node 2
    tab.send({"type": "visibility", "hidden": True})
    watcher.presence_of(ana.name, "away")
    # a second tab on another node, shown: online wins over away
    other_tab = UserSocket(third, ana.token)
    watcher.presence_of(ana.name, "online")
    other_tab.close()
    watcher.presence_of(ana.name, "away")
    tab.close()
    watcher.presence_of(ana.name, "offline")
    # a node killed outright (no goodbye): its users stop counting within its expiry
    tab = UserSocket(third, ana.token)
    watcher.presence_of(ana.name, "online")
    site.kill_node(2)
    started = time.monotonic()
    offline = watcher.presence_of(ana.name, "offline", timeout=15)
    assert time.monotonic() - started < 10
    assert offline["since"] is not None
    watcher.close()
    site.nodes[2].start()


def test_a_turn_on_one_node_reaches_the_players_channel_on_another(
    mailed_site: tuple[Site, Sink],
) -> None:
    site, _ = mailed_site
    first, second, _third = site.nodes
    ana, bo = person(first, "Ana"), person(first, "Bo")
    table = cafe_table(bo, ana)  # Bo's move
    channel = UserSocket(second, ana.token)  # Ana in the lobby, on node 1
    mover = Player(first)
    mover.http.cookies.update(bo.http.cookies)
    play_until_turn_passes(mover, table["id"])  # Bo plays on node 0
    # the notifier works off the move's path: the turn that passed to Bo at the set-up may
    # still be on its way when the channel opens; the one that matters follows it
    turn = channel.recv_until("turn", table=table["id"], your_move=True, timeout=10)
    assert turn["your_move"] is True and turn["table"] == table["id"]
    # "my games" says so on every node (the notifier stores the turns before it tells)
    for node in site.nodes:
        games = httpx.get(f"{node.url}/api/me/games", cookies=ana.http.cookies).json()
        assert [g["your_move"] for g in games if g["id"] == table["id"]] == [True]
    channel.close()


def test_three_nodes_send_one_digest_not_three(mailed_site: tuple[Site, Sink]) -> None:
    site, sink = mailed_site
    ana = person(site.nodes[0], "Ana")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address, digest=5)
    cafe_table(ana, person(site.nodes[1], "Op"))
    [mail] = sink.wait_for(address)
    assert mail["Subject"] == "Your move in Café"
    time.sleep(2)  # every node looked several times meanwhile
    assert len(sink.to(address)) == 1
