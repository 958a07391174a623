"""The HTTP routes and the WebSocket of presence, "my games" and notifications (docs/server.md):

- `GET /api/me/games`: the player's own tables, "your move" first (nobody else's);
- `GET /api/me/settings`, `POST /api/me/settings`: their notification settings and e-mail;
- `POST /api/unsubscribe` (the page the mail links to) and `POST /api/unsubscribe/one-click`
  (RFC 8058, what mail programs post for List-Unsubscribe): turn off every mail, logged out;
- `GET /api/presence?users=A,B`, `GET /api/online`: presence over HTTP;
- `GET /ws/user`: the person's own channel (userchannel.py).

Installed on the app by `install` (app.py), which hands over the app's OpenAPI error table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field

from coffeetable.server import auth
from coffeetable.server.livetable import TableError, encode_json
from coffeetable.server.mail import LANGUAGES, check_unsubscribe_token
from coffeetable.server.notify import (
    DIGEST_CHOICES,
    EMAIL,
    MAX_EMAIL,
    PREFS,
    RECENT_GAMES,
    my_games_json,
    prefs_of,
    settings_json,
)
from coffeetable.server.protocol import ErrorCode, ProtocolError, error_message
from coffeetable.server.storage import Storage, User
from coffeetable.server.userchannel import Channel, parse_user_message, state_json

log = logging.getLogger("coffeetable.server")

Errors = Callable[..., dict[int | str, dict[str, Any]]]


class SettingsChange(BaseModel):
    """The settings to change; a field left out stays as it is. `email: null` removes the
    address."""

    model_config = ConfigDict(extra="forbid", strict=True)
    email: str | None = Field(default="", max_length=MAX_EMAIL)
    language: str | None = Field(default=None, max_length=8)
    sound: bool | None = None
    browser: bool | None = None
    mail: bool | None = None
    mail_your_move: bool | None = None
    mail_ended: bool | None = None
    mail_invitation: bool | None = None
    digest: int | None = Field(default=None, description=f"minutes: one of {DIGEST_CHOICES}")


class Unsubscribe(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=100)


async def _me(request: Request) -> User:
    user = await auth.user_of_token(
        request.app.state.storage, request.cookies.get(auth.SESSION_COOKIE)
    )
    if user is None:
        raise TableError(401, "login", "log in or play as a guest first")
    return user


Me = Annotated[User, Depends(_me)]


def install(app: FastAPI, errors: Errors) -> None:
    """Add the routes to `app`."""

    def node_of(request: Request | WebSocket) -> Any:
        return request.app.state.node

    @app.get("/api/me/games", tags=["notifications"], responses=errors(401))
    async def my_games(request: Request, user: Me) -> list[dict[str, Any]]:
        """Your tables: your move first (the least time left first), then your other running
        tables, the open ones, and your latest finished games. `your_move`, `time_left`
        (seconds on your clock, or null without a limit) and `turn_since` per table. Only
        your own: there is no such list of anybody else's."""
        node = node_of(request)
        rows = await node.storage.player_tables(user.id, recent=RECENT_GAMES)
        for row in rows:
            await node.match.learn_names(row.table.seats, row.table.created_by)
        return my_games_json(rows, node.match.names)

    @app.get("/api/me/settings", tags=["notifications"], responses=errors(401))
    async def get_settings(request: Request, user: Me) -> dict[str, Any]:
        """Your notification settings and e-mail address (shown to you only)."""
        node = node_of(request)
        settings = await node.storage.get_settings(user.id)
        return settings_json(settings, node.notifier.mail_available)

    @app.post(
        "/api/me/settings", tags=["notifications"], responses=errors(400, 401, 403, changing=True)
    )
    async def change_settings(
        request: Request, user: Me, body: SettingsChange | None = None
    ) -> dict[str, Any]:
        """Change some of your settings. An e-mail address must look like one (400
        `invalid_email`); guests cannot have one (403 `guest`: register first)."""
        node = node_of(request)
        storage: Storage = node.storage
        change = body or SettingsChange()
        current = await storage.get_settings(user.id)
        email = current.email
        if change.email != "":  # given: a new address, or null to remove it
            if change.email is not None:
                address = change.email.strip()
                if user.is_guest:
                    raise TableError(403, "guest", "guests cannot get mail: register first")
                if not EMAIL.match(address):
                    raise TableError(
                        400, "invalid_email", f"{address[:80]!r} is not an e-mail address"
                    )
                email = address
            else:
                email = None
        language = current.language
        if change.language is not None:
            if change.language not in LANGUAGES:
                raise TableError(
                    400,
                    "invalid",
                    f"language must be one of {', '.join(LANGUAGES)}, not {change.language!r}",
                )
            language = change.language
        prefs = prefs_of(current)
        for key in PREFS:
            value = getattr(change, key, None)
            if value is None:
                continue
            if key == "digest" and value not in DIGEST_CHOICES:
                raise TableError(
                    400,
                    "invalid",
                    f"digest must be one of {', '.join(map(str, DIGEST_CHOICES))} minutes",
                )
            prefs[key] = value
        saved = await storage.save_settings(user.id, email=email, language=language, prefs=prefs)
        return settings_json(saved, node.notifier.mail_available)

    async def _unsubscribe(request: Request, token: str) -> dict[str, Any]:
        storage: Storage = node_of(request).storage
        user_id = check_unsubscribe_token(await storage.site_secret("unsubscribe"), token)
        user = await storage.get_user(user_id) if user_id is not None else None
        if user is None:
            raise TableError(
                400, "invalid_token", "this unsubscribe link is not valid (copied whole?)"
            )
        settings = await storage.get_settings(user.id)
        prefs = prefs_of(settings)
        prefs["mail"] = False
        await storage.save_settings(
            user.id, email=settings.email, language=settings.language, prefs=prefs
        )
        log.info("user %d unsubscribed from all mail", user.id)
        return {"ok": True, "name": user.name}

    @app.post("/api/unsubscribe", tags=["notifications"], responses=errors(400, 422, changing=True))
    async def unsubscribe(request: Request, body: Unsubscribe) -> dict[str, Any]:
        """Stop every mail to the account of the token (from a mail's link); no login
        needed. Turn mail on again on the settings page."""
        return await _unsubscribe(request, body.token)

    @app.post(
        "/api/unsubscribe/one-click",
        tags=["notifications"],
        responses=errors(400, 422, changing=True),
    )
    async def unsubscribe_one_click(
        request: Request, token: Annotated[str, Query(min_length=1, max_length=100)]
    ) -> dict[str, Any]:
        """RFC 8058 one-click unsubscribing: the `List-Unsubscribe` URL of every mail,
        posted by mail programs with the form body `List-Unsubscribe=One-Click`."""
        return await _unsubscribe(request, token)

    @app.get("/api/presence", tags=["notifications"], responses=errors(400))
    async def presence(
        request: Request,
        users: Annotated[str, Query(min_length=1, max_length=1400, description="names, a,b,c")],
    ) -> dict[str, Any]:
        """Whether each of these people is online, away or offline, and since when (unknown
        names are left out). At most 32 names."""
        names = [n.strip() for n in users.split(",") if n.strip()]
        if not names or len(names) > 32:
            raise TableError(400, "invalid", "give 1 to 32 names, separated by commas")
        node = node_of(request)
        found: dict[int, str] = {}
        for name in names:
            user = await node.storage.get_user_by_name(name)
            if user is not None:
                found[user.id] = user.name
        states = await node.presence.states(found)
        return {"users": {found[u]: state_json(s) for u, s in states.items()}}

    @app.get("/api/online", tags=["notifications"])
    async def online(request: Request) -> dict[str, Any]:
        """How many people are on the site now (online or away)."""
        return {"count": await node_of(request).presence.online_count()}

    @app.websocket("/ws/user")
    async def user_socket(ws: WebSocket) -> None:
        node = node_of(ws)
        channels = node.channels
        token = ws.cookies.get(auth.SESSION_COOKIE)
        user = await auth.user_of_token(node.storage, token)
        await ws.accept()
        channel = Channel(user=user)
        hidden = ws.query_params.get("hidden") == "1"
        your_move: list[dict[str, Any]] = []
        if user is not None:
            channel.session = auth.token_hash(token or "")
            node.socket_opened(user.id, channel)
            rows = await node.storage.player_tables(user.id, recent=0)
            your_move = [{"table": r.table.id, "game": r.table.game} for r in rows if r.to_move]
        await channels.opened(channel, hidden)
        count = await node.presence.online_count()
        channel.send(
            {
                "type": "welcome",
                "user": user.name if user is not None else None,
                "online": count,
                "your_move": your_move,
            }
        )
        bucket = auth.RateLimiter(node.settings.message_rate, node.settings.message_burst)

        async def receive() -> None:
            while True:
                frame = await ws.receive()
                if frame["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(frame.get("code", 1000))
                raw = frame.get("text")
                if raw is None:
                    channel.send(
                        error_message(ErrorCode.BAD_JSON, "send JSON text frames, not binary")
                    )
                    continue
                if not bucket.allow("ws"):
                    channel.send(error_message(ErrorCode.RATE_LIMITED, "too many messages"))
                    continue
                try:
                    await channels.handle(channel, parse_user_message(raw))
                except ProtocolError as exc:
                    channel.send(error_message(exc.code, exc.message))
                except Exception:
                    log.exception("error on a user channel")
                    channel.send(
                        error_message(
                            ErrorCode.SERVER, "something went wrong on our side; nothing changed"
                        )
                    )

        async def sender() -> None:
            while True:
                message = await channel.queue.get()
                if message is None:
                    await ws.close(code=channel.close_code)
                    return
                await ws.send_text(message if isinstance(message, str) else encode_json(message))

        tasks = [asyncio.create_task(sender()), asyncio.create_task(receive())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, Exception):
                    await task
            if user is not None:
                node.socket_closed(user.id, channel)
            await channels.closed(channel)
