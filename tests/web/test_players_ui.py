"""Player pages, the solo high-score board and the abandonment question in real browsers
(Chromium through Playwright) against a real server. Games are played to their end over
sockets first (tests/server/live.py); the pages are then read, and clicked, as a person
would. Screenshots go to tests/web/artifacts (or $COFFEETABLE_SHOTS)."""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coffeetable.games.cafe.state import solo_rating
from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, ServerProcess, play_out
from tests.web.ui import Client

pytestmark = pytest.mark.server

LIMIT = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """A real server on a fresh SQLite file whose tables may ask about a player after 1 s."""
    tmp = tmp_path_factory.mktemp("web-players")
    proc = ServerProcess(
        f"sqlite:///{tmp / 'web.db'}",
        tmp / "server.log",
        extra_env={"COFFEETABLE_ABANDON_MINIMUM": "1"},
    )
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        assert "Traceback" not in proc.log_text()


@pytest.fixture(scope="module")
def shots(artifacts: Path) -> Path:
    """tests/web/artifacts, or $COFFEETABLE_SHOTS."""
    folder = (
        Path(os.environ["COFFEETABLE_SHOTS"]) if os.environ.get("COFFEETABLE_SHOTS") else artifacts
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _register(server: ServerProcess, stem: str) -> Player:
    player = Player(server)
    assert player.register(f"{stem}{random.Random().randrange(10**6)}").status_code == 200
    return player


def _as(browser: Any, server: ServerProcess, player: Player) -> Client:
    """A browser context logged in as `player` (its session cookie)."""
    client = Client(browser, server)
    client.context.add_cookies([{"name": SESSION_COOKIE, "value": player.token, "url": server.url}])
    return client


def _solo(player: Player, seed: int) -> tuple[str, int]:
    table = player.create("cafe", [{"kind": "human"}])
    assert player.post(f"/api/tables/{table['id']}/start").status_code == 200
    sock = player.socket(table["id"])
    sock.recv()
    play_out([sock], random.Random(seed), timeout=90)  # a few seconds; stalled, it says why
    total: int = sock.view["scores"][0]["total"]  # type: ignore[index]
    sock.close()
    return table["id"], total


def test_profile_page_shows_stats_history_and_replays(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    ana, bo = _register(server, "ana"), _register(server, "bo")
    games = [_solo(ana, seed) for seed in (1, 2)]
    totals = [total for _, total in games]
    # a rated game of Coffee Rush against Bo: a rating history to draw
    rated = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}], rated=True)
    assert bo.post(f"/api/tables/{rated['id']}/join").status_code == 200
    assert ana.post(f"/api/tables/{rated['id']}/start").status_code == 200
    sockets = [p.socket(rated["id"]) for p in (ana, bo)]
    for sock in sockets:
        sock.recv()
    play_out(sockets, random.Random(3))
    won = 0 in sockets[0].view["winners"]  # type: ignore[index]
    for sock in sockets:
        sock.close()
    # 19 tables that never started: the history has a second page
    for _ in range(19):
        ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
    viewer = Client(browser, server)
    try:
        viewer.goto(f"#/profile/{ana.name}")
        page = viewer.page
        page.wait_for_selector("#history-table")
        assert page.inner_text("#profile-name").startswith(ana.name)
        cafe = page.locator(".card[data-game=cafe]")
        assert cafe.locator("[data-stat=played]").inner_text() == "2 games played"
        assert cafe.locator("[data-stat=wins]").inner_text() == "0 wins"  # solo: no wins
        assert cafe.locator("[data-stat=best]").inner_text() == str(max(totals))
        assert cafe.locator("[data-stat=mean]").inner_text() == format(
            round(sum(totals) / 2, 1), "g"
        )
        assert cafe.locator("[data-stat=band]").inner_text() == solo_rating(max(totals))
        rush = page.locator(".card[data-game=coffee-rush]")
        assert rush.locator("[data-stat=played]").inner_text() == "1 game played"
        assert rush.locator("[data-stat=wins]").inner_text() == ("1 win" if won else "0 wins")
        ratings = bo.http.get(f"/api/users/{ana.name}/ratings/coffee-rush").json()
        deadline = time.monotonic() + 10  # stored just after the last move
        while ratings["games"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
            ratings = bo.http.get(f"/api/users/{ana.name}/ratings/coffee-rush").json()
        page.reload()
        page.wait_for_selector(".card[data-game=coffee-rush] svg.chart")
        assert float(rush.locator("[data-rating]").inner_text()) == ratings["rating"] != 1500
        assert rush.locator("svg.chart circle").count() == 2  # before and after the game
        # the first page: the 20 newest tables, all waiting for players
        assert page.locator("#history-table tbody tr").count() == 20
        assert page.inner_text("#history-page") == "Page 1 of 2"
        viewer.screenshot(shots, "profile-page-1")
        viewer.press("#history-older")
        page.wait_for_selector("#history-table tr[data-status=finished]")
        assert page.inner_text("#history-page") == "Page 2 of 2"
        rows = page.locator("#history-table tbody tr")
        assert rows.count() == 2  # the two solo games, the oldest
        first = rows.first
        assert re.search(r"\d+ points?", first.locator("td.result").inner_text())
        viewer.screenshot(shots, "profile-page-2")
        # a replay link opens the replay of that game
        table_id = first.get_attribute("data-table")
        assert table_id in {t for t, _ in games}
        viewer.press(first.locator("[data-replay]"))
        page.wait_for_selector("#replay-slider")
        assert f"#/replay/{table_id}" in page.url
        viewer.screenshot(shots, "replay-from-profile")
        # and in another language the counts follow its plural rules
        viewer.goto(f"#/profile/{ana.name}")
        page.wait_for_selector(".card[data-game=cafe] [data-stat=played]")
        page.select_option("#lang", "ru")
        page.wait_for_function(
            "() => document.querySelector('.card[data-game=cafe] [data-stat=played]')"
            "?.textContent.includes('партии')"
        )
        assert cafe.locator("[data-stat=played]").inner_text() == "2 партии сыграно"
        assert viewer.errors == []
    finally:
        viewer.close()


def test_solo_high_score_board(browser: Any, server: ServerProcess, shots: Path) -> None:
    players = [_register(server, "hs") for _ in range(3)]
    played = {
        table: (p.name, total)
        for p, seed in zip(players, (7, 8, 9), strict=True)
        for table, total in [_solo(p, seed)]
    }
    viewer = Client(browser, server)
    try:
        viewer.goto("#/leaderboard")
        page = viewer.page
        viewer.press("[data-game='solo/cafe']")
        page.wait_for_selector("#highscores")
        rows = page.locator("#highscores tbody tr")
        scores = [int(rows.nth(i).locator("td.num").inner_text()) for i in range(rows.count())]
        assert scores == sorted(scores, reverse=True)
        for i in range(rows.count()):
            row = rows.nth(i)
            table = row.get_attribute("data-table")
            if table in played:
                name, total = played[table]
                cells = row.locator("td")
                assert cells.nth(1).inner_text() == name
                assert int(cells.nth(2).inner_text()) == total
                assert cells.nth(3).inner_text() == solo_rating(total)
        assert {rows.nth(i).get_attribute("data-table") for i in range(rows.count())} >= set(played)
        viewer.screenshot(shots, "highscores")
        # a name leads to the player's page
        name, _ = next(iter(played.values()))
        viewer.press(page.locator("#highscores a", has_text=name).first)
        page.wait_for_selector("#history-table")
        assert page.inner_text("#profile-name").startswith(name)
        assert viewer.errors == []
    finally:
        viewer.close()


def _abandon_table(server: ServerProcess, people: list[Player]) -> str:
    seats = [{"kind": "human"}] + [{"kind": "open"}] * (len(people) - 1)
    table = people[0].create("coffee-rush", seats, abandon_after=LIMIT)
    for player in people[1:]:
        assert player.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert people[0].post(f"/api/tables/{table['id']}/start").status_code == 200
    return str(table["id"])


def test_abandonment_question_and_votes_in_three_browsers(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    people = [_register(server, n) for n in ("ab", "ab", "ab")]
    table_id = _abandon_table(server, people)
    sock = people[1].socket(table_id)
    leaver = sock.recv_until("snapshot")["view"]["current_seats"][0]
    sock.close()
    first, second = (i for i in range(3) if i != leaver)
    clients = {i: _as(browser, server, people[i]) for i in (first, second)}
    watcher = Client(browser, server)
    try:
        for client in [*clients.values(), watcher]:
            client.goto(f"#/table/{table_id}")
            client.page.wait_for_selector("#player-list")
        # the player to move never opened the page: after the limit the others are asked
        for client in clients.values():
            client.page.wait_for_selector("#abandon-bot", timeout=15_000)
        title = clients[first].page.inner_text("#abandon-title")
        assert people[leaver].name in title
        assert clients[first].page.inner_text("#abandon-count") == "0 of 2 have voted"
        watcher.page.wait_for_selector("#abandon-notice")
        assert watcher.page.locator("#abandon-bot").count() == 0  # a spectator is not asked
        clients[first].screenshot(shots, "abandon-offer")
        watcher.screenshot(shots, "abandon-spectator")
        clients[first].press("#abandon-bot")
        clients[second].page.wait_for_function(
            "() => document.querySelector('#abandon-count')?.textContent.startsWith('1 of 2')"
        )
        # each page draws the vote from its own copy of the update: the voter's may come later
        clients[first].page.wait_for_selector("#abandon-bot[aria-pressed='true']")
        assert clients[first].page.inner_text("#abandon-count").startswith("1 of 2")
        clients[first].screenshot(shots, "abandon-one-vote")
        clients[second].press("#abandon-bot")
        # decided: the seat is a bot's now, the question is gone, the bot plays on
        for client in [*clients.values(), watcher]:
            client.page.wait_for_selector(
                f"#player-list li[data-seat='{leaver}'] .tag.warn", timeout=15_000
            )
            assert client.page.locator("#abandon").is_hidden()
        clients[first].screenshot(shots, "abandon-replaced")
        for client in [*clients.values(), watcher]:
            assert client.errors == []
    finally:
        for client in [*clients.values(), watcher]:
            client.close()


def test_ending_an_abandoned_game_in_the_browser(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    people = [_register(server, n) for n in ("ae", "ae")]
    table_id = _abandon_table(server, people)
    sock = people[0].socket(table_id)
    leaver = sock.recv_until("snapshot")["view"]["current_seats"][0]
    sock.close()
    other = 1 - leaver
    client = _as(browser, server, people[other])
    try:
        client.goto(f"#/table/{table_id}")
        client.page.wait_for_selector("#abandon-end", timeout=15_000)
        client.press("#abandon-end")
        client.page.wait_for_selector("#abandon-ended")
        assert people[leaver].name in client.page.inner_text("#abandon-ended")
        assert client.page.inner_text("#turn-line") == "The game is over."
        client.screenshot(shots, "abandon-ended")
        assert client.errors == []
    finally:
        client.close()


def test_the_new_table_form_sets_the_abandonment_limit(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    client = Client(browser, server)
    try:
        client.sign_up()
        page = client.page
        client.new_table_form("coffee-rush")
        # with a bot as the only other seat there is nobody to ask: no choice offered
        assert page.locator("#opt-abandon").count() == 0
        page.locator("[data-seat-row='1'] .seat-kind").select_option("person")
        page.wait_for_selector("#opt-abandon")
        assert page.locator("#opt-abandon option").first.inner_text() == "3 minutes (the default)"
        page.select_option("#opt-abandon", "600")
        client.screenshot(shots, "create-form-abandon")
        client.press("#create-table")
        page.wait_for_selector("#pregame")
        table_id = page.get_attribute("#table-page", "data-table")
        table = Player(server).http.get(f"/api/tables/{table_id}").json()
        assert table["abandon_after"] == 600
        assert client.errors == []
    finally:
        client.close()


def test_the_new_table_form_shows_each_bot_levels_rating(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    """A seat given to a bot lists the bots with their ratings where one is published
    closely enough (docs/bots.md, "Bot levels on the rating scale"), in each game: the
    levels of both games with theirs, random with none, and the levels in order of
    strength. Read from the same file the server reads."""
    from coffeetable.bots.tournament import published_ratings

    published = published_ratings()
    for game in ("coffee-rush", "cafe"):
        assert {"ismcts:easy", "ismcts:medium", "ismcts:hard"} <= set(published[game]), published
    order = ["ismcts:easy", "greedy", "ismcts:medium", "ismcts:hard"]
    client = Client(browser, server)
    try:
        client.sign_up()
        page = client.page
        for game in ("coffee-rush", "cafe"):
            shown = published[game]
            assert "random" not in shown  # it lost every game: no rating, only "below greedy"
            client.new_table_form(game)
            options = page.locator("[data-seat-row='1'] .seat-bot option")
            labels = dict(zip(options.evaluate_all("os => os.map((o) => o.value)"),
                              options.all_inner_texts(), strict=True))  # fmt: skip
            for bot, elo in shown.items():
                assert labels[bot].endswith(f"(rating ≈ {elo})"), (game, labels)
            assert "≈" not in labels["random"]
            ratings = [shown[bot] for bot in order if bot in shown]
            assert ratings == sorted(ratings), (game, shown)
            client.screenshot(shots, f"create-form-bot-ratings-{game}")
        assert client.errors == []
    finally:
        client.close()
