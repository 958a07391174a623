"""Player pages and the solo high-score board over HTTP, against a real server process on
SQLite and PostgreSQL, from games played to their end over real sockets."""

from __future__ import annotations

import random
from typing import Any

import pytest

from coffeetable.games.cafe.state import solo_rating
from tests.server.live import Player, ServerProcess, Socket, play_out

pytestmark = pytest.mark.server


def _register(server: ServerProcess, stem: str) -> Player:
    player = Player(server)
    name = f"{stem}{random.Random().randrange(10**6)}"
    assert player.register(name).status_code == 200
    return player


def _play_solo(player: Player, seed: int, **extra: Any) -> tuple[str, int]:
    """A solo Café game played to its end with random moves: (table id, final total)."""
    table = player.create("cafe", [{"kind": "human"}], **extra)
    assert player.post(f"/api/tables/{table['id']}/start").status_code == 200
    sock = player.socket(table["id"])
    sock.recv()
    play_out([sock], random.Random(seed))
    total: int = sock.view["scores"][0]["total"]  # type: ignore[index]
    sock.close()
    return table["id"], total


def _play_pair(a: Player, b: Player, seed: int, **extra: Any) -> tuple[str, Socket]:
    table = a.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}], **extra)
    join = {"invite": table["invite"]} if table.get("invite") else {}
    assert b.post(f"/api/tables/{table['id']}/join", **join).status_code == 200
    assert a.post(f"/api/tables/{table['id']}/start").status_code == 200
    sa, sb = a.socket(table["id"]), b.socket(table["id"])
    sa.recv()
    sb.recv()
    play_out([sa, sb], random.Random(seed))
    sa.drain(0.3)
    sb.close()
    return table["id"], sa


def test_profile_stats_come_from_the_games_played(server: ServerProcess) -> None:
    ana, bo = _register(server, "ana"), _register(server, "bo")
    solo = [_play_solo(ana, seed) for seed in (11, 12)]
    table_id, sock = _play_pair(ana, bo, 13, rated=True)
    view = sock.view
    assert view is not None
    rush_scores = [s["total"] for s in view["scores"]]
    winners = view["winners"]
    sock.close()

    profile = bo.http.get(f"/api/users/{ana.name}/profile").json()
    assert profile["name"] == ana.name and profile["guest"] is False
    games = {g["game"]: g for g in profile["games"]}
    cafe, rush = games["cafe"], games["coffee-rush"]
    totals = [total for _, total in solo]
    assert cafe["played"] == 2
    assert cafe["best_score"] == max(totals)
    assert cafe["mean_score"] == round(sum(totals) / 2, 1)
    assert cafe["wins"] == 0  # a solo game is played, not won against anyone
    assert cafe["solo"] == {"played": 2, "best": max(totals), "band": solo_rating(max(totals))}
    assert rush["played"] == 1 and rush["best_score"] == rush_scores[0]
    assert rush["mean_score"] == float(rush_scores[0])
    assert rush["wins"] == (1 if 0 in winners else 0)
    assert rush["solo"] is None  # Coffee Rush has no solo game
    assert rush["rated_games"] == 1
    assert [h["table"] for h in rush["rating_history"]] == [table_id]
    assert rush["rating"] == rush["rating_history"][-1]["after"]
    # the other player's page counts the same game from their side
    theirs = {g["game"]: g for g in bo.http.get(f"/api/users/{bo.name}/profile").json()["games"]}
    assert theirs["coffee-rush"]["played"] == 1 and theirs["cafe"]["played"] == 0
    assert theirs["coffee-rush"]["best_score"] == rush_scores[1]
    assert theirs["coffee-rush"]["wins"] == (1 if 1 in winners else 0)


