"""Friends in the browser, with three people in three browser contexts: a friend request sent
by name and accepted, the lobby's "only tables with my friends", an invitation to a private
table accepted from the lobby (the friend joins without the link), and a declined one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server.live import ServerProcess
from tests.web.ui import Client


def _friends(client: Client) -> None:
    """Open the friends page afresh (a page already there would not load it again)."""
    client.goto("#/friends")
    client.page.reload()
    client.page.wait_for_selector("#friend-list")


def test_friends_invitations_and_the_lobby_filter(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    ana, bo, cy = Client(browser, server), Client(browser, server), Client(browser, server)
    try:
        ana_name, bo_name = ana.sign_up(), bo.sign_up()
        cy.sign_up()
        # Ana asks Bo by name (typed in another case: names match regardless of case); Bo,
        # in the lobby, hears of it at once on his own channel
        bo.goto("#/")
        bo.page.wait_for_selector("#table-list")
        _friends(ana)
        ana.page.fill("#friend-name", bo_name.upper())
        ana.press("#friend-add")
        ana.page.wait_for_selector(f"#friend-sent [data-friend='{bo_name}']")
        bo.page.wait_for_selector(f".toast.info:has-text('{ana_name}')")
        # Bo sees the request and accepts it
        _friends(bo)
        bo.page.wait_for_selector(f"#friend-requests [data-friend='{ana_name}']")
        bo.press(f"[data-accept='{ana_name}']")
        bo.page.wait_for_selector(f"#friend-list [data-friend='{ana_name}'][data-state='friend']")
        assert bo.page.locator("#friend-requests").count() == 0
        _friends(ana)
        ana.page.wait_for_selector(f"#friend-list [data-friend='{bo_name}'][data-state='friend']")
        # the list shows whether a friend is here: Bo has a page open
        ana.page.wait_for_selector(
            f"#friend-list [data-friend='{bo_name}'] [data-presence='online']"
        )
        # a redraw for presence keeps what is being typed
        ana.page.fill("#friend-name", "half a na")
        bo.page.reload()
        ana.page.wait_for_timeout(500)
        assert ana.page.input_value("#friend-name") == "half a na"
        bo.screenshot(artifacts, "friends-page", full_page=False)

        # Cy, a stranger, makes a table; Ana makes one (public) and invites Bo from it: Bo's
        # lobby shows the invitation as it comes
        cy.create_table("coffee-rush", [None])
        bo.goto("#/")
        bo.page.wait_for_selector("#table-list")
        public = ana.create_table("coffee-rush", [None])
        ana.page.wait_for_selector("#invite-friend select")
        assert ana.page.locator("#invite-name option").all_inner_texts() == [bo_name]
        ana.press("#invite-send")
        ana.page.wait_for_selector(".toast.info")
        bo.page.wait_for_selector(f"[data-invitation='{public}']")
        # and a private one, to which she invites Bo too
        private = ana.create_table("coffee-rush", [None, None], private=True)
        ana.page.wait_for_selector("#invite-friend select")
        ana.press("#invite-send")
        ana.page.wait_for_selector(".toast.info")

        # Bo's lobby: both invitations, newest first; the filter keeps the table where a
        # friend sits (the private one is not listed in the lobby at all)
        bo.goto("#/")
        bo.page.wait_for_selector(f"[data-invitation='{public}']")
        bo.page.wait_for_function("document.querySelectorAll('#invitations li').length === 2")
        assert [
            bo.page.get_attribute(f"#invitations li >> nth={i}", "data-invitation") for i in (0, 1)
        ] == [private, public]
        bo.page.wait_for_selector(f"#table-list [data-table='{public}']")
        assert bo.page.locator(f"#table-list [data-table='{private}']").count() == 0
        assert bo.page.locator("#table-list .table-row").count() >= 2
        bo.page.check("#with-friends")
        bo.page.wait_for_function(
            "() => document.querySelectorAll('#table-list .table-row').length === 1"
        )
        assert bo.page.get_attribute("#table-list .table-row", "data-table") == public
        bo.screenshot(artifacts, "friends-lobby", full_page=False)

        # a stranger is not offered the invitations, and cannot open the private table
        cy.goto("#/")
        cy.page.wait_for_selector("#table-list .table-row")
        assert cy.page.locator("#invitations-box").is_hidden()

        # Bo declines the public one, and joins the private one from its invitation
        bo.press(f"[data-decline-invitation='{public}']")
        bo.page.wait_for_function(
            f"() => !document.querySelector('[data-invitation=\"{public}\"]')"
        )
        bo.press(f"[data-accept-invitation='{private}']")
        bo.page.wait_for_selector("#pregame")
        bo.press("[data-take-seat] >> nth=0")
        bo.page.wait_for_function(
            "name => [...document.querySelectorAll('.pre-seat')].some(li => li.textContent.includes(name))",
            arg=bo_name,
        )
        # seated: the invitation is gone from the lobby
        bo.goto("#/")
        bo.page.wait_for_selector("#table-list")
        bo.page.wait_for_timeout(500)
        assert bo.page.locator("[data-invitation]").count() == 0
        for client in (ana, bo, cy):
            assert client.errors == [], client.errors
    finally:
        for client in (ana, bo, cy):
            client.close()
