"""The ASGI app: a thin HTTP + WebSocket layer over the match service (docs/server.md).

HTTP (JSON, OpenAPI schema at /openapi.json, docs at /docs): accounts, the lobby, tables,
records, ratings. WebSocket: /ws/lobby (live table list) and /ws/tables/{id} (play and
spectate; docs/server-protocol.md). Errors are JSON `{"error": {"code", "message"}}` with
an HTTP status; no stack trace ever reaches a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import secrets
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import (
    Depends,
    FastAPI,
    Query,
    Request,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles

from coffeetable.bots.tournament import published_ratings
from coffeetable.core.errors import CoffeetableError
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game, game_names
from coffeetable.server import auth
from coffeetable.server.bots import SEAT_BOTS
from coffeetable.server.chat_routes import RouteHelpers, add_chat_routes
from coffeetable.server.collector import CycleCollector
from coffeetable.server.deck_routes import install as install_deck_routes
from coffeetable.server.gamedata import game_data
from coffeetable.server.guard import ASGI_CHANNEL, EdgeGuard
from coffeetable.server.livetable import (
    LOGGED_OUT,
    Client,
    TableError,
    encode_json,
    log_json,
    seat_of,
    table_json,
)
from coffeetable.server.node import Node, Settings
from coffeetable.server.notify_routes import install as install_notify_routes
from coffeetable.server.players import BOARD_SIZE, MAX_BOARD_SIZE, MAX_PAGE_SIZE, PAGE_SIZE
from coffeetable.server.protocol import (
    LOBBY_TYPES,
    Abandon,
    Chat,
    ErrorCode,
    Ping,
    ProtocolError,
    Sync,
    Undo,
    client_schema,
    error_message,
    parse_client_message,
)
from coffeetable.server.review_routes import add_review_routes
from coffeetable.server.storage import (
    DuplicateNameError,
    Friend,
    GameTable,
    Storage,
    User,
    default_database_url,
)
from coffeetable.server.tutorial import create_tutorial

log = logging.getLogger("coffeetable.server")
#: The browser client's files.
WEB_ROOT = Path(__file__).resolve().parent.parent / "web" / "static"


class ApiError(Exception):
    """An HTTP error answer; `extra` fields go into the error object (e.g. `field`, `rule`);
    `headers` go with the answer (e.g. Retry-After)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        **extra: str,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.extra = extra
        self.headers = headers or {}


def too_many(wait: float, what: str = "requests") -> ApiError:
    """429 with the time to wait, in the message and in Retry-After (whole seconds)."""
    seconds = max(1, math.ceil(wait))
    return ApiError(
        429,
        ErrorCode.RATE_LIMITED,
        f"too many {what}; try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


def _error(
    status: int, code: str, message: str, extra: dict[str, str] | None = None, **headers: str
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message, **(extra or {})}},
        status_code=status,
        headers=headers or None,
    )


class ErrorDetail(BaseModel):
    code: str = Field(description="what went wrong, for programs (docs/server-protocol.md)")
    message: str = Field(description="what went wrong and what to do, for people")
    model_config = ConfigDict(extra="allow")  # some errors say more (`field`, `rule`, ...)


class ErrorBody(BaseModel):
    """Every error's body: `{"error": {"code": ..., "message": ...}}`."""

    error: ErrorDetail


_ERROR_MEANINGS = {
    400: "the request is not valid (its `code` and `message` say why)",
    401: "not logged in, or a wrong name or password",
    403: "not allowed: another site's Origin, a private table, not your seat or table",
    404: "no such table, game, player or move",
    409: "the table is not in a state that allows it (started, full, finished, ...)",
    413: "the body is too large",
    415: "the body is not JSON (`Content-Type: application/json`)",
    422: "the request does not match this schema",
    429: "too many requests: try again after `Retry-After` seconds",
    503: "busy or unavailable: try again",
}


def errors(*statuses: int, changing: bool = False) -> dict[int | str, dict[str, Any]]:
    """The error answers a route may give, for the OpenAPI description. `changing`: a POST,
    which the edge guard may also refuse (403 `origin`, 415 `content_type`), and whose body
    may not parse as JSON (400)."""
    codes = set(statuses) | ({400, 403, 415} if changing else set())
    return {
        status: {"model": ErrorBody, "description": _ERROR_MEANINGS[status]}
        for status in sorted(codes)
    }


# ==== request bodies ==========================================================================
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Credentials(_Body):
    name: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class SeatSpec(_Body):
    kind: Literal["human", "open", "bot"]
    bot: str | None = Field(default=None, description=f"for a bot seat: {', '.join(SEAT_BOTS)}")


class ClockSpec(_Body):
    kind: Literal["realtime", "turn_based"]
    initial: float | None = None
    increment: float | None = None
    turn_limit: float | None = None


#: A client's id for a request that creates a table: repeated within 10 minutes by the same
#: player (a double click, a retry), it gets the same table back.
REQUEST_ID = Field(default=None, min_length=1, max_length=64)


