"""Players' decks on a site of several nodes (issue 39): a table on an uploaded deck played
to the end against a bot whose moves the Redis bot workers make (the job carries the deck's
text), every node naming the deck, and a calibration run on the workers."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import Player, play_out
from tests.server.site import Site
from tests.server.test_decks import TOML, my_deck

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("site-decks")
    env = {"COFFEETABLE_CALIBRATION_GAMES": "1", "COFFEETABLE_CALIBRATION_BOT": "random"}
    with Site(Path(folder), nodes=2, workers=1, extra_env=env).running() as running:
        yield running


def test_a_deck_table_with_a_redis_worker_bot_and_a_calibration(site: Site) -> None:
    ana = Player(site.nginx)
    assert ana.register(f"Ana{random.Random().randrange(10**6)}").status_code == 200
    r = ana.http.post("/api/decks?game=cafe", content=my_deck("site").encode(), headers=TOML)
    assert r.status_code == 201, r.text
    sha = r.json()["sha256"]
    table = ana.create(
        "cafe",
        [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
        options={"deck_sha256": sha},
    )
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    sock = ana.socket(table["id"])
    sock.recv_until("snapshot")
    play_out([sock], random.Random(5))
    sock.close()
    # every node names the deck (each loads it from the database)
    for node in site.nodes:
        seen = Player(node).http.get(f"/api/tables/{table['id']}").json()
        assert seen["status"] == "finished" and seen["deck"]["sha256"] == sha
    record = ana.http.get(f"/api/tables/{table['id']}/record").json()
    assert record["options"]["deck_sha256"] == sha
    # the bot's moves came from the worker
    worker_log = "".join(p.read_text(errors="replace") for p in site.folder.glob("worker*.log"))
    assert "failed" not in worker_log
    # a calibration on the workers
    assert ana.post(f"/api/decks/{sha}/calibrate").status_code == 202
    deadline = time.monotonic() + 120
    got = ana.http.get(f"/api/decks/{sha}/calibration").json()
    while got["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.5)
        got = ana.http.get(f"/api/decks/{sha}/calibration").json()
    assert got["status"] == "done", got
    assert got["figures"]["games"] == 1 and got["figures"]["cards"]
