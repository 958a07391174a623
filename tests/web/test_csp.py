"""The pages work under the server's Content-Security-Policy (script-src 'self', no eval):
a browser that enforces it plays against a bot, opens How to play and a tutorial, shows a
photo in the card editor and exports a file, and reports no violation (the other browser tests bypass the policy only because Playwright's
wait_for_function needs eval)."""

from __future__ import annotations

from typing import Any

from tests.server.live import ServerProcess
from tests.web.test_decks_ui import PNG


def test_the_pages_keep_to_the_content_security_policy(browser: Any, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        seen: list[str] = []
        page.on("console", lambda m: seen.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: seen.append(f"page error: {e}"))
        response = page.goto(server.url + "/")
        assert response is not None
        assert "script-src 'self'" in response.headers["content-security-policy"]
        # one click: a guest at a started table against a bot
        page.locator("[data-play-now=cafe]").click()
        page.wait_for_selector("#instruction", timeout=20_000)
        page.goto(server.url + "/#/help/cafe")
        page.wait_for_selector("svg", timeout=20_000)
        page.goto(server.url + "/#/help/coffee-rush")
        page.wait_for_selector("svg", timeout=20_000)
        # the card editor: a photo of a printed card shown from a data: URL, an exported file
        page.goto(server.url + "/#/decks/edit/cafe")
        page.wait_for_selector("#deck-status.ok", timeout=20_000)
        page.set_input_files(
            "#photo-input", files=[{"name": "card.png", "mimeType": "image/png", "buffer": PNG}]
        )
        page.wait_for_selector("#item-photo")
        assert page.evaluate("document.querySelector('#item-photo').naturalWidth") == 1
        with page.expect_download():
            page.locator("#deck-export").click()
        violations = [text for text in seen if "Content Security Policy" in text]
        assert violations == []
        assert not [t for t in seen if "page error" in t]
    finally:
        context.close()
