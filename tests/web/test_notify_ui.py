"""Presence, "my games" and turn notifications in the browser (issue 38), with two or three
real browser contexts (each a person with their own cookies) and, where a second player is
only needed to move, a scripted player over the protocol (tests/server/live.py).

Screenshots go to /tmp/h4-shots (or $COFFEETABLE_SHOTS)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import Player, ServerProcess
from tests.web.ui import Client

SHOTS = Path(os.environ.get("COFFEETABLE_SHOTS", "/tmp/h4-shots"))

#: Records every Notification the page makes (the real one still runs), and every tone.
SPY = """
(() => {
  const Real = window.Notification;
  window.__notes = [];
  if (!Real) return;
  function Spy(title, options) {
    window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
    return new Real(title, options);
  }
  Spy.prototype = Real.prototype;
  Object.defineProperty(Spy, "permission", { get: () => Real.permission });
  Spy.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Spy;
  // and every tone the page plays (the sound is made with WebAudio)
  window.__tones = 0;
  const RealAudio = window.AudioContext;
  if (RealAudio) {
    window.AudioContext = class extends RealAudio {
      createOscillator() { window.__tones += 1; return super.createOscillator(); }
    };
  }
})();
"""

HIDE = """
(hidden) => {
  Object.defineProperty(document, "visibilityState", { value: hidden ? "hidden" : "visible", configurable: true });
  Object.defineProperty(document, "hidden", { value: hidden, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}
"""


@pytest.fixture(scope="module")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


@pytest.fixture
def people(browser: Any, server: ServerProcess) -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        assert client.errors == [], client.errors
        client.close()


def person(browser: Any, server: ServerProcess, made: list[Client], **extra: Any) -> Client:
    client = Client(browser, server, **extra)
    made.append(client)
    return client


def opponent(server: ServerProcess) -> Player:
    player = Player(server)
    assert player.register(f"op{time.time_ns() % 10**9}").status_code == 200
    return player


def play_turn(player: Player, table_id: str) -> None:
    """The scripted player plays until it is no longer their move."""
    sock = player.socket(table_id)
    try:
        sock.recv_until("snapshot")
        for _ in range(20):
            if sock.seat not in (sock.view or {}).get("current_seats", []):
                return
            sock.act(sock.legal[0])
            sock.recv_until("update")
        raise AssertionError("the turn did not pass")
    finally:
        sock.close()


def seat_in_browser(client: Client, table_id: str) -> None:
    client.goto(f"#/table/{table_id}")
    client.press("[data-take-seat='1']")
    client.page.wait_for_selector(".pre-seat[data-seat='1'] .tag.me")


def to_move(player: Player, table_id: str) -> set[int]:
    sock = player.socket(table_id)
    try:
        sock.recv_until("snapshot")
        return set((sock.view or {}).get("current_seats", []))
    finally:
        sock.close()


def test_presence_online_away_and_offline_when_the_tab_closes(
    browser: Any, server: ServerProcess, people: list[Client], shots: Path
) -> None:
    ana = person(browser, server, people)
    bo = person(browser, server, people)
    cy = person(browser, server, people)  # a spectator: sees both
    ana_name = ana.sign_up()
    bo_name = bo.sign_up()
    cy.sign_up()
    table_id = ana.create_table("cafe", [None])
    seat_in_browser(bo, table_id)
    mark = ana.page.locator(f".presence[data-user='{bo_name}']")
    mark.wait_for()
    ana.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='online']")
    cy.goto(f"#/table/{table_id}")
    cy.page.wait_for_selector(f".presence[data-user='{ana_name}'][data-presence='online']")
    cy.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='online']")
    assert "since" in (mark.get_attribute("title") or "")
    ana.screenshot(shots, "presence-online")
    # Bo's tab hidden: away, for everyone
    bo.page.evaluate(HIDE, True)
    ana.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='away']")
    cy.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='away']")
    ana.screenshot(shots, "presence-away")
    bo.page.evaluate(HIDE, False)
    ana.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='online']")
    # Bo closes the tab (the whole browser context): offline
    bo.close()
    people.remove(bo)
    ana.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='offline']")
    cy.page.wait_for_selector(f".presence[data-user='{bo_name}'][data-presence='offline']")
    ana.screenshot(shots, "presence-offline")
    # the lobby counts who is online (Ana and Cy, at least)
    ana.goto("#/")
    count = ana.page.locator("#online-count")
    count.wait_for()
    assert "online" in count.inner_text()


def test_a_hidden_tab_gets_a_browser_notification_and_the_title_says_your_move(
    browser: Any, server: ServerProcess, people: list[Client], shots: Path
) -> None:
    bo = person(browser, server, people, permissions=["notifications"])
    bo.context.add_init_script(SPY)
    bo.sign_up()
    # browser notifications on, in the settings page (permission granted already)
    bo.goto("#/settings")
    bo.page.check("#set-browser")
    bo.page.check("#set-sound")
    bo.press("#save-settings")
    bo.page.wait_for_selector(".toast.info")
    bo.screenshot(shots, "settings")
    op = opponent(server)
    table = op.create("cafe", [{"kind": "human"}, {"kind": "open"}], clock={"kind": "turn_based"})
    seat_in_browser(bo, table["id"])
    bo.goto("#/")  # in the lobby, at no table
    bo.page.wait_for_selector("#my-games-lobby")
    bo.page.evaluate(HIDE, True)
    assert op.post(f"/api/tables/{table['id']}/start").status_code == 200
    if 0 in to_move(op, table["id"]):
        play_turn(op, table["id"])
    bo.page.wait_for_function("window.__notes.length > 0")
    notes = bo.page.evaluate("window.__notes")
    assert notes[0]["title"] == "Your move"
    assert "Café" in notes[0]["body"] and notes[0]["tag"] == f"coffeetable-{table['id']}"
    assert bo.page.title().startswith("Your move · ")
    assert bo.page.get_attribute("link[rel='icon']", "href") == "/img/icon-move.svg"
    assert bo.page.inner_text("#your-move-count") == "1"
    assert bo.page.evaluate("window.__tones") == 2  # the sound: two notes
    bo.page.evaluate(HIDE, False)
    bo.page.wait_for_selector(f"#my-games-lobby [data-mygame='{table['id']}'] [data-your-move]")
    bo.screenshot(shots, "lobby-your-move")
    # the move made (by Bo, at the table): the title is plain again, on any page
    play_from = Player(server)
    play_from.http.cookies.update(
        {c["name"]: c["value"] for c in bo.context.cookies() if c["name"] == "coffeetable_session"}
    )
    play_turn(play_from, table["id"])
    bo.page.wait_for_function("!document.title.startsWith('Your move')")
    assert bo.page.get_attribute("link[rel='icon']", "href") == "/img/icon.svg"
    assert len(bo.page.evaluate("window.__notes")) == 1


def test_my_games_page_puts_your_move_first(
    browser: Any, server: ServerProcess, people: list[Client], shots: Path
) -> None:
    bo = person(browser, server, people)
    bo.sign_up()
    tables = []
    for _ in range(3):
        op = opponent(server)
        table = op.create(
            "cafe", [{"kind": "human"}, {"kind": "open"}], clock={"kind": "turn_based"}
        )
        seat_in_browser(bo, table["id"])
        assert op.post(f"/api/tables/{table['id']}/start").status_code == 200
        tables.append((op, table))
    # the first and the last: Bo's move; the middle one: the opponent's
    cookie = {
        c["name"]: c["value"] for c in bo.context.cookies() if c["name"] == "coffeetable_session"
    }
    as_bo = Player(server)
    as_bo.http.cookies.update(cookie)
    for index, (op, table) in enumerate(tables):
        seats = to_move(op, table["id"])
        if index == 1 and 1 in seats:
            play_turn(as_bo, table["id"])
        elif index != 1 and 0 in seats:
            play_turn(op, table["id"])
    bo.goto("#/games")
    rows = bo.page.locator("#my-games [data-mygame]")
    rows.nth(2).wait_for()
    bo.page.wait_for_function(
        "document.querySelectorAll('#my-games [data-your-move]').length === 2"
    )
    order = [rows.nth(i).get_attribute("data-mygame") for i in range(rows.count())]
    ids = [t["id"] for _, t in tables]
    assert set(order[:2]) == {ids[0], ids[2]} and order[2] == ids[1]
    assert rows.nth(0).locator("[data-your-move]").count() == 1
    assert rows.nth(2).locator("[data-your-move]").count() == 0
    assert bo.page.title().startswith("Your move (2) · ")
    bo.screenshot(shots, "my-games")


def test_the_unsubscribe_page_with_a_bad_link_says_so(
    browser: Any, server: ServerProcess, people: list[Client], shots: Path
) -> None:
    visitor = person(browser, server, people)
    visitor.goto("#/unsubscribe/u1.notavalidsignature")
    visitor.page.wait_for_selector("#unsubscribe-error")
    assert "not valid" in visitor.page.inner_text("#unsubscribe-error")
    visitor.screenshot(shots, "unsubscribe-invalid")


def test_a_mails_unsubscribe_link_turns_mail_off_in_one_click_logged_out(
    browser: Any, server: ServerProcess, people: list[Client], shots: Path
) -> None:
    import sqlite3

    import httpx

    from coffeetable.server.mail import unsubscribe_token

    ana = person(browser, server, people)
    name = ana.sign_up()
    ana.goto("#/settings")
    ana.page.fill("#set-email", "ana@example.org")
    ana.press("#save-settings")
    ana.page.wait_for_selector(".toast.info")
    user_id = ana.page.evaluate("fetch('/api/me').then((r) => r.json()).then((me) => me.id)")
    # the token as a mail carries it: the user's id signed with the site's key
    httpx.post(f"{server.url}/api/unsubscribe", json={"token": "u0.x"})  # the key is made
    with sqlite3.connect(server.db_url.split("///", 1)[1]) as db:
        secret = db.execute("SELECT value FROM site_secrets WHERE name = 'unsubscribe'").fetchone()[
            0
        ]
    token = unsubscribe_token(secret, user_id)
    visitor = person(browser, server, people)  # another browser, logged out: the mail's reader
    visitor.goto(f"#/unsubscribe/{token}")
    visitor.page.wait_for_selector("#unsubscribed")
    assert name in visitor.page.inner_text("#unsubscribed")
    visitor.screenshot(shots, "unsubscribed")
    ana.goto("#/lobby")
    ana.goto("#/settings")
    ana.page.wait_for_selector("#set-mail")
    assert not ana.page.is_checked("#set-mail")
    assert ana.page.input_value("#set-email") == "ana@example.org"  # the address stays
