"""The HTTP routes of players' decks (issue 39; docs/server.md, "Decks"):

- `POST /api/decks/check?game=`: check a deck file or its JSON model, no login needed;
- `POST /api/decks?game=&visibility=`: upload one (stored once by its canonical SHA-256);
- `GET /api/decks?game=`: the decks the caller may use; `GET /api/decks/{sha256}` and
  `/file`: one deck's metadata and canonical text; `PATCH` (visibility) and `DELETE` by its
  owner;
- `POST /api/decks/{sha256}/calibrate`, `GET /api/decks/{sha256}/calibration`: a bounded bot
  calibration run on the bot workers, and its figures.

A deck the caller may not use is answered 404 `deck_not_found`, as if it did not exist.
Installed on the app by `install` (app.py), which hands over the app's helpers.
"""

import re
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from coffeetable.server.chat_routes import RouteHelpers
from coffeetable.server.decks import MAX_DECK_BYTES, InvalidDeck, deck_json, read_body
from coffeetable.server.livetable import TableError
from coffeetable.server.storage import User

#: A deck's sha256 in a route's path.
Sha256 = Annotated[
    str, PathParam(pattern="^[0-9a-fA-F]{64}$", description="the deck's sha256 (64 hex digits)")
]
Game = Annotated[Literal["cafe", "coffee-rush"], Query(description="the deck's game")]
Visibility = Literal["private", "friends", "public"]


class VisibilityChange(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    visibility: Visibility


async def _body(request: Request) -> bytes:
    """The request body, read no further than the deck size limit (413 beyond it)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_DECK_BYTES:
        raise TableError(
            413, "too_large", f"a deck file may be at most {MAX_DECK_BYTES // 1024} KiB"
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_DECK_BYTES:
            raise TableError(
                413, "too_large", f"a deck file may be at most {MAX_DECK_BYTES // 1024} KiB"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _download_name(name: str, sha256: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:40].lower() or "deck"
    return f"{slug}-{sha256[:12]}.toml"


def install(app: FastAPI, helpers: RouteHelpers) -> None:
    """Add the routes to `app`."""
    errors = helpers.errors
    CurrentUser = Annotated[User | None, Depends(helpers.current_user)]
    RequiredUser = Annotated[User, Depends(helpers.require_user)]

    def node_of(request: Request) -> Any:
        return request.app.state.node

    @app.exception_handler(InvalidDeck)
    async def _invalid_deck(request: Request, exc: InvalidDeck) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message, "problems": exc.problems}},
            status_code=exc.status,
        )

    @app.post(
        "/api/decks/check", tags=["decks"], responses=errors(400, 404, 413, 429, changing=True)
    )
    async def check_deck(game: Game, request: Request) -> dict[str, Any]:
        """Check a deck file exactly as `coffeetable deck check` does. The body is the
        file's text (`text/plain` or `application/toml`) or `{"model": ...}` (JSON). The
        answer has the canonical text and its sha256, the model, every problem and the
        drawing data of the cards that could be read; nothing is stored."""
        address = request.client.host if request.client else "?"
        wait = await node_of(request).deck_limits.check(address)
        if wait is not None:
            raise helpers.too_many(wait, "deck checks")
        checked = read_body(game, await _body(request), request.headers.get("content-type"))
        return checked.to_json()

    @app.api_route(
        "/api/decks/check", methods=["GET", "PUT", "PATCH", "DELETE"], include_in_schema=False
    )
    async def check_other_methods() -> None:
        """`/api/decks/check` is no deck's sha256: other methods than POST are not allowed
        there (405 with `Allow: POST`), rather than taken for `/api/decks/{sha256}`'s."""
        raise StarletteHTTPException(405)

    @app.post(
        "/api/decks",
        tags=["decks"],
        status_code=201,
        responses=errors(400, 401, 403, 409, 413, 429, changing=True),
    )
    async def upload_deck(
        game: Game,
        request: Request,
        user: RequiredUser,
        visibility: Annotated[Visibility, Query()] = "private",
    ) -> dict[str, Any]:
        """Keep a deck file (body as for the check), stored once by the sha256 of its
        canonical text: 400 `invalid_deck` with its `problems`, 409 `deck_exists` if you
        have it already."""
        node = node_of(request)
        wait = await node.deck_limits.check(f"user:{user.id}")
        if wait is not None:
            raise helpers.too_many(wait, "deck uploads")
        checked = read_body(game, await _body(request), request.headers.get("content-type"))
        deck = await node.decks.upload(user, checked, visibility)
        return deck_json(deck)

    @app.get("/api/decks", tags=["decks"])
    async def list_decks(
        request: Request,
        user: CurrentUser,
        game: Annotated[Literal["cafe", "coffee-rush"] | None, Query()] = None,
    ) -> list[dict[str, Any]]:
        """The decks you may use: yours, your friends' "friends" decks and the public ones
        (the default decks are not listed)."""
        listed: list[dict[str, Any]] = await node_of(request).decks.listed(user, game)
        return listed

    @app.get("/api/decks/{sha256}", tags=["decks"], responses=errors(404))
    async def get_deck(sha256: Sha256, request: Request, user: CurrentUser) -> dict[str, Any]:
        return deck_json(await node_of(request).decks.usable(user, sha256))

    @app.get("/api/decks/{sha256}/file", tags=["decks"], responses=errors(404))
    async def deck_file(sha256: Sha256, request: Request, user: CurrentUser) -> Response:
        """The deck's canonical TOML text (what `coffeetable inspect --deck` replays with)."""
        deck, text = await node_of(request).decks.text(user, sha256)
        return Response(
            text,
            media_type="text/plain; charset=utf-8",
            headers={
                "Content-Disposition": (
                    f'attachment; filename="{_download_name(deck.name, sha256)}"'
                )
            },
        )

    @app.patch(
        "/api/decks/{sha256}", tags=["decks"], responses=errors(401, 403, 404, changing=True)
    )
    async def change_deck(
        sha256: Sha256, body: VisibilityChange, request: Request, user: RequiredUser
    ) -> dict[str, Any]:
        """Who else may use your deck."""
        return deck_json(await node_of(request).decks.set_visibility(user, sha256, body.visibility))

    @app.delete(
        "/api/decks/{sha256}", tags=["decks"], responses=errors(401, 403, 404, changing=True)
    )
    async def delete_deck(sha256: Sha256, request: Request, user: RequiredUser) -> dict[str, Any]:
        """You no longer keep the deck; the tables played with it keep working."""
        return {"deleted": await node_of(request).decks.delete(user, sha256)}

    @app.post(
        "/api/decks/{sha256}/calibrate",
        tags=["decks"],
        status_code=202,
        responses=errors(401, 404, 409, 429, changing=True),
    )
    async def calibrate_deck(
        sha256: Sha256, request: Request, user: RequiredUser
    ) -> dict[str, Any]:
        """Queue a bounded bot calibration run of the deck on the bot workers (409 if one
        is under way; a few runs per user a day)."""
        await node_of(request).decks.calibrate(user, sha256)
        return {"status": "queued"}

    @app.get("/api/decks/{sha256}/calibration", tags=["decks"], responses=errors(404))
    async def deck_calibration(
        sha256: Sha256, request: Request, user: CurrentUser
    ) -> dict[str, Any]:
        """The deck's last calibration run: `none`, `queued`, `running`, `done` (with its
        figures, as in docs/cafe-deck-design.md) or `failed`."""
        result: dict[str, Any] = await node_of(request).decks.calibration(user, sha256)
        return result
