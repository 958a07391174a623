"""The HTTP routes of chat and moderation (docs/server.md): chat history (a table's, for
replays; the lobby's), mute and block, reports, and the admin's routes. `app.create_app`
adds them with `add_chat_routes`, handing over its request helpers (so that this module
does not import the app).

No `from __future__ import annotations` here: the routes' parameters name dependencies made
in `add_chat_routes`, which FastAPI must see as objects, not as strings to look up."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from coffeetable.server.chat import REPLAY_LINES
from coffeetable.server.livetable import seat_of
from coffeetable.server.moderation import MAX_REASON_CHARS, report_json
from coffeetable.server.storage import GameTable, User


@dataclass(frozen=True)
class RouteHelpers:
    """What the routes need from the app."""

    current_user: Callable[..., Awaitable[User | None]]
    require_user: Callable[..., Awaitable[User]]
    #: the table if the request may read it (403 `private`, 404 `no_table`)
    readable: Callable[[Request, str, User | None, str | None], Awaitable[GameTable]]
    #: the OpenAPI description of a route's error answers (`app.errors`)
    errors: Callable[..., dict[int | str, dict[str, Any]]]
    #: a 429 answer with Retry-After (`app.too_many`)
    too_many: Callable[[float, str], Exception]


#: The largest id the id columns hold (INTEGER: 32 bits on PostgreSQL); a larger one is
#: refused with 422, never sent to SQL.
MAX_ID = 2**31 - 1


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewReport(_Body):
    line: int | None = Field(
        default=None, ge=1, le=MAX_ID, description="the reported chat line's id"
    )
    name: str | None = Field(default=None, max_length=200, description="the reported player")
    reason: str = Field(min_length=1, max_length=4 * MAX_REASON_CHARS)


Invite = Annotated[str | None, Query(max_length=100, description="a private table's invite")]


def add_chat_routes(app: FastAPI, helpers: RouteHelpers) -> None:
    current_user, require_user, errors = (
        helpers.current_user,
        helpers.require_user,
        helpers.errors,
    )
    CurrentUser = Annotated[User | None, Depends(current_user)]
    RequiredUser = Annotated[User, Depends(require_user)]

    def node_of(request: Request) -> Any:
        return request.app.state.node

    # ---- chat history --------------------------------------------------------------------------
    @app.get("/api/tables/{table_id}/chat", tags=["chat"], responses=errors(403, 404))
    async def table_chat(
        table_id: str, request: Request, user: CurrentUser, invite: Invite = None
    ) -> dict[str, Any]:
        """The table's chat, oldest first (its last 2,000 lines): `moves` says how many moves
        had been made when each was said (a replay shows it there). Without the lines of
        players you muted or blocked."""
        await helpers.readable(request, table_id, user, invite)
        lines = await node_of(request).chat.history(table_id, user, REPLAY_LINES)
        return {"lines": lines}

    @app.get("/api/lobby/chat", tags=["chat"])
    async def lobby_chat(request: Request, user: CurrentUser) -> dict[str, Any]:
        """The lobby's last lines, oldest first (also sent on `/ws/lobby`)."""
        return {"lines": await node_of(request).chat.history(None, user)}

    # ---- mute and block ------------------------------------------------------------------------
    @app.get("/api/me/moderation", tags=["moderation"], responses=errors(401))
    async def my_lists(request: Request, user: RequiredUser) -> dict[str, list[str]]:
        """The players you muted and those you blocked, by name."""
        lists: dict[str, list[str]] = await node_of(request).moderation.lists(user)
        return lists

    def _toggle(path: str, what: str, on: bool, doc: str) -> None:
        async def route(
            name: Annotated[str, Path(max_length=200)], request: Request, user: RequiredUser
        ) -> dict[str, list[str]]:
            # each change goes to every node: the same per-user limit as friend requests
            wait = await node_of(request).friend_limits.check(f"user:{user.id}")
            if wait is not None:
                raise helpers.too_many(wait, "changes")
            moderation = node_of(request).moderation
            if what == "mute":
                await moderation.set_muted(user, name, on)
            else:
                await moderation.set_blocked(user, name, on)
            lists: dict[str, list[str]] = await moderation.lists(user)
            return lists

        route.__doc__ = doc
        app.post(
            f"/api/users/{{name}}/{path}",
            tags=["moderation"],
            responses=errors(400, 401, 404, 429, changing=True),
            name=path,
        )(route)

    _toggle("mute", "mute", True, "Hide this player's chat lines from you, everywhere.")
    _toggle("unmute", "mute", False, "Show this player's chat lines again.")
    _toggle(
        "block",
        "block",
        True,
        "Block this player: you no longer get their chat lines, they cannot take a seat at a "
        "table you created or sit at, and they cannot invite you.",
    )
    _toggle("unblock", "block", False, "Lift a block.")

    # ---- reports -------------------------------------------------------------------------------
    @app.post(
        "/api/reports",
        tags=["moderation"],
        status_code=201,
        responses=errors(400, 401, 404, 429, changing=True),
    )
    async def report(body: NewReport, request: Request, user: RequiredUser) -> dict[str, Any]:
        """Report a chat line (`line`: its speaker, with a copy of its words) or a player
        (`name`), with a `reason` (at most 500 characters), for an admin."""
        node = node_of(request)
        # a burst, then one a minute; only reports that were taken count
        wait = await node.report_limits.check(f"user:{user.id}", take=False)
        if wait is not None:
            raise helpers.too_many(wait, "reports")

        async def may_read(table_id: str) -> bool:
            table = await node.lobby.get(table_id)
            return (
                not table.private or seat_of(table, user) is not None or table.created_by == user.id
            )

        made = await node.moderation.report(
            user, body.reason, name=body.name, line_id=body.line, may_read_table=may_read
        )
        await node.report_limits.check(f"user:{user.id}")
        return report_json(made)

    # ---- admins --------------------------------------------------------------------------------
    @app.get("/api/admin/reports", tags=["admin"], responses=errors(401, 403))
    async def admin_reports(
        request: Request, user: RequiredUser, handled: bool = False
    ) -> list[dict[str, Any]]:
        """Reports (open ones, oldest first; `?handled=true`: handled ones, newest first),
        each with the reported line's context. Admins only."""
        reports: list[dict[str, Any]] = await node_of(request).moderation.reports(user, handled)
        return reports

    @app.post(
        "/api/admin/reports/{report_id}/handle",
        tags=["admin"],
        responses=errors(401, 403, 404, changing=True),
    )
    async def handle_report(
        report_id: Annotated[int, Path(ge=1, le=MAX_ID)], request: Request, user: RequiredUser
    ) -> dict[str, Any]:
        """Mark a report handled. Admins only."""
        handled: dict[str, Any] = await node_of(request).moderation.handle(user, report_id)
        return handled

    async def _suspend(request: Request, user: User, name: str, on: bool) -> dict[str, Any]:
        target = await node_of(request).moderation.set_suspended(user, name, on)
        return {"name": target.name, "suspended": on}

    admin_user_errors = errors(400, 401, 403, 404, 409, changing=True)

    @app.post("/api/admin/users/{name}/suspend", tags=["admin"], responses=admin_user_errors)
    async def suspend(name: str, request: Request, user: RequiredUser) -> dict[str, Any]:
        """Suspend an account: it cannot log in, and its sessions end at once on every node.
        Admins only."""
        return await _suspend(request, user, name, True)

    @app.post("/api/admin/users/{name}/unsuspend", tags=["admin"], responses=admin_user_errors)
    async def unsuspend(name: str, request: Request, user: RequiredUser) -> dict[str, Any]:
        """Lift a suspension. Admins only."""
        return await _suspend(request, user, name, False)