class NewTable(_Body):
    game: str
    options: dict[str, Any] = Field(default_factory=dict)
    seats: list[SeatSpec] = Field(min_length=1, max_length=4)
    clock: ClockSpec | None = None
    rated: bool = False
    private: bool = False
    request_id: str | None = REQUEST_ID
    abandon_after: float | None = Field(
        default=None,
        strict=True,
        description="seconds a player to move may show no sign of life before the others "
        "are asked to replace them with a bot, wait or end the game (60 s to 14 days; "
        "default: 3 minutes, or a day for a turn-based table)",
    )


class Rematch(_Body):
    request_id: str | None = REQUEST_ID


class InviteFriend(_Body):
    name: str = Field(min_length=1, max_length=200, description="the friend's name")


class JoinTable(_Body):
    seat: int | None = Field(default=None, ge=0, le=3)
    invite: str | None = Field(default=None, max_length=100)


#: A private table's invite, for reading it over HTTP.
Invite = Annotated[str | None, Query(max_length=100, description="a private table's invite")]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        node = Node(settings)
        await node.start()
        app.state.node, app.state.storage = node, node.storage
        if settings.tune_gc:
            node.collector = CycleCollector()
            node.collector.start()
        try:
            yield
        finally:
            if node.collector is not None:
                await node.collector.stop()
            await node.stop()

    app = FastAPI(
        title="coffeetable",
        summary="Play Café and Coffee Rush online: accounts, lobby, tables, records, ratings.",
        version="1",
        lifespan=lifespan,
    )

    # ---- errors: always JSON, never a trace ---------------------------------------------------
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message, exc.extra, **exc.headers)

    @app.exception_handler(RecursionError)
    async def _too_deep(request: Request, exc: RecursionError) -> JSONResponse:
        # a JSON body nested thousands deep: malformed input, not the server's fault
        return _error(400, "bad_json", "the request body is nested too deeply")

    @app.exception_handler(TableError)
    async def _table_error(request: Request, exc: TableError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        return _error(422, "invalid", problems or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # its headers too: a 405 names the allowed methods (`Allow`, RFC 9110)
        headers = dict(exc.headers or {})
        status = exc.status_code
        if status in (404, 405):
            # a wrong method on an API route falls through to the static files mounted at
            # `/` (404 for a GET, 405 naming GET and HEAD otherwise): a 405 naming the route's
            # methods, those of the first documented path that fits, as the router tries them
            # (`/api/decks/check` also fits `/api/decks/{sha256}`, declared after it)
            matching = [
                route
                for route in request.app.routes
                if isinstance(route, APIRoute)
                and route.include_in_schema
                and route.path_regex.match(request.url.path)
            ]
            methods = {
                method
                for route in matching
                if route.path == matching[0].path
                for method in route.methods or ()
            }
            if methods and request.method not in methods:
                status = 405
                headers["Allow"] = ", ".join(sorted(methods))
                return _error(status, "http", "Method Not Allowed", None, **headers)
        return _error(exc.status_code, "http", str(exc.detail), None, **headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return _error(500, ErrorCode.SERVER, "something went wrong on our side; nothing changed")

    # ---- accounts ------------------------------------------------------------------------------
    def node_of(request: Request) -> Node:
        node: Node = request.app.state.node
        return node

    async def _login(
        request: Request, response: Response, storage: Storage, user: User
    ) -> dict[str, Any]:
        token = auth.new_session_token()
        ttl = auth.GUEST_TTL if user.is_guest else auth.SESSION_TTL
        await storage.create_session(auth.token_hash(token), user.id, datetime.now(UTC) + ttl)
        response.set_cookie(
            auth.SESSION_COOKIE,
            token,
            max_age=int(ttl.total_seconds()),
            httponly=True,
            samesite="lax",
            # behind TLS: --secure-cookies, or the request came over HTTPS (X-Forwarded-Proto
            # from a proxy counts only if serve --trusted-proxy lists it)
            secure=settings.secure_cookies or request.url.scheme == "https",
        )
        return user_json(user)

    @app.post(
        "/api/register",
        tags=["accounts"],
        dependencies=[Depends(rate_limited)],
        responses=errors(400, 409, 429, changing=True),
    )
    async def register(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        """Create an account and log in (sets the session cookie)."""
        field = "name"
        try:
            name = auth.check_name(body.name)
            field = "password"
            auth.check_password(body.password, [name])
        except auth.AuthError as exc:
            # `field` and `rule` (auth.NAME_RULES / PASSWORD_RULES) let a client say which rule
            raise ApiError(400, "invalid", str(exc), field=field, rule=exc.code) from None
        storage: Storage = request.app.state.storage
        try:
            hashed = await asyncio.to_thread(auth.hash_password, body.password)
            user = await storage.create_user(name, hashed)
        except DuplicateNameError:
            raise ApiError(409, "name_taken", f"the name {name!r} is taken") from None
        return await _login(request, response, storage, user)

    @app.post(
        "/api/login",
        tags=["accounts"],
        dependencies=[Depends(rate_limited)],
        responses=errors(401, 403, 429, changing=True),
    )
    async def login(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        storage: Storage = request.app.state.storage
        failures = node_of(request).login_failures
        name_key = body.name.strip().casefold()[:200]
        # guesses at one name are limited wherever they come from (the address limit holds
        # the other way round): failures take a token, and none left refuses every attempt
        wait = await failures.check(name_key, take=False)
        if wait is not None:
            raise too_many(wait, "failed logins for this name")
        user = await storage.get_user_by_name(body.name.strip())
        # verified off the event loop (~35 ms), and even for an unknown name, so that the
        # response time does not tell whether a name exists
        good = await asyncio.to_thread(
            auth.verify_password, user.password_hash if user else None, body.password
        )
        if user is None or not good:
            await failures.check(name_key)
            raise ApiError(401, "bad_login", "wrong name or password")
        if user.suspended:
            raise ApiError(403, "suspended", "this account is suspended")
        return await _login(request, response, storage, user)

    @app.post(
        "/api/guest",
        tags=["accounts"],
        dependencies=[Depends(rate_limited)],
        responses=errors(429, 503, changing=True),
    )
    async def guest(request: Request, response: Response) -> dict[str, Any]:
        """Play without an account, under a generated name."""
        storage: Storage = request.app.state.storage
        for _ in range(10):
            try:
                user = await storage.create_user(auth.guest_name(), None, is_guest=True)
            except DuplicateNameError:
                continue
            return await _login(request, response, storage, user)
        raise ApiError(503, "busy", "could not find a free guest name; try again")

    @app.post("/api/logout", tags=["accounts"], responses=errors(changing=True))
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        """End this session; its sockets (on every node) are closed with 4401."""
        token = request.cookies.get(auth.SESSION_COOKIE)
        if token and len(token) <= 200:
            storage: Storage = request.app.state.storage
            hashed = auth.token_hash(token)
            session = await storage.get_session(hashed)
            await storage.delete_session(hashed)
            if session is not None:
                await node_of(request).logged_out(session.user_id, hashed)
        response.delete_cookie(auth.SESSION_COOKIE)
        return {"ok": True}

    @app.post("/api/logout/everywhere", tags=["accounts"], responses=errors(401, changing=True))
    async def logout_everywhere(
        request: Request, response: Response, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        """End every session of this account, on every device; their sockets (on every node)
        are closed with 4401."""
        ended = await request.app.state.storage.delete_user_sessions(user.id)
        await node_of(request).logged_out(user.id, None)
        response.delete_cookie(auth.SESSION_COOKIE)
        return {"ok": True, "sessions": ended}

    @app.get("/api/me", tags=["accounts"], responses=errors(401))
    async def me(user: Annotated[User, Depends(require_user)]) -> dict[str, Any]:
        return user_json(user)

    @app.get("/api/session", tags=["accounts"])
    async def session(user: Annotated[User | None, Depends(current_user)]) -> dict[str, Any]:
        """Who is logged in: `{"user": ...}` as `/api/me` gives it, or `{"user": null}`, always
        200 (a page asks this on every load; a 401 would be an error in the browser console)."""
        return {"user": user_json(user) if user is not None else None}

    # ---- games and the lobby ------------------------------------------------------------------
    @app.get("/api/games", tags=["lobby"])
    async def games() -> list[dict[str, Any]]:
        """The games, their player counts and options, the bots a seat may hold, and the
        ratings of those bots on the Elo scale (`bot_ratings`: measured by
        benchmarks/bot_elo.py; a bot without one is not listed there)."""
        out = []
        for name in game_names():
            info = find_game(name).info
            out.append(
                {
                    "name": info.name,
                    "title": info.title,
                    "min_players": info.min_players,
                    "max_players": info.max_players,
                    "simultaneous": info.simultaneous,
                    "options": dict(info.options_help),
                    "default_options": find_game(name).normalize_options({}),
                    "bots": list(SEAT_BOTS),
                    # each bot's rating on the Elo scale, where measured (bots/tournament.py)
                    "bot_ratings": {
                        bot: elo
                        for bot, elo in published_ratings().get(info.name, {}).items()
                        if bot in SEAT_BOTS
                    },
                }
            )
        return out

    @app.get("/api/games/{game}/data", tags=["lobby"], responses=errors(404))
    async def game_data_route(
        game: str,
        request: Request,
        user: Annotated[User | None, Depends(current_user)],
        deck: Annotated[str | None, Query(max_length=64, description="a deck's sha256")] = None,
    ) -> JSONResponse:
        """What the views' names stand for: Café card layouts (cells, shops) and Coffee Rush
        board, ingredients and recipes, from the default deck and card files, or from a
        players' deck you may use (`deck`: its sha256; else 404 `deck_not_found`). It
        never holds a deck's order."""
        _check_game(game)
        if deck is not None:
            data = await node_of(request).decks.data(user, game, deck)
            return JSONResponse(data, headers={"Cache-Control": "private, max-age=60"})
        return JSONResponse(game_data(game), headers={"Cache-Control": "public, max-age=300"})

    @app.get("/api/tables", tags=["lobby"])
    async def list_tables(
        request: Request, status: Literal["open", "running", "finished"] | None = None
    ) -> list[dict[str, Any]]:
        storage: Storage = request.app.state.storage
        statuses = [status] if status else ["open", "running"]
        tables = await storage.list_tables(statuses, limit=200)  # type: ignore[arg-type]
        return [await _table_out(request, t) for t in tables]

    @app.post(
        "/api/tables",
        tags=["tables"],
        status_code=201,
        responses=errors(400, 401, 403, 404, 409, 429, changing=True),
    )
    async def create_table(
        body: NewTable, request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        """Create a table; its creator takes the first seat for a person. A user may have
        a few open tables at once, and create tables at a limited rate (per user and per
        address): 409 `too_many_tables`, 429 `rate_limited`."""
        node = node_of(request)
        address = request.client.host if request.client else "?"
        for key in (f"user:{user.id}", f"address:{address}"):
            wait = await node.table_limits.check(key)
            if wait is not None:
                raise too_many(wait, "new tables")
        # a players' deck (options `deck_sha256` / `cards_sha256`) its creator may use
        await node.decks.check_table_options(user, body.game, body.options)
        table = await node.lobby.create(
            user,
            body.game,
            body.options,
            [s.model_dump() for s in body.seats],
            body.clock.model_dump(exclude_none=True) if body.clock else None,
            body.rated,
            body.private,
            body.request_id,
            open_tables_limit=settings.open_tables_per_user,
            abandon_after=body.abandon_after,
        )
        out = await _table_out(request, table)
        if table.private:
            out["invite"] = table.invite_token
        return out

    @app.post(
        "/api/tutorial/{game}",
        tags=["tables"],
        status_code=201,
        responses=errors(401, 404, 409, 429, changing=True),
    )
    async def tutorial(
        game: str, request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        """A started tutorial table for `game` on its fixed deal, against a bot (tutorial.py)."""
        table = await create_tutorial(node_of(request).lobby, user, game)
        return await _table_out(request, table, user)

    async def _readable(
        request: Request, table_id: str, user: User | None, invite: str | None
    ) -> GameTable:
        """The table, if the request may read it: a private table only for its players and
        whoever has its invite (403 `private`)."""
        table = await node_of(request).lobby.get(table_id)
        if (
            table.private
            and seat_of(table, user) is None
            and not (user is not None and table.created_by == user.id)
            and not (
                invite
                and table.invite_token
                and secrets.compare_digest(invite.encode(), table.invite_token.encode())
            )
        ):
            raise ApiError(403, "private", "this table is private: use its invite link")
        return table

    @app.get("/api/tables/{table_id}", tags=["tables"], responses=errors(403, 404))
    async def get_table(
        table_id: str,
        request: Request,
        user: Annotated[User | None, Depends(current_user)],
        invite: Invite = None,
    ) -> dict[str, Any]:
        """One table; a private table's players also get its `invite`, to share. A private
        table is shown only to its players and with its `invite`."""
        return await _table_out(request, await _readable(request, table_id, user, invite), user)

    @app.post(
        "/api/tables/{table_id}/join",
        tags=["tables"],
        responses=errors(401, 403, 404, 409, changing=True),
    )
    async def join(
        table_id: str,
        request: Request,
        user: Annotated[User, Depends(require_user)],
        body: JoinTable | None = None,
    ) -> dict[str, Any]:
        body = body or JoinTable()
        table = await node_of(request).lobby.join(table_id, user, body.seat, body.invite)
        return await _table_out(request, table, user)

    @app.post(
        "/api/tables/{table_id}/leave",
        tags=["tables"],
        responses=errors(401, 403, 404, 409, changing=True),
    )
    async def leave(
        table_id: str, request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        return await _table_out(request, await node_of(request).lobby.leave(table_id, user))

    @app.post(
        "/api/tables/{table_id}/start",
        tags=["tables"],
        responses=errors(401, 403, 404, 409, changing=True),
    )
    async def start(
        table_id: str, request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        return await _table_out(request, await node_of(request).lobby.start(table_id, user))

    @app.post(
        "/api/tables/{table_id}/rematch",
        tags=["tables"],
        status_code=201,
        responses=errors(401, 403, 404, 409, changing=True),
    )
    async def rematch(
        table_id: str,
        request: Request,
        user: Annotated[User, Depends(require_user)],
        body: Rematch | None = None,
    ) -> dict[str, Any]:
        request_id = body.request_id if body else None
        table = await node_of(request).lobby.rematch(table_id, user, request_id)
        return await _table_out(request, table, user)

    @app.get("/api/tables/{table_id}/log", tags=["tables"], responses=errors(403, 404))
    async def game_log(
        table_id: str,
        request: Request,
        user: Annotated[User | None, Depends(current_user)],
        invite: Invite = None,
    ) -> list[dict[str, Any]]:
        """The game's moves in words, oldest first."""
        await _readable(request, table_id, user, invite)
        live = await node_of(request).match.live(table_id)
        return [log_json(line) for line in live.log]

    @app.get("/api/tables/{table_id}/record", tags=["records"], responses=errors(403, 404, 409))
    async def download_record(
        table_id: str,
        request: Request,
        user: Annotated[User | None, Depends(current_user)],
        invite: Invite = None,
    ) -> JSONResponse:
        """The finished game's record: the same JSON as `coffeetable play --record`."""
        await _readable(request, table_id, user, invite)
        record, final = await node_of(request).replays.record(table_id)
        return JSONResponse(
            record.to_json(final),
            headers={"Content-Disposition": f'attachment; filename="{table_id}.json"'},
        )

    @app.get(
        "/api/tables/{table_id}/replay/{version}", tags=["records"], responses=errors(403, 404, 409)
    )
    async def replay(
        table_id: str,
        version: int,
        request: Request,
        user: Annotated[User | None, Depends(current_user)],
        invite: Invite = None,
    ) -> dict[str, Any]:
        """The public view of a finished game after its first `version` moves."""
        await _readable(request, table_id, user, invite)
        return await node_of(request).replays.replay_view(table_id, version)

    @app.post(
        "/api/records",
        tags=["records"],
        status_code=201,
        responses=errors(400, 401, 409, 413, changing=True),
    )
    async def import_record(
        request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        """Import a finished game's record (as downloaded or written by the CLI)."""
        raw = await request.body()
        if len(raw) > 2_000_000:
            raise ApiError(413, "too_large", "a record file may be at most 2 MB")
        try:
            record = GameRecord.from_json(json.loads(raw))
        except RecursionError:
            raise ApiError(
                400, "invalid_record", "not a valid game record: nested too deeply"
            ) from None
        except (ValueError, TypeError, AttributeError, KeyError, CoffeetableError) as exc:
            raise ApiError(400, "invalid_record", f"not a valid game record: {exc}") from None
        node = node_of(request)
        table = await node.replays.import_record(user, record, node.decks.may_use)
        return await _table_out(request, table)

    # ---- ratings -------------------------------------------------------------------------------
    @app.get("/api/leaderboard/{game}", tags=["ratings"], responses=errors(404))
    async def leaderboard(game: str, request: Request) -> list[dict[str, Any]]:
        _check_game(game)
        rows = await request.app.state.storage.leaderboard(game, 100)
        return [
            {"name": r.name, "rating": round(r.rating, 1), "games": r.games_played} for r in rows
        ]

    @app.get("/api/users/{name}/ratings/{game}", tags=["ratings"], responses=errors(404))
    async def rating_history(name: str, game: str, request: Request) -> dict[str, Any]:
        _check_game(game)
        storage: Storage = request.app.state.storage
        user = await storage.get_user_by_name(name)
        if user is None:
            raise ApiError(404, "no_user", f"there is no player {name!r}")
        rating = await storage.get_rating(user.id, game)
        history = await storage.rating_history(user.id, game)
        return {
            "name": user.name,
            "rating": round(rating.rating, 1),
            "games": rating.games_played,
            "history": [
                {
                    "table": h.table_id,
                    "before": round(h.before, 1),
                    "after": round(h.after, 1),
                    "at": h.created_at.isoformat(),
                }
                for h in history
            ],
        }

    # ---- player pages --------------------------------------------------------------------------
    @app.get("/api/users/{name}/profile", tags=["players"], responses=errors(404))
    async def player_profile(name: str, request: Request) -> dict[str, Any]:
        """A player's results per game (games played to the end, wins, mean and best score,
        solo best and its rating band), rating and rating history."""
        return await node_of(request).players.profile(name)

    @app.get("/api/users/{name}/games", tags=["players"], responses=errors(404))
    async def player_games(
        name: str,
        request: Request,
        user: Annotated[User | None, Depends(current_user)],
        page: Annotated[int, Query(ge=1, le=100_000)] = 1,
        per_page: Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE)] = PAGE_SIZE,
    ) -> dict[str, Any]:
        """The tables a player sat at, newest first, a page at a time: rated or not, with a
        replay for each finished game. A private table is listed only to those who sat at
        it; a running game shows only its seats and status."""
        return await node_of(request).players.history(name, user, page, per_page)

    @app.get("/api/highscores/{game}", tags=["players"], responses=errors(404))
    async def high_scores(
        game: str,
        request: Request,
        limit: Annotated[int, Query(ge=1, le=MAX_BOARD_SIZE)] = BOARD_SIZE,
    ) -> list[dict[str, Any]]:
        """The best solo scores of a game that can be played alone (Café), best first: the
        player, the score and its rating band, when, and the table for its replay."""
        _check_game(game)
        return await node_of(request).players.high_scores(game, limit)

    @app.post(
        "/api/tables/{table_id}/hint",
        tags=["tables"],
        responses=errors(401, 403, 404, 409, 429, 503, changing=True),
    )
    async def hint(
        table_id: str, request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        """The hint bot's suggestion for your seat, in notation and in words (off in rated
        games). A few at once, then one every 2 seconds (429 `rate_limited`)."""
        wait = await node_of(request).hint_limits.check(f"user:{user.id}")
        if wait is not None:
            raise too_many(wait, "hints")
        return await node_of(request).driver.hint(table_id, user)

    # ---- friends and invitations -------------------------------------------------------------
    async def _friend_limit(request: Request, user: User) -> None:
        wait = await node_of(request).friend_limits.check(f"user:{user.id}")
        if wait is not None:
            raise too_many(wait, "friend requests and invitations")

    def _friend_json(f: Friend) -> dict[str, Any]:
        return {"name": f.name, "state": f.state, "since": f.since.isoformat()}

    @app.get("/api/friends", tags=["friends"], responses=errors(401))
    async def friends(
        request: Request, user: Annotated[User, Depends(require_user)]
    ) -> list[dict[str, Any]]:
        """Your friends and the friend requests either way (`state`: friend, incoming,
        outgoing): requests to you first. Only you see this list."""
        return [_friend_json(f) for f in await node_of(request).friends.of(user)]

    @app.post(
        "/api/friends/{name}",
        tags=["friends"],
        responses=errors(401, 403, 404, 409, 429, changing=True),
    )
    async def ask_friend(
        name: Annotated[str, PathParam(max_length=200)],
        request: Request,
        user: Annotated[User, Depends(require_user)],
    ) -> dict[str, Any]:
        """Ask `name` to be friends, or accept their request (then `state` is `friend`)."""
        await _friend_limit(request, user)
        return _friend_json(await node_of(request).friends.request(user, name))

    @app.delete("/api/friends/{name}", tags=["friends"], responses=errors(401, 404, changing=True))
    async def remove_friend(
        name: Annotated[str, PathParam(max_length=200)],
        request: Request,
        user: Annotated[User, Depends(require_user)],
    ) -> dict[str, Any]:
        """End a friendship, withdraw your request or decline theirs."""
        return {"removed": await node_of(request).friends.remove(user, name)}

    @app.post(
        "/api/tables/{table_id}/invite",
        tags=["friends"],
        responses=errors(401, 403, 404, 409, 429, changing=True),
    )
    async def invite_friend(
        table_id: str,
        body: InviteFriend,
        request: Request,
        user: Annotated[User, Depends(require_user)],
    ) -> dict[str, Any]:
        """Invite a friend to an open table you sit at (or made). They see it in the lobby
        with the private table's invite; `invited` is false if they were invited already."""
        await _friend_limit(request, user)
        return {"invited": await node_of(request).friends.invite(user, table_id, body.name)}

    @app.get("/api/invitations", tags=["friends"], responses=errors(401))
    async def invitations(
        request: Request, user: Annotated[User, Depends(require_user)]
    ) -> list[dict[str, Any]]:
        """Open tables you were invited to, newest first, with the private table's invite."""
        out = []
        for found in await node_of(request).friends.invitations(user):
            table = await _table_out(request, found.table)
            if found.table.private:
                table["invite"] = found.table.invite_token
            out.append(
                {"from": found.from_name, "at": found.created_at.isoformat(), "table": table}
            )
        return out

    @app.delete(
        "/api/invitations/{table_id}", tags=["friends"], responses=errors(401, changing=True)
    )
    async def decline_invitation(
        table_id: str, request: Request, user: Annotated[User, Depends(require_user)]
    ) -> dict[str, Any]:
        """Decline an invitation (it leaves your list)."""
        return {"removed": await node_of(request).friends.decline(user, table_id)}

    @app.get("/api/health", tags=["operations"], responses=errors(503))
    async def health(request: Request) -> JSONResponse:
        """This node's health: the database, Redis, tables loaded, leases held, bot jobs
        queued. 200 when the database and Redis answer, else 503 (for a load balancer)."""
        report = await node_of(request).health()
        return JSONResponse(report, status_code=200 if report["ok"] else 503)

    @app.get("/api/protocol", tags=["protocol"])
    async def protocol() -> dict[str, Any]:
        """JSON Schema of the WebSocket client messages (docs/server-protocol.md)."""
        return client_schema()

    # ---- WebSockets ----------------------------------------------------------------------------
    @app.websocket("/ws/lobby")
    async def lobby_socket(ws: WebSocket) -> None:
        await ws.accept()
        node: Node = ws.app.state.node
        queue: asyncio.Queue[dict[str, Any] | str | None] = asyncio.Queue(256)
        tables = await node.storage.list_tables(["open", "running"], limit=LOBBY_SIZE)
        for table in tables:
            await node.match.learn_names(table.seats, table.created_by)
        # the lobby's chat: who is here (their chat lines; whose lines they do not get)
        token = ws.cookies.get(auth.SESSION_COOKIE)
        user = await auth.user_of_token(ws.app.state.storage, token)
        bucket = auth.TokenBucket(settings.message_rate, settings.message_burst)

        def reply(message: dict[str, Any]) -> None:  # through the queue: one sender
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(message)

        async def listen() -> None:  # the lobby socket listens for chat lines and pings
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(message.get("code", 1000))
                raw = message.get("text")
                if raw is None:
                    reply(_binary_refused())
                    continue
                if not bucket.allow():
                    reply(error_message(ErrorCode.RATE_LIMITED, "too many messages; slow down"))
                    continue
                parsed = None
                try:
                    parsed = parse_client_message(raw, LOBBY_TYPES)
                    if isinstance(parsed, Chat):
                        # the session may have ended since the socket opened (a logout, a
                        # suspension): the lobby socket is not closed then, so ask again
                        now = await auth.user_of_token(node.storage, token)
                        speaker = now if user is not None and now is not None else None
                        await node.chat.say_in_lobby(speaker, parsed)
                    elif isinstance(parsed, Ping):
                        reply({"type": "pong", "ref": parsed.ref})
                except ProtocolError as exc:
                    ref = getattr(parsed, "ref", None)
                    reply(error_message(exc.code, exc.message, **({"ref": ref} if ref else {})))
                except Exception:
                    log.exception("error on the lobby socket")
                    reply(
                        error_message(
                            ErrorCode.SERVER, "something went wrong on our side; nothing changed"
                        )
                    )

        if user is not None:
            await node.chat.watch(user.id)
        node.chat.lobby[queue] = user  # (first: a line said meanwhile waits in the queue)
        try:
            await node.match.decks.preload((t.game, t.options) for t in tables)
            first: dict[str, Any] = {
                "type": "tables",
                "tables": [table_json(t, node.match.names) for t in tables],
            }
            try:  # with the chat's last lines
                first["chat"] = await node.chat.history(None, user)
            except Exception:
                log.exception("could not read the lobby's chat")
            await ws.send_text(encode_json(first))
            node.feed.clients.add(queue)
            await _pump(ws, queue, listen, lambda: 1012 if node.stopping else 1008)
        finally:
            node.feed.clients.discard(queue)
            node.chat.lobby.pop(queue, None)
            if user is not None:
                node.chat.unwatch(user.id)

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(ws: WebSocket, table_id: str) -> None:
        node: Node = ws.app.state.node
        svc = node.match
        token = ws.cookies.get(auth.SESSION_COOKIE)
        user = await auth.user_of_token(ws.app.state.storage, token)
        try:
            live = await svc.live(table_id)
        except TableError as exc:
            await ws.accept()
            await ws.send_json(error_message("no_table", exc.message))
            await ws.close(code=4404)
            return
        if live.meta.private and (user is None or seat_of(live.meta, user) is None):
            invite = ws.query_params.get("invite")
            if not (invite and live.meta.invite_token == invite):
                await ws.accept()
                await ws.send_json(error_message("private", "this table is private"))
                await ws.close(code=4403)
                return
        await ws.accept()
        client = Client(user=user, seat=seat_of(live.meta, user))
        if user is not None and token:
            client.session = auth.token_hash(token)
            node.socket_opened(user.id, client)
        await node.abandon.seen(live, client)  # a player who connects is back
        if user is not None:
            await node.chat.watch(user.id)  # whose chat lines this user does not get
        try:  # the first snapshot carries the chat's last lines
            history: list[dict[str, Any]] | None = await node.chat.history(table_id, user)
        except Exception:  # the chat is not worth the game: a failed read leaves it out
            log.exception("could not read the chat of table %s", table_id)
            history = None
        # joined and sent with no await between: no move's update can come before the
        # snapshot it follows
        live.clients.add(client)
        first = svc.snapshot(live, client)
        if history is not None:
            first["chat"] = history
        client.send(first)
        if history is not None:
            # a line said while the history was read: sent now (a client keeps one copy of a
            # line it gets twice, by its id)
            seen = max((line["id"] for line in history), default=0)
            with contextlib.suppress(Exception):
                for line in await node.chat.history(table_id, user):
                    if line["id"] > seen:
                        client.send({"type": "chat", "line": line})
        bucket = auth.TokenBucket(settings.message_rate, settings.message_burst)
        next_frame = _asgi_channel(ws)[0]

        async def receive() -> None:
            while True:
                frame = await next_frame()
                if frame["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(frame.get("code", 1000))
                raw = frame.get("text")
                if raw is None:  # a binary frame: the protocol is JSON text
                    client.send(_binary_refused())
                    continue
                if not bucket.allow():
                    client.send(
                        error_message(ErrorCode.RATE_LIMITED, "too many messages; slow down")
                    )
                    continue
                message = None
                try:
                    message = parse_client_message(raw)
                    await node.abandon.seen(live, client)
                    if isinstance(message, Sync):
                        client.send(svc.snapshot(live, client))
                    elif message.type == "ping":
                        client.send({"type": "pong", "ref": message.ref})
                    elif isinstance(message, Undo):
                        await svc.undo(live, client, message.version)
                    elif isinstance(message, Chat):
                        await node.chat.say_at_table(live, client, message)
                    elif isinstance(message, Abandon):
                        await node.abandon.vote(live, client, message.seat, message.vote)
                    else:
                        await svc.act(live, client, message.version, message.action)
                except ProtocolError as exc:
                    extra: dict[str, Any] = {"version": live.meta.version}
                    ref = getattr(message, "ref", None)
                    if ref is not None:
                        extra["ref"] = ref
                    client.send(error_message(exc.code, exc.message, **extra))
                except Exception:
                    log.exception("error on table %s", table_id)
                    client.send(
                        error_message(
                            ErrorCode.SERVER, "something went wrong on our side; nothing changed"
                        )
                    )

        try:
            await _pump(ws, client.queue, receive, lambda: client.close_code)
        finally:
            live.clients.discard(client)
            if user is not None:
                node.socket_closed(user.id, client)
                node.chat.unwatch(user.id)
            svc.release(live)

    async def _pump(
        ws: WebSocket,
        queue: asyncio.Queue[dict[str, Any] | str | None],
        receive: Any,
        close_code: Callable[[], int],
    ) -> None:
        """Send queued messages until the client goes; read its messages meanwhile. A None
        in the queue closes the socket with `close_code()` (1008: too slow to read; 1012:
        the node is stopping, reconnect)."""

        send = _asgi_channel(ws)[1]

        async def sender() -> None:
            while True:
                message = await queue.get()
                if message is None:
                    code = close_code()
                    reason = CLOSE_REASONS.get(code, "")
                    await ws.close(code=code, reason=reason)
                    return
                # a dict is encoded here: it may hold pre-encoded parts (orjson.Fragment)
                text = message if isinstance(message, str) else encode_json(message)
                await send({"type": "websocket.send", "text": text})

        tasks = [asyncio.create_task(sender()), asyncio.create_task(receive())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, Exception):
                    await task

    async def _table_out(
        request: Request, table: GameTable, user: User | None = None
    ) -> dict[str, Any]:
        """The table as anyone may see it; with its invite for a player seated at it."""
        match = node_of(request).match
        await match.learn_names(table.seats, table.created_by)
        await match.decks.preload([(table.game, table.options)])
        out = table_json(table, match.names)
        if table.private and seat_of(table, user) is not None:
            out["invite"] = table.invite_token
        return out

    # chat history, mute and block, reports, admins (chat_routes.py)
    helpers = RouteHelpers(current_user, require_user, _readable, errors, too_many)
    add_chat_routes(app, helpers)
    # presence, "my games", notifications (notify_routes.py)
    install_notify_routes(app, errors)
    # players' decks and their calibration (deck_routes.py)
    install_deck_routes(app, helpers)
    # game reviews (review_routes.py)
    add_review_routes(app, helpers)

    # the browser client: static files, no build step (src/coffeetable/web/static)
    app.mount("/", StaticFiles(directory=WEB_ROOT, html=True, check_dir=False), name="web")
    # the edge: Origin, JSON bodies, sockets per address, security headers (guard.py)
    app.add_middleware(
        EdgeGuard,
        allowed_origins=settings.allowed_origins,
        secure=settings.secure_cookies,
        sockets_per_address=settings.sockets_per_address,
    )
    return app


#: The lobby's list: the newest public tables.
LOBBY_SIZE = 200
CLOSE_REASONS = {
    1012: "the server is restarting: reconnect",
    LOGGED_OUT: "logged out: log in again",
}


def _asgi_channel(ws: WebSocket) -> tuple[Any, Any]:
    """The socket's `(receive, send)` as the ASGI server gave them (`guard.ASGI_CHANNEL`), for
    its messages once accepted: the same frames as through `ws.receive` and `ws.send_text`,
    without the framework's checks of the socket's state on every frame (it is connected: a
    disconnect ends the socket's tasks, and `ws.close` still goes through `ws`). A socket the
    edge did not see (an app without `EdgeGuard`) uses `ws`'s own."""
    channel = ws.scope.get(ASGI_CHANNEL)
    if channel is not None:
        return channel  # type: ignore[no-any-return]
    return ws.receive, ws.send


def _binary_refused() -> dict[str, Any]:
    return error_message(ErrorCode.BAD_JSON, "send JSON text frames, not binary frames")


async def current_user(request: Request) -> User | None:
    """The logged-in user of the request's session cookie, if any."""
    token = request.cookies.get(auth.SESSION_COOKIE)
    return await auth.user_of_token(request.app.state.storage, token)


async def require_user(user: Annotated[User | None, Depends(current_user)]) -> User:
    if user is None:
        raise ApiError(401, "login", "log in or play as a guest first")
    return user


async def rate_limited(request: Request) -> None:
    """Account routes: too many requests from one address get 429 (the limit is the site's,
    whichever node a request reaches)."""
    node: Node = request.app.state.node
    key = request.client.host if request.client else "?"
    wait = await node.limits.check(key)
    if wait is not None:
        raise too_many(wait)


def _check_game(game: str) -> None:
    if game not in game_names():
        raise ApiError(404, "unknown_game", f"unknown game {game!r}")


def user_json(user: User) -> dict[str, Any]:
    return {"id": user.id, "name": user.name, "guest": user.is_guest, "admin": user.is_admin}


def app_from_env() -> FastAPI:
    """The app configured from the environment (for `uvicorn --factory`)."""
    return create_app(
        Settings(
            database_url=os.environ.get("COFFEETABLE_DB") or default_database_url(),
            bot_workers=int(os.environ.get("COFFEETABLE_BOT_WORKERS", "1")),
            secure_cookies=os.environ.get("COFFEETABLE_SECURE_COOKIES") == "1",
        )
    )