def test_history_lists_every_table_with_replays_and_pages(server: ServerProcess) -> None:
    ana, bo = _register(server, "ana"), _register(server, "bo")
    finished, total = _play_solo(ana, 21)
    # a game still running, and one that never started
    running = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    assert ana.post(f"/api/tables/{running['id']}/start").status_code == 200
    waiting = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])

    page = bo.http.get(f"/api/users/{ana.name}/games").json()
    assert page["total"] == 3 and page["pages"] == 1
    rows = {row["table"]: row for row in page["games"]}
    assert [row["table"] for row in page["games"]] == [waiting["id"], running["id"], finished]
    done = rows[finished]
    assert done["status"] == "finished" and done["replay"] is True and done["rated"] is False
    assert done["score"] == total and done["won"] is True
    assert done["band"] == solo_rating(total)
    assert done["players"] == [{"name": ana.name, "bot": None, "replaced": False}]
    # the replay link works for anyone
    assert bo.http.get(f"/api/tables/{finished}/replay/3").status_code == 200
    live = rows[running["id"]]
    assert live["status"] == "running" and live["replay"] is False
    assert live["score"] is None and live["won"] is None and live["band"] is None
    assert live["players"][1] == {"name": None, "bot": "greedy", "replaced": False}
    assert set(live) == set(done)  # nothing more about a running game than about any other

    # pages of one
    seen = []
    for number in (1, 2, 3):
        one = bo.http.get(f"/api/users/{ana.name}/games", params={"page": number, "per_page": 1})
        assert one.status_code == 200
        body = one.json()
        assert body["pages"] == 3 and len(body["games"]) == 1
        seen.append(body["games"][0]["table"])
    assert seen == [waiting["id"], running["id"], finished]
    beyond = bo.http.get(f"/api/users/{ana.name}/games", params={"page": 4, "per_page": 1})
    assert beyond.json()["games"] == []


def test_private_tables_are_listed_only_to_those_who_sat_there(server: ServerProcess) -> None:
    ana, bo, cy = (_register(server, n) for n in ("ana", "bo", "cy"))
    public_id, sock = _play_pair(ana, bo, 31)
    sock.close()
    private_id, sock = _play_pair(ana, bo, 32, private=True)
    sock.close()
    anonymous = Player(server)

    def listed(viewer: Player) -> set[str]:
        r = viewer.http.get(f"/api/users/{ana.name}/games")
        assert r.status_code == 200
        return {row["table"] for row in r.json()["games"]}

    assert listed(ana) == {public_id, private_id}
    assert listed(bo) == {public_id, private_id}
    assert listed(cy) == {public_id}
    assert listed(anonymous) == {public_id}
    assert cy.http.get(f"/api/users/{ana.name}/games").json()["total"] == 1
    # and its replay stays closed to them
    assert cy.http.get(f"/api/tables/{private_id}/replay/1").status_code == 403


def test_high_scores_are_ordered_and_public(server: ServerProcess) -> None:
    players = [_register(server, n) for n in ("hs", "hs", "hs")]
    played = [
        (player.name, *_play_solo(player, seed))
        for player, seed in zip(players, (41, 42, 43), strict=True)
    ]
    hidden_id, _ = _play_solo(players[0], 44, private=True)
    board = players[1].http.get("/api/highscores/cafe", params={"limit": 100}).json()
    ours = [row for row in board if row["name"] in {p.name for p in players}]
    assert hidden_id not in {row["table"] for row in board}
    assert {row["table"] for row in ours} == {table for _, table, _ in played}
    scores = [row["score"] for row in board]
    assert scores == sorted(scores, reverse=True)
    assert [row["rank"] for row in board] == list(range(1, len(board) + 1))
    for row in ours:
        name, _table, total = next(p for p in played if p[1] == row["table"])
        assert (row["name"], row["score"], row["band"]) == (name, total, solo_rating(total))
    top = players[1].http.get("/api/highscores/cafe", params={"limit": 1}).json()
    assert top == board[:1]


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/users/nobody-at-all-here/profile", 404, "no_user"),
        ("/api/users/nobody-at-all-here/games", 404, "no_user"),
        ("/api/highscores/chess", 404, "unknown_game"),
        ("/api/highscores/coffee-rush", 404, "no_solo"),
        ("/api/highscores/cafe?limit=0", 422, "invalid"),
        ("/api/highscores/cafe?limit=101", 422, "invalid"),
        ("/api/highscores/cafe?limit=x", 422, "invalid"),
    ],
)
def test_bad_requests_get_clear_errors(
    server: ServerProcess, path: str, status: int, code: str
) -> None:
    r = Player(server).http.get(path)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code


@pytest.mark.parametrize("query", ["page=0", "per_page=0", "per_page=101", "page=-1", "page=a"])
def test_bad_pages_are_refused(server: ServerProcess, query: str) -> None:
    ana = _register(server, "pg")
    r = ana.http.get(f"/api/users/{ana.name}/games?{query}")
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid"
