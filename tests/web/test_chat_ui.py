"""Chat and moderation in real browsers, two and three people at once (one browser context
each): chat both ways between players and a spectator, quick messages in each reader's
language, hiding spectators, a blocked player refused at the table, a report reaching the
admin page, and a suspension. Screenshots go to /tmp/h3-shots (or $COFFEETABLE_SHOTS)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess
from tests.web.ui import STATIC, Client

pytestmark = pytest.mark.server

SHOTS = Path(os.environ.get("COFFEETABLE_SHOTS", "/tmp/h3-shots"))


def chat_strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads(
        (STATIC / "i18n" / "chat" / f"{lang}.json").read_text("utf-8")
    )
    return data


@pytest.fixture(scope="module")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


def _say(c: Client, panel: str, text: str) -> None:
    c.page.fill(f"#{panel}-input", text)
    c.press(f"#{panel}-send")


def _line(c: Client, panel: str, words: str) -> Any:
    locator = c.page.locator(f"#{panel}-lines .chat-line", has_text=words)
    locator.first.wait_for()
    return locator.first


def _grant_admin(server: ServerProcess, name: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "coffeetable", "admin", "grant", name, "--db", server.db_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr


def test_chat_both_ways_between_players_and_a_spectator(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    ana, ben, cy = (Client(browser, server) for _ in range(3))
    try:
        ana.sign_up()
        ben.guest()
        cy.guest()
        table_id = ana.create_table("cafe", [None])
        ben.goto(f"#/table/{table_id}")
        ben.press("[data-take-seat='1']")
        ana.page.wait_for_selector("#start-game:not([disabled])")
        ana.start()
        for c in (ana, ben):
            c.page.wait_for_selector("#table-chat")
            c.page.wait_for_selector("#board")
        cy.goto(f"#/table/{table_id}")
        cy.page.wait_for_selector("#spectating")
        # a player's words reach the other player and the spectator, as text
        _say(ana, "table-chat", "hello <b>Cy</b> & all")
        for c in (ben, cy):
            line = _line(c, "table-chat", "hello <b>Cy</b> & all")
            assert line.locator("b").count() == 0  # inserted as text, never as markup
            assert line.locator(".chat-spectator").count() == 0
        # the spectator answers: marked as watching, on both players' pages
        _say(cy, "table-chat", "nice opening")
        for c in (ana, ben):
            line = _line(c, "table-chat", "nice opening")
            assert line.locator(".chat-spectator").count() == 1
        # a quick message, shown in each reader's language
        ben.page.select_option("#lang", "pt")
        ben.press("#table-chat [data-preset='good_luck']")
        _line(ana, "table-chat", chat_strings("en")["chat.preset.good_luck"])
        _line(cy, "table-chat", chat_strings("en")["chat.preset.good_luck"])
        _line(ben, "table-chat", chat_strings("pt")["chat.preset.good_luck"])
        cy.page.select_option("#lang", "ru")
        _line(cy, "table-chat", chat_strings("ru")["chat.preset.good_luck"])
        ana.screenshot(shots, "chat-table-player", full_page=False)
        cy.screenshot(shots, "chat-table-spectator-ru", full_page=False)
        # a player hides the spectators' lines
        ana.page.check("#table-chat-hide-spectators")
        assert ana.page.locator("#table-chat-lines .chat-line.spectator").count() == 0
        assert ana.page.locator("#table-chat-lines .chat-line", has_text="hello").count() == 1
        ana.page.uncheck("#table-chat-hide-spectators")
        _line(ana, "table-chat", "nice opening")
        # too long: the server's refusal is shown at the box, the words are kept
        ana.page.evaluate(
            "() => { const i = document.querySelector('#table-chat-input');"
            " i.removeAttribute('maxlength'); }"
        )
        _say(ana, "table-chat", "z" * 501)
        ana.page.wait_for_selector("#table-chat .chat-error:not([hidden])")
        assert ana.page.input_value("#table-chat-input") == "z" * 501
        for c in (ana, ben, cy):
            assert c.errors == [], c.errors
    finally:
        for c in (ana, ben, cy):
            c.close()


def test_a_blocked_player_is_refused_at_the_table_and_unheard(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    ana, ben = Client(browser, server), Client(browser, server)
    try:
        ana.sign_up()
        ben_name = ben.guest()
        for c in (ana, ben):
            c.goto("#/")
            # the lobby's socket has given its first lines: both hear and may speak
            c.page.wait_for_selector("#lobby-chat-lines[data-live]")
        _say(ben, "lobby-chat", "want to play?")
        line = _line(ana, "lobby-chat", "want to play?")
        ana.screenshot(shots, "chat-lobby", full_page=False)
        line.locator("button.chat-name").click()
        ana.page.locator(".chat-menu [data-action='block']").click()
        ana.page.wait_for_selector(".toast.info")
        assert (
            ana.page.locator("#lobby-chat-lines .chat-line", has_text="want to play?").count() == 0
        )
        # ana's table is closed to ben
        table_id = ana.create_table("cafe", [None])
        ben.goto(f"#/table/{table_id}")
        ben.press("[data-take-seat='1']")
        toast = ben.page.locator(".toast.error")
        toast.wait_for()
        assert toast.inner_text() == chat_strings("en")["error.blocked"]
        ben.screenshot(shots, "chat-blocked-refused", full_page=False)
        # ... and ben's words do not reach her
        _say(ben, "table-chat", "let me in please")
        _line(ben, "table-chat", "let me in please")
        ana.page.wait_for_timeout(600)
        assert ana.page.locator("#table-chat-lines .chat-line", has_text="let me").count() == 0
        seats = ana.page.locator(".pre-seat").all_inner_texts()
        assert not any(ben_name in s for s in seats)
        for c in (ana, ben):
            assert c.errors == [], c.errors
    finally:
        ana.close()
        ben.close()


def test_a_report_reaches_the_admin_page_and_a_suspension_logs_out(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    ana, ben, boss = (Client(browser, server) for _ in range(3))
    try:
        ana.guest()
        ben_name = ben.sign_up()
        boss_name = boss.sign_up()
        _grant_admin(server, boss_name)
        # a non-admin gets the page's refusal (the server's 403)
        ana.goto("#/admin")
        ana.page.wait_for_selector("#admin-error")
        assert ana.page.inner_text("#admin-error") == chat_strings("en")["admin.forbidden"]
        table_id = ana.create_table("cafe", [None])
        ben.goto(f"#/table/{table_id}")
        ben.page.wait_for_selector("#table-chat-input")
        _say(ana, "table-chat", "good luck!")
        _say(ben, "table-chat", "you are a terrible player")
        line = _line(ana, "table-chat", "terrible")
        line.locator("button.chat-name").click()
        ana.page.locator(".chat-menu [data-action='report-line']").click()
        ana.page.fill("#report-reason", "insults in the chat")
        ana.screenshot(shots, "chat-report-dialog", full_page=False)
        ana.press("#report-send")
        ana.page.wait_for_selector(".toast.info")
        # the admin sees it, with the words and what was said around them
        boss.page.reload()
        boss.page.wait_for_selector("[data-nav=admin]")
        boss.press("[data-nav=admin]")
        report = boss.page.locator(".admin-report", has_text="insults in the chat")
        report.wait_for()
        assert "you are a terrible player" in report.locator(".admin-text").inner_text()
        assert "good luck!" in report.locator(".admin-context").inner_text()
        boss.screenshot(shots, "chat-admin-reports")
        # suspended: ben's page loses its session at once
        report.locator(f"[data-suspend='{ben_name}']").click()
        boss.page.wait_for_selector(f".admin-report [data-unsuspend='{ben_name}']")
        ben.page.reload()
        ben.page.wait_for_selector("#login-link")
        report = boss.page.locator(".admin-report", has_text="insults in the chat")
        report.locator("[data-handle]").click()
        boss.page.wait_for_selector("#admin-none")
        boss.press("#admin-handled")
        boss.page.locator(".admin-report", has_text="insults in the chat").wait_for()
        boss.screenshot(shots, "chat-admin-handled")
        for c in (ana, ben, boss):
            assert c.errors == [], c.errors
    finally:
        for c in (ana, ben, boss):
            c.close()


def test_a_replay_shows_the_chat_where_it_was_said(
    browser: Any, server: ServerProcess, shots: Path
) -> None:
    import random

    from tests.server.live import Player, play_out

    ana, ben = Player(server).guest(), Player(server).guest()
    table = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
    assert ben.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    sockets = [ana.socket(table["id"]), ben.socket(table["id"])]
    for s in sockets:
        s.recv_until("snapshot")
    sockets[0].send({"type": "chat", "text": "said before any move"})
    sockets[1].recv_until("chat")
    rng = random.Random(7)
    mover = next(s for s in sockets if s.legal)
    mover.act(rng.choice(mover.legal))
    sockets[0].recv_until("update")
    sockets[1].send({"type": "chat", "preset": "well_played"})
    sockets[0].recv_until("chat")
    play_out(sockets, rng)
    for s in sockets:
        s.close()
    viewer = Client(browser, server)
    try:
        viewer.goto(f"#/replay/{table['id']}?n=0")
        viewer.page.locator("#replay-chat-lines .chat-line", has_text="said before").wait_for()
        assert viewer.page.locator("#replay-chat-lines .chat-line").count() == 1
        viewer.press("#replay-forward")
        viewer.page.locator(
            "#replay-chat-lines .chat-line", has_text=chat_strings("en")["chat.preset.well_played"]
        ).wait_for()
        assert viewer.page.locator("#replay-chat-lines .chat-line").count() == 2
        viewer.screenshot(shots, "chat-replay", full_page=False)
        assert viewer.errors == [], viewer.errors
    finally:
        viewer.close()
