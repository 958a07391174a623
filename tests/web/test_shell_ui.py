"""The shell of the web client: languages, accounts, clear error messages, the lost
connection banner, the replay viewer and leaderboards, and the phone-sized layout. Every
main screen is saved as a screenshot in tests/web/artifacts/."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from coffeetable import find_game
from coffeetable.core.record import GameRecord
from tests.server.live import Player, ServerProcess
from tests.web.ui import STATIC, Client, cafe_step, rush_step

pytestmark = pytest.mark.server


def strings(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def test_the_language_switch_changes_the_text_in_all_four_languages(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server)
    page = c.page
    try:
        c.goto("#/login")
        page.wait_for_selector("#auth-form")
        for lang in ("pt", "ru", "uk", "en"):
            s = strings(lang)
            page.select_option("#lang", lang)
            page.wait_for_function(
                "([sel, text]) => document.querySelector(sel)?.textContent === text",
                arg=["[data-nav=lobby]", s["nav.lobby"]],
            )
            assert page.get_attribute("html", "lang") == lang
            assert page.inner_text("#auth-form #auth-submit") == s["auth.login"]
            assert page.inner_text(".welcome h1") == s["auth.welcome"]
            assert page.inner_text("#guest-button") == s["auth.guest"]
            assert page.inner_text("#tab-signup") == s["auth.signup_tab"]
            assert page.title() == s["app.title"]
            c.screenshot(artifacts, f"login-{lang}")
        # the choice is remembered
        page.select_option("#lang", "uk")
        page.wait_for_function(
            "(text) => document.querySelector('[data-nav=lobby]')?.textContent === text",
            arg=strings("uk")["nav.lobby"],
        )
        page.reload()
        page.wait_for_selector("#auth-form")
        assert page.inner_text("[data-nav=lobby]") == strings("uk")["nav.lobby"]
        # the lobby and the new-table form in Russian, with nothing left in English
        page.click("#guest-button")
        page.wait_for_selector("#create-table")
        ru = strings("ru")
        page.select_option("#lang", "ru")
        page.wait_for_function(
            "(text) => document.querySelector('#create-table')?.textContent === text",
            arg=ru["create.submit"],
        )
        page.click("#create-box [data-game=cafe]")
        body = page.inner_text("main")
        en = strings("en")
        for key in (
            "lobby.tables",
            "lobby.new_table",
            "create.options",
            "create.clock",
            "opt.variant_base",
        ):
            assert ru[key] in body
            assert en[key] not in body, key
        c.screenshot(artifacts, "lobby-ru")
        page.select_option("#lang", "en")
        assert not c.errors, c.errors
    finally:
        c.close()


def test_sign_up_log_in_and_clear_messages(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server)
    page = c.page
    en = strings("en")
    try:
        c.goto("#/login")
        page.click("#tab-signup")
        page.fill("#auth-name", "ab")
        page.fill("#auth-password", "long enough password")
        page.click("#auth-submit")
        assert page.inner_text("#auth-error") == en["auth.bad_name_length"]
        page.fill("#auth-name", "<b>bold</b>")
        page.click("#auth-submit")
        assert page.inner_text("#auth-error") == en["auth.bad_name_chars"]
        page.fill("#auth-name", "coffee_fan")
        page.fill("#auth-password", "short")
        page.click("#auth-submit")
        assert page.inner_text("#auth-error") == en["auth.bad_password_short"]
        c.screenshot(artifacts, "signup-error")
        name = c.sign_up("coffee_fan")
        assert page.inner_text("#me-name") == name
        page.click("#logout")
        page.wait_for_selector("#login-link")
        # the name is taken now
        c.goto("#/login")
        page.click("#tab-signup")
        page.fill("#auth-name", "Coffee_Fan")
        page.fill("#auth-password", "another password")
        page.click("#auth-submit")
        page.wait_for_function(
            "(t) => document.querySelector('#auth-error').textContent === t",
            arg=en["error.name_taken"],
        )
        page.click("#tab-login")
        page.fill("#auth-name", "coffee_fan")
        page.fill("#auth-password", "wrong password")
        page.click("#auth-submit")
        page.wait_for_function(
            "(t) => document.querySelector('#auth-error').textContent === t",
            arg=en["error.bad_login"],
        )
        page.fill("#auth-password", "coffee beans 123")
        page.click("#auth-submit")
        page.wait_for_selector("#me-name")
        assert not c.errors, c.errors
    finally:
        c.close()


def test_full_and_private_tables_say_so(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    host = Player(server).guest()
    other = Player(server).guest()
    c = Client(browser, server)
    page = c.page
    en = strings("en")
    try:
        # the lobby hears about the table, but not that its last seat was taken meanwhile
        first = {"done": False}

        def lobby_route(ws: Any) -> None:
            server_ws = ws.connect_to_server()

            def forward(message: str | bytes) -> None:
                if not first["done"]:
                    first["done"] = True
                    ws.send(message)

            server_ws.on_message(forward)

        table = host.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
        page.route_web_socket(re.compile(r".*/ws/lobby$"), lobby_route)
        c.guest()  # then the lobby opens
        page.wait_for_selector(f"[data-join='{table['id']}']")
        # the row names who made the table
        row = page.locator(f".table-row[data-table='{table['id']}'] .created-by")
        assert row.inner_text() == en["lobby.created_by"].replace("{name}", host.name)
        assert other.post(f"/api/tables/{table['id']}/join").status_code == 200
        page.click(f"[data-join='{table['id']}']")
        toast = page.locator(".toast", has_text=en["error.full"])
        toast.wait_for()
        c.screenshot(artifacts, "table-full-message", full_page=False)

        private = host.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}], private=True)
        c.goto(f"#/table/{private['id']}")
        page.wait_for_selector("#table-error")
        assert page.inner_text("#table-error") == en["error.private"]
        # with the invite link it opens, and the seat can be taken
        c.goto(f"#/table/{private['id']}?invite={private['invite']}")
        page.wait_for_selector("[data-take-seat='1']")
        page.click("[data-take-seat='1']")
        page.wait_for_selector("#leave-seat")
        c.screenshot(artifacts, "private-table-joined", full_page=False)
        assert not c.errors, c.errors
    finally:
        host.close()
        other.close()
        c.close()


def test_a_lost_connection_shows_a_banner_and_reconnects(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    c = Client(browser, server)
    page = c.page
    en = strings("en")
    state = {"up": True, "routes": []}
    try:
        c.guest()

        def table_route(ws: Any) -> None:
            if state["up"]:
                ws.connect_to_server()
                state["routes"].append(ws)
            else:
                ws.close(code=4000, reason="down")

        page.route_web_socket(re.compile(r".*/ws/tables/.*"), table_route)
        table_id = c.create_table("coffee-rush", ["random"], clock=(5, 3))
        c.start()
        page.wait_for_selector("#rush-board")
        # a real-time clock: five minutes each, counting down while it is our turn
        page.wait_for_selector("[data-clock='0']")
        assert re.fullmatch(r"[45]:\d\d", page.inner_text("[data-clock='0']"))
        rng = random.Random(3)
        deadline = time.monotonic() + 30
        while c.version < 4:
            assert time.monotonic() < deadline
            if rush_step(c, rng) is None:
                page.wait_for_timeout(50)
        # a hint, and playing it
        deadline = time.monotonic() + 30
        while not c.my_turn():
            assert time.monotonic() < deadline
            page.wait_for_timeout(50)
        page.click("#hint-button")
        page.wait_for_selector("#hint-text", timeout=60_000)
        assert page.inner_text("#hint-text").startswith(en["hint.suggests"])
        c.screenshot(artifacts, "rush-hint", full_page=False)
        before = c.version
        page.click("#hint-play")
        c.wait_change(before)
        assert c.version > before

        state["up"] = False
        state["routes"][-1].close(code=4000, reason="network trouble")
        page.wait_for_selector("#banner:not([hidden])")
        assert page.inner_text("#banner") == en["conn.lost"]
        assert page.inner_text("#conn-state") in (en["conn.lost_short"], en["conn.connecting"])
        c.screenshot(artifacts, "connection-lost", full_page=False)
        page.wait_for_timeout(800)
        state["up"] = True
        page.wait_for_selector("#banner", state="hidden", timeout=20_000)
        assert page.inner_text("#conn-state") == en["conn.open"]
        # the game goes on
        before = c.version
        deadline = time.monotonic() + 30
        while c.version <= before + 2 and not c.over():
            assert time.monotonic() < deadline
            if rush_step(c, rng) is None:
                page.wait_for_timeout(50)
        server_version = httpx.get(f"{server.url}/api/tables/{table_id}").json()["version"]
        assert server_version >= c.version
        assert not c.errors, c.errors
    finally:
        c.close()


def at_move(page: Any, n: int, total: int) -> None:
    page.wait_for_function(
        "(t) => document.querySelector('#replay-position').textContent === t",
        arg=f"Move {n} of {total}",
    )


def random_record(game_name: str, seats: int, seed: int) -> dict[str, Any]:
    game = find_game(game_name)
    state = game.new_initial_state(seats, seed)
    rng = random.Random(seed)
    actions: list[tuple[int, str]] = []
    while not state.is_over():
        seat = sorted(state.current_seats())[0]
        played = state.apply(seat, rng.choice(state.legal_actions(seat)))
        actions.append((seat, played.notation()))
    record = GameRecord(game_name, [f"Ana{seed}", f"Rui{seed}"][:seats], seed, {}, actions)
    return record.to_json(state)


def test_replay_leaderboard_profile_and_phone_layout(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    uploader = Player(server)
    assert uploader.register("replayer").status_code == 200
    c = Client(browser, server)
    phone = Client(browser, server, viewport=(390, 844))
    page = c.page
    try:
        for game_name in ("cafe", "coffee-rush"):
            record = random_record(game_name, 2, 5)
            r = uploader.http.post("/api/records", content=json.dumps(record))
            assert r.status_code == 201, r.text
            table = r.json()
            total = table["version"]
            c.goto(f"#/replay/{table['id']}")
            page.wait_for_selector("#replay-slider")
            page.wait_for_selector("#replay-results")  # it opens at the end
            assert page.inner_text("#replay-position") == f"Move {total} of {total}"
            page.click("#replay-first")
            at_move(page, 0, total)
            page.wait_for_selector("#replay-results .scores", state="detached")
            for _ in range(3):
                page.click("#replay-forward")
            at_move(page, 3, total)
            page.click("#replay-back")
            at_move(page, 2, total)
            page.keyboard.press("End")
            page.wait_for_selector("#replay-results .scores")
            href = page.get_attribute("#download-record", "href")
            downloaded = httpx.get(f"{server.url}{href}").json()
            assert downloaded["actions"] == record["actions"]
            page.keyboard.press("Home")
            page.keyboard.press("ArrowRight")
            at_move(page, 1, total)
            page.wait_for_timeout(300)
            c.screenshot(artifacts, f"replay-{game_name}")
        c.goto("#/leaderboard/cafe")
        page.wait_for_selector("#leaderboard-page .card")
        c.screenshot(artifacts, "leaderboard")
        c.goto("#/profile/replayer")
        page.wait_for_selector("[data-rating=cafe]")
        assert page.inner_text("[data-rating=cafe]") == "1500"
        c.screenshot(artifacts, "profile")

        # a phone: the lobby, then a game of Coffee Rush
        phone.guest()
        phone.goto("#/")
        phone.page.wait_for_selector("#create-table")
        phone.screenshot(artifacts, "phone-lobby")
        phone.create_table("coffee-rush", ["random"])
        phone.start()
        phone.page.wait_for_selector("#rush-board")
        rng = random.Random(2)
        deadline = time.monotonic() + 30
        while phone.version < 6:
            assert time.monotonic() < deadline
            if rush_step(phone, rng) is None:
                phone.page.wait_for_timeout(50)
        width = phone.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 2, "the page must not scroll sideways on a phone"
        phone.screenshot(artifacts, "phone-rush")
        phone.create_table("cafe", ["random"])
        phone.start()
        phone.page.wait_for_selector("#cafe")
        budget = {"actions": 0}
        deadline = time.monotonic() + 30
        while not phone.page.locator("#rotate").count():
            assert time.monotonic() < deadline
            if cafe_step(phone, rng, budget) is None:
                phone.page.wait_for_timeout(50)
        width = phone.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 2, "the page must not scroll sideways on a phone"
        phone.screenshot(artifacts, "phone-cafe")
        assert not c.errors, c.errors
        assert not phone.errors, phone.errors
    finally:
        uploader.close()
        c.close()
        phone.close()
