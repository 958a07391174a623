"""Friends and invitations over HTTP against a real server, on SQLite and PostgreSQL: a request
accepted, removals, an invitation to a private table that lets the friend join, and every bad
request refused with a clear error that changes nothing."""

from __future__ import annotations

import random

import httpx
import pytest

from tests.server.live import Player, ServerProcess

pytestmark = pytest.mark.server


def _error(r: httpx.Response) -> tuple[int, str]:
    body = r.json()
    assert set(body) == {"error"}, body
    assert body["error"]["message"] and "Traceback" not in body["error"]["message"]
    return r.status_code, body["error"]["code"]


def _registered(server: ServerProcess, prefix: str) -> Player:
    player = Player(server)
    r = player.register(f"{prefix}{random.Random().randrange(10**6)}")
    assert r.status_code == 200, r.text
    return player


def _states(player: Player) -> list[tuple[str, str]]:
    r = player.http.get("/api/friends")
    assert r.status_code == 200, r.text
    return [(f["name"], f["state"]) for f in r.json()]


def test_a_friend_request_accepted_and_ended(server: ServerProcess) -> None:
    ana, bo = _registered(server, "Ana"), _registered(server, "Bo")
    r = ana.post(f"/api/friends/{bo.name}")
    assert r.status_code == 200 and r.json()["state"] == "outgoing", r.text
    assert _states(ana) == [(bo.name, "outgoing")]
    assert _states(bo) == [(ana.name, "incoming")]
    # accepting is asking back; the name is matched without regard to case
    r = bo.post(f"/api/friends/{ana.name.upper()}")
    assert r.json()["state"] == "friend"
    assert _states(ana) == [(bo.name, "friend")] and _states(bo) == [(ana.name, "friend")]
    r = ana.http.delete(f"/api/friends/{bo.name}")
    assert r.json() == {"removed": True}
    assert _states(ana) == [] and _states(bo) == []
    assert ana.http.delete(f"/api/friends/{bo.name}").json() == {"removed": False}


def test_bad_friend_requests_are_refused_and_change_nothing(server: ServerProcess) -> None:
    ana = _registered(server, "Ana")
    guest = Player(server).guest()
    assert _error(Player(server).http.get("/api/friends")) == (401, "login")
    assert _error(Player(server).post(f"/api/friends/{ana.name}")) == (401, "login")
    assert _error(ana.post(f"/api/friends/{ana.name}")) == (400, "invalid")
    assert _error(ana.post("/api/friends/NobodyAtAll404")) == (404, "no_user")
    assert _error(ana.post(f"/api/friends/{guest.name}")) == (403, "guest_friends")
    assert _error(guest.post(f"/api/friends/{ana.name}")) == (403, "guest_friends")
    assert _error(ana.post("/api/friends/" + "x" * 300))[0] == 422
    # another site's page may not make friends in the user's name
    forged = ana.http.post(f"/api/friends/{guest.name}", headers={"Origin": "https://evil.example"})
    assert _error(forged)[0] == 403
    assert _states(ana) == []


