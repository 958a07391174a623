"""What the HTTP and WebSocket edge refuses before any route runs (docs/server.md, "Limits and
safety"): requests and socket handshakes from another site (Origin), state-changing requests
whose body is not JSON (a cross-site form or `text/plain` post), and more sockets from one
address than a node allows; and the security headers every answer carries.

A pure ASGI middleware: it sees every HTTP request and WebSocket handshake, and changes the
headers of every answer, static files and errors included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import orjson

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Methods that change something: they need the site's own Origin (when a browser sends one)
#: and a JSON body (when they have one).
CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: The one-click unsubscribe route (notify_routes.py) and the bodies mail programs post to it.
ONE_CLICK = "/api/unsubscribe/one-click"
ONE_CLICK_MEDIA = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
#: The deck routes (deck_routes.py) and the deck file bodies they take besides JSON: a
#: cross-site page's text/plain post carries its Origin, refused above.
DECK_PATHS = frozenset({"/api/decks", "/api/decks/check"})
DECK_MEDIA = frozenset({"text/plain", "application/toml"})

#: The browser client loads its scripts, styles, images and data from the site itself and
#: talks to it over fetch and WebSockets; nothing may frame it.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]
#: Strict-Transport-Security, on answers given over HTTPS (or with --secure-cookies): a year.
HSTS = (b"strict-transport-security", b"max-age=31536000")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def origin_allowed(origin: str, host: str | None, allowed: list[str]) -> bool:
    """Whether a browser's `Origin` may change things here: one of `allowed` (scheme, host and
    port, as `https://play.example`), or, with none listed, the request's own `Host`."""
    origin = origin.strip().rstrip("/").lower()
    if allowed:
        return origin in {a.strip().rstrip("/").lower() for a in allowed}
    if not host:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == host.strip().lower()


#: Where a WebSocket's scope holds the ASGI server's own `(receive, send)`, as the edge got
#: them. A socket's messages are read and written through these: the framework's layers
#: above them (Starlette's `WebSocket.receive`/`send_text`/`send` and the exception
#: handlers' wrapper of `send`, which only notes when an HTTP response starts) are three or
#: four coroutine calls a frame that check nothing a connected socket needs (docs/server.md,
#: "The hot path, ninth pass").
ASGI_CHANNEL = "coffeetable.asgi"


class EdgeGuard:
    """The middleware. `secure`: every answer is sent as over HTTPS (--secure-cookies)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_origins: list[str],
        secure: bool,
        sockets_per_address: int,
    ) -> None:
        self.app = app
        self.allowed_origins = allowed_origins
        self.secure = secure
        self.sockets_per_address = sockets_per_address
        #: open WebSockets per client address, on this node
        self.sockets: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        extra = list(SECURITY_HEADERS)
        if self.secure or scope.get("scheme") == "https":
            extra.append(HSTS)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in {name for name, _ in extra}
                ]
                message["headers"] = headers + extra
            await send(message)

        if scope["method"] in CHANGING:
            refusal = self._refuse_change(scope)
            if refusal is not None:
                status, code, text = refusal
                await _json_answer(send_with_headers, status, code, text)
                return
        await self.app(scope, receive, send_with_headers)

    def _refuse_change(self, scope: Scope) -> tuple[int, str, str] | None:
        origin = _header(scope, b"origin")
        if origin is not None and not origin_allowed(
            origin, _header(scope, b"host"), self.allowed_origins
        ):
            return 403, "origin", f"requests from {origin} may not change anything here"
        # A form or text/plain post is what a page of another site can send without asking
        # (no CORS preflight): refused. A body without any Content-Type (a program's, or a
        # Blob posted by a page, which carries an Origin and is judged by it above) is read
        # as JSON.
        content_type = _header(scope, b"content-type")
        if content_type is not None:
            media = content_type.split(";", 1)[0].strip().lower()
            if scope.get("path") == ONE_CLICK and media in ONE_CLICK_MEDIA:
                # RFC 8058: mail programs post a form to a mail's List-Unsubscribe URL; its
                # token, not a cookie, says whose mail stops (so a forged post does nothing)
                return None
            if scope.get("path") in DECK_PATHS and media in DECK_MEDIA:
                return None  # a deck file's text (its Origin, if any, was judged above)
            if media != "application/json":
                return (
                    415,
                    "content_type",
                    "send the body as JSON, with Content-Type: application/json",
                )
        return None

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = _header(scope, b"origin")
        if origin is not None and not origin_allowed(
            origin, _header(scope, b"host"), self.allowed_origins
        ):
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        address = (scope.get("client") or ("?", 0))[0]
        if self.sockets[address] >= self.sockets_per_address:
            await send({"type": "websocket.close", "code": 1008})
            return
        self.sockets[address] += 1
        # the server's own receive and send, for the sockets' hot path under the framework's
        # wrappers (app.py, `_asgi_channel`)
        scope[ASGI_CHANNEL] = (receive, send)
        try:
            await self.app(scope, receive, send)
        finally:
            self.sockets[address] -= 1
            if self.sockets[address] <= 0:
                del self.sockets[address]


async def _json_answer(send: Send, status: int, code: str, message: str) -> None:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
