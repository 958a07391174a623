"""Decks in the SQL storage (SQLite and PostgreSQL): deck and card files stored once by
SHA-256, who has them and who else may use them, and their calibration runs. A part of
`SqlStorage` (a base class of it), kept in its own file; the same transactions and helpers.
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from coffeetable.server.storage.errors import AlreadyExistsError, NotFoundError
from coffeetable.server.storage.records import (
    DECK_VISIBILITIES,
    Calibration,
    DeckFile,
    DeckVisibility,
    JSONObject,
    UserDeck,
)
from coffeetable.server.storage.rows import insert_ignoring_duplicates
from coffeetable.server.storage.schema import deck_calibrations, deck_files, user_decks, users

_FILE_COLUMNS = (
    deck_files.c.sha256,
    deck_files.c.game,
    deck_files.c.name,
    deck_files.c.cards,
    deck_files.c.reconstructed,
    deck_files.c.provenance,
)


def _file_fields(row: Any) -> dict[str, Any]:
    """What a `deck_files` row says of its file, but its text."""
    return {
        "sha256": row.sha256,
        "game": row.game,
        "name": row.name,
        "cards": row.cards,
        "reconstructed": row.reconstructed,
        "provenance": dict(row.provenance or {}),
    }


def _user_deck(row: Any) -> UserDeck:
    return UserDeck(
        **_file_fields(row),
        owner_id=row.owner_id,
        owner_name=row.owner_name,
        visibility=row.visibility,
        created_at=row.created_at,
    )


def _calibration(row: Any) -> Calibration:
    return Calibration(
        sha256=row.sha256,
        status=row.status,
        requested_by=row.requested_by,
        requested_at=row.requested_at,
        finished_at=row.finished_at,
        figures=row.figures,
        error=row.error,
    )


def _user_decks_query() -> sa.Select[Any]:
    return (
        sa.select(
            *_FILE_COLUMNS,
            user_decks.c.owner_id,
            users.c.name.label("owner_name"),
            user_decks.c.visibility,
            user_decks.c.created_at,
        )
        .join(deck_files, deck_files.c.sha256 == user_decks.c.sha256)
        .join(users, users.c.id == user_decks.c.owner_id)
    )


class DeckSql:
    """The deck methods of `SqlStorage` (see `Storage` in base.py)."""

    if TYPE_CHECKING:  # provided by SqlStorage

        def _read(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

        def _write(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

        def _now(self) -> datetime: ...

    async def add_deck(
        self,
        file: DeckFile,
        owner_id: int,
        visibility: DeckVisibility,
        *,
        max_decks: int | None = None,
    ) -> UserDeck:
        if visibility not in DECK_VISIBILITIES:
            raise ValueError(f"unknown visibility {visibility!r}")
        now = self._now()
        async with self._write() as conn:
            name = await conn.scalar(sa.select(users.c.name).where(users.c.id == owner_id))
            if name is None:
                raise NotFoundError(f"there is no user with id {owner_id}")
            mine = user_decks.c.owner_id == owner_id
            if (
                await conn.scalar(
                    sa.select(user_decks.c.sha256).where(mine, user_decks.c.sha256 == file.sha256)
                )
                is not None
            ):
                raise AlreadyExistsError("you already have this deck")
            if max_decks is not None:
                count = await conn.scalar(sa.select(sa.func.count()).where(mine))
                if int(count or 0) >= max_decks:
                    raise OverflowError(f"a player may keep at most {max_decks} decks")
            # the text once, whoever stored it first (the same SHA-256: the same text)
            file_row = {
                "sha256": file.sha256,
                "game": file.game,
                "name": file.name,
                "cards": file.cards,
                "reconstructed": file.reconstructed,
                "provenance": file.provenance,
                "text": file.text,
                "created_at": now,
            }
            await conn.execute(insert_ignoring_duplicates(conn, deck_files, [file_row]))
            mine_row = {
                "sha256": file.sha256,
                "owner_id": owner_id,
                "visibility": visibility,
                "created_at": now,
            }
            added = await conn.execute(insert_ignoring_duplicates(conn, user_decks, [mine_row]))
            if not added.rowcount:  # the same upload twice at once
                raise AlreadyExistsError("you already have this deck")
            row = (
                await conn.execute(
                    _user_decks_query().where(
                        user_decks.c.sha256 == file.sha256, user_decks.c.owner_id == owner_id
                    )
                )
            ).one()
        return _user_deck(row)

    async def deck_file(self, sha256: str) -> DeckFile | None:
        async with self._read() as conn:
            row = (
                await conn.execute(sa.select(deck_files).where(deck_files.c.sha256 == sha256))
            ).first()
        if row is None:
            return None
        return DeckFile(**_file_fields(row), text=row.text, created_at=row.created_at)

    async def deck_owners(self, sha256: str) -> list[UserDeck]:
        async with self._read() as conn:
            rows = (
                await conn.execute(
                    _user_decks_query()
                    .where(user_decks.c.sha256 == sha256)
                    .order_by(user_decks.c.created_at, user_decks.c.owner_id)
                )
            ).all()
        return [_user_deck(row) for row in rows]

    async def usable_decks(
        self, user_id: int | None, friend_ids: Collection[int], game: str | None = None
    ) -> list[UserDeck]:
        u = user_decks.c
        who = [u.visibility == "public"]
        if user_id is not None:
            who.append(u.owner_id == user_id)
        if friend_ids:
            who.append(sa.and_(u.visibility == "friends", u.owner_id.in_(list(friend_ids))))
        query = _user_decks_query().where(sa.or_(*who))
        if game is not None:
            query = query.where(deck_files.c.game == game)
        async with self._read() as conn:
            rows = (await conn.execute(query.order_by(u.created_at.desc()).limit(1000))).all()
        return [_user_deck(row) for row in rows]

    async def set_deck_visibility(
        self, sha256: str, owner_id: int, visibility: DeckVisibility
    ) -> bool:
        if visibility not in DECK_VISIBILITIES:
            raise ValueError(f"unknown visibility {visibility!r}")
        async with self._write() as conn:
            result = await conn.execute(
                sa.update(user_decks)
                .where(user_decks.c.sha256 == sha256, user_decks.c.owner_id == owner_id)
                .values(visibility=visibility)
            )
        return bool(result.rowcount)

    async def delete_deck(self, sha256: str, owner_id: int) -> bool:
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(user_decks).where(
                    user_decks.c.sha256 == sha256, user_decks.c.owner_id == owner_id
                )
            )
        return bool(result.rowcount)

    # --- calibration ----------------------------------------------------------------------
    async def calibration(self, sha256: str) -> Calibration | None:
        async with self._read() as conn:
            row = (
                await conn.execute(
                    sa.select(deck_calibrations).where(deck_calibrations.c.sha256 == sha256)
                )
            ).first()
        return None if row is None else _calibration(row)

    async def queue_calibration(
        self,
        sha256: str,
        user_id: int,
        *,
        since: datetime,
        per_user: int,
        stale_before: datetime | None = None,
    ) -> Calibration:
        c = deck_calibrations.c
        now = self._now()
        async with self._write() as conn:
            row = (
                await conn.execute(sa.select(deck_calibrations).where(c.sha256 == sha256))
            ).first()
            if (
                row is not None
                and row.status in ("queued", "running")
                and (stale_before is None or row.requested_at >= stale_before)
            ):
                raise AlreadyExistsError("a calibration of this deck is under way")
            recent = await conn.scalar(
                sa.select(sa.func.count()).where(c.requested_by == user_id, c.requested_at >= since)
            )
            if int(recent or 0) >= per_user:
                raise OverflowError(f"at most {per_user} calibration runs a day")
            values: dict[str, Any] = {
                "status": "queued",
                "requested_by": user_id,
                "requested_at": now,
                "finished_at": None,
                "figures": None,
                "error": None,
            }
            if row is None:
                added = await conn.execute(
                    insert_ignoring_duplicates(
                        conn, deck_calibrations, [{"sha256": sha256, **values}]
                    )
                )
                if not added.rowcount:  # asked twice at once
                    raise AlreadyExistsError("a calibration of this deck is under way")
            else:
                # compare-and-set on the status read: two requests at once queue one run
                done = await conn.execute(
                    sa.update(deck_calibrations)
                    .where(
                        c.sha256 == sha256,
                        c.status == row.status,
                        c.requested_at == row.requested_at,
                    )
                    .values(**values)
                )
                if not done.rowcount:
                    raise AlreadyExistsError("a calibration of this deck is under way")
            row = (await conn.execute(sa.select(deck_calibrations).where(c.sha256 == sha256))).one()
        return _calibration(row)

    async def finish_calibration(
        self,
        sha256: str,
        status: str,
        figures: JSONObject | None = None,
        error: str | None = None,
    ) -> None:
        if status not in ("running", "done", "failed"):
            raise ValueError(f"unknown calibration status {status!r}")
        values: dict[str, Any] = {"status": status}
        if status != "running":
            values.update(finished_at=self._now(), figures=figures, error=error)
        async with self._write() as conn:
            await conn.execute(
                sa.update(deck_calibrations)
                .where(deck_calibrations.c.sha256 == sha256)
                .values(**values)
            )