def test_an_invitation_to_a_private_table_lets_a_friend_join(server: ServerProcess) -> None:
    ana, bo, cy = (_registered(server, n) for n in ("Ana", "Bo", "Cy"))
    seats = [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    table = ana.create("coffee-rush", seats, private=True)
    tid = table["id"]
    # not friends yet: refused
    assert _error(ana.post(f"/api/tables/{tid}/invite", name=bo.name)) == (403, "not_friend")
    ana.post(f"/api/friends/{bo.name}")
    bo.post(f"/api/friends/{ana.name}")
    # only the table's players invite; a friend seated already is not invited again
    assert _error(bo.post(f"/api/tables/{tid}/invite", name=ana.name)) == (403, "not_your_table")
    assert _error(ana.post(f"/api/tables/{tid}/invite", name="NobodyAtAll404")) == (404, "no_user")
    assert _error(ana.post("/api/tables/nope/invite", name=bo.name)) == (404, "no_table")
    assert _error(ana.post(f"/api/tables/{tid}/invite"))[0] == 422
    assert _error(ana.post(f"/api/tables/{tid}/invite", name=bo.name, extra=1))[0] == 422
    assert bo.http.get("/api/invitations").json() == []
    assert ana.post(f"/api/tables/{tid}/invite", name=bo.name).json() == {"invited": True}
    assert ana.post(f"/api/tables/{tid}/invite", name=bo.name).json() == {"invited": False}
    # Bo sees the private table, with its invite, and joins with it
    found = bo.http.get("/api/invitations").json()
    assert [(i["from"], i["table"]["id"]) for i in found] == [(ana.name, tid)]
    invite = found[0]["table"]["invite"]
    assert invite == table["invite"]
    assert _error(cy.post(f"/api/tables/{tid}/join")) == (403, "private")
    assert cy.http.get("/api/invitations").json() == []
    r = bo.post(f"/api/tables/{tid}/join", invite=invite)
    assert r.status_code == 200, r.text
    # seated: no longer offered, and not invited again
    assert bo.http.get("/api/invitations").json() == []
    assert _error(ana.post(f"/api/tables/{tid}/invite", name=bo.name)) == (409, "friend_seated")


def test_a_declined_invitation_and_a_started_table_leave_the_list(server: ServerProcess) -> None:
    ana, bo = _registered(server, "Ana"), _registered(server, "Bo")
    ana.post(f"/api/friends/{bo.name}")
    bo.post(f"/api/friends/{ana.name}")
    seats = [{"kind": "human"}, {"kind": "open"}]
    first = ana.create("coffee-rush", seats)["id"]
    second = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "random"}])["id"]
    for tid in (first, second):
        assert ana.post(f"/api/tables/{tid}/invite", name=bo.name).json() == {"invited": True}
    assert [i["table"]["id"] for i in bo.http.get("/api/invitations").json()] == [second, first]
    assert bo.http.delete(f"/api/invitations/{first}").json() == {"removed": True}
    assert ana.post(f"/api/tables/{second}/start").status_code == 200
    assert bo.http.get("/api/invitations").json() == []
    # a started table takes no invitation
    assert _error(ana.post(f"/api/tables/{second}/invite", name=bo.name)) == (409, "not_open")


def test_a_block_ends_the_friendship_and_stops_requests_and_invitations(
    server: ServerProcess,
) -> None:
    ana, bo = _registered(server, "Ana"), _registered(server, "Bo")
    ana.post(f"/api/friends/{bo.name}")
    bo.post(f"/api/friends/{ana.name}")
    tid = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])["id"]
    assert ana.post(f"/api/tables/{tid}/invite", name=bo.name).json() == {"invited": True}
    assert bo.post(f"/api/users/{ana.name}/block").status_code == 200
    # the friendship is over, the invitation is not shown, and neither may ask again
    assert _states(ana) == [] and _states(bo) == []
    assert bo.http.get("/api/invitations").json() == []
    assert _error(ana.post(f"/api/friends/{bo.name}")) == (403, "friend_blocked")
    assert _error(bo.post(f"/api/friends/{ana.name}")) == (403, "friend_blocked")
    assert _states(ana) == [] and _states(bo) == []
    # lifted: they may be friends again
    assert bo.post(f"/api/users/{ana.name}/unblock").status_code == 200
    assert ana.post(f"/api/friends/{bo.name}").json()["state"] == "outgoing"


def test_an_invitation_lapses_when_the_friendship_ends_or_the_inviter_leaves(
    server: ServerProcess,
) -> None:
    """An invitation shares a private table's invite: it is shown only while the two are
    friends and the inviter still sits at the table (or made it)."""
    ana, bo, cy = (_registered(server, n) for n in ("Ana", "Bo", "Cy"))
    for other in (bo, cy):
        ana.post(f"/api/friends/{other.name}")
        other.post(f"/api/friends/{ana.name}")
    bo.post(f"/api/friends/{cy.name}")
    cy.post(f"/api/friends/{bo.name}")
    tid = ana.create(
        "coffee-rush", [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}], private=True
    )["id"]
    assert ana.post(f"/api/tables/{tid}/invite", name=bo.name).json() == {"invited": True}
    assert [i["table"]["id"] for i in bo.http.get("/api/invitations").json()] == [tid]
    assert ana.http.delete(f"/api/friends/{bo.name}").json() == {"removed": True}
    assert bo.http.get("/api/invitations").json() == []
    # Cy joins with Ana's invite, invites Bo (his friend), then leaves the table
    invite = ana.http.get(f"/api/tables/{tid}").json()["invite"]
    assert cy.post(f"/api/tables/{tid}/join", invite=invite).status_code == 200
    assert cy.post(f"/api/tables/{tid}/invite", name=bo.name).json() == {"invited": True}
    assert [i["table"]["id"] for i in bo.http.get("/api/invitations").json()] == [tid]
    assert cy.post(f"/api/tables/{tid}/leave").status_code == 200
    assert bo.http.get("/api/invitations").json() == []
