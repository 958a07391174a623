"""The HTTP routes of game reviews (reviews.py, docs/server.md "Game reviews"):

- `POST /api/tables/{id}/review` (`{"budget": "quick"}`): ask for a finished game's review;
  202 with its status (queued, running, done, failed), the review itself once done;
- `GET /api/tables/{id}/review?budget=quick`: the review's status, or the review;
- `GET /api/tables/{id}/review/moves/{index}?budget=quick`: a reviewed move: the public
  view before it, after the move made and after the move suggested.

Whoever may read the table (its replay) may read its review; asking for one needs a user
(a guest too), whose queue and daily budget it counts toward. `add_review_routes` is called
by `app.create_app` with the app's request helpers (chat_routes.RouteHelpers).
No `from __future__ import annotations` here: FastAPI must see the dependencies as objects.
"""

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from coffeetable.server.chat_routes import Invite, RouteHelpers
from coffeetable.server.storage import User

Budget = Annotated[str | None, Query(max_length=20, description="quick (default) or deep")]


class ReviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    budget: str | None = Field(default=None, max_length=20, description="quick or deep")


def add_review_routes(app: FastAPI, helpers: RouteHelpers) -> None:
    errors = helpers.errors
    CurrentUser = Annotated[User | None, Depends(helpers.current_user)]
    RequiredUser = Annotated[User, Depends(helpers.require_user)]

    def reviews_of(request: Request) -> Any:
        return request.app.state.node.reviews

    @app.post(
        "/api/tables/{table_id}/review",
        tags=["records"],
        status_code=202,
        responses=errors(401, 403, 404, 409, 429, changing=True),
    )
    async def ask_review(
        table_id: str,
        request: Request,
        user: RequiredUser,
        body: ReviewRequest | None = None,
        invite: Invite = None,
    ) -> dict[str, Any]:
        """Ask for the finished game's review (409 `not_finished` while it runs). Made once
        per game and budget on the bot workers; 429 `rate_limited` beyond your queue (one
        at a time) or your daily budget. A review already asked for is answered at once."""
        await helpers.readable(request, table_id, user, invite)
        result: dict[str, Any] = await reviews_of(request).request(
            table_id, user, body.budget if body else None
        )
        return result

    @app.get("/api/tables/{table_id}/review", tags=["records"], responses=errors(400, 403, 404))
    async def get_review(
        table_id: str,
        request: Request,
        user: CurrentUser,
        budget: Budget = None,
        invite: Invite = None,
    ) -> dict[str, Any]:
        """The game's review at that budget: its status, its progress while it runs, the
        review once done (404 `no_review` if nobody has asked for it)."""
        await helpers.readable(request, table_id, user, invite)
        result: dict[str, Any] = await reviews_of(request).get(table_id, budget)
        return result

    @app.get(
        "/api/tables/{table_id}/review/moves/{index}",
        tags=["records"],
        responses=errors(400, 403, 404, 409),
    )
    async def review_move(
        table_id: str,
        request: Request,
        user: CurrentUser,
        index: Annotated[int, Path(ge=0, le=100_000)],
        budget: Budget = None,
        invite: Invite = None,
    ) -> dict[str, Any]:
        """A reviewed move: the public views before it, after the move made and after the
        move suggested (either None for a step inside a multi-step record action)."""
        await helpers.readable(request, table_id, user, invite)
        result: dict[str, Any] = await reviews_of(request).compare(table_id, index, budget)
        return result
