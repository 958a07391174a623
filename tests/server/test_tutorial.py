"""POST /api/tutorial/{game}: a started private 2-seat table on the game's fixed deal against
a bot, for a guest too; the deal's seed is never sent; an unknown game is refused."""

from __future__ import annotations

import pytest

from coffeetable.server.tutorial import TUTORIAL_BOT, TUTORIAL_SEEDS
from tests.server.live import Player, ServerProcess

pytestmark = pytest.mark.server


@pytest.mark.parametrize("game", ["cafe", "coffee-rush"])
def test_a_tutorial_table_starts_at_once_on_its_deal(server: ServerProcess, game: str) -> None:
    ana = Player(server).guest()
    r = ana.http.post(f"/api/tutorial/{game}")
    assert r.status_code == 201, r.text
    table = r.json()
    assert table["game"] == game and table["status"] == "running" and table["private"] is True
    assert table["invite"] and table["rated"] is False and table["clock"] is None
    assert [s["kind"] for s in table["seats"]] == ["human", "bot"]
    assert table["seats"][1]["bot"] == TUTORIAL_BOT
    assert "seed" not in r.text and str(TUTORIAL_SEEDS[game]) not in [
        str(v) for v in table.values()
    ]
    # the same deal every time: the player's first view is the same
    again = ana.http.post(f"/api/tutorial/{game}").json()
    views = []
    for t in (table, again):
        socket = ana.socket(t["id"])
        try:
            msg = socket.recv_until("snapshot")
        finally:
            socket.close()
        assert "deck" not in msg["view"]
        views.append(
            msg["view"]["players" if game == "coffee-rush" else "seats"][0][
                "company" if game == "cafe" else "counters"
            ]
        )
    assert views[0] == views[1]


def test_no_tutorial_for_an_unknown_game(server: ServerProcess) -> None:
    ana = Player(server).guest()
    r = ana.http.post("/api/tutorial/chess")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
    assert Player(server).http.post("/api/tutorial/cafe").status_code == 401
