"""Chat and moderation in the SQL storage (SQLite and PostgreSQL): chat lines, mutes and
blocks, reports, the admin role and suspensions. A part of `SqlStorage` (a base class of it),
kept in its own file; the same transactions and helpers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from coffeetable.server.storage.errors import NotFoundError
from coffeetable.server.storage.records import ChatLine, Report
from coffeetable.server.storage.schema import (
    chat_lines,
    reports,
    user_blocks,
    user_mutes,
    users,
)

#: The roles a user may have.
ROLES = ("player", "admin")


class ChatSql:
    """The chat and moderation methods of `SqlStorage` (see `Storage` in base.py)."""

    if TYPE_CHECKING:  # provided by SqlStorage

        def _read(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

        def _write(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

        def _now(self) -> datetime: ...

    # --- chat lines -------------------------------------------------------------------------
    async def add_chat_line(
        self,
        table_id: str | None,
        user_id: int,
        *,
        text: str | None = None,
        preset: str | None = None,
        seat: int | None = None,
        spectator: bool = False,
        moves: int | None = None,
    ) -> ChatLine:
        if (text is None) == (preset is None):
            raise ValueError("a chat line has either text or a preset, not both or neither")
        now = self._now()
        async with self._write() as conn:
            name = await conn.scalar(sa.select(users.c.name).where(users.c.id == user_id))
            if name is None:
                raise NotFoundError(f"there is no user with id {user_id}")
            try:
                line_id = await conn.scalar(
                    sa.insert(chat_lines)
                    .values(
                        table_id=table_id,
                        user_id=user_id,
                        seat=seat,
                        spectator=spectator,
                        text=text,
                        preset=preset,
                        moves=moves,
                        created_at=now,
                    )
                    .returning(chat_lines.c.id)
                )
            except IntegrityError:
                raise NotFoundError(f"there is no table {table_id!r}") from None
        assert line_id is not None
        return ChatLine(
            id=line_id,
            table_id=table_id,
            user_id=user_id,
            user_name=name,
            seat=seat,
            spectator=spectator,
            text=text,
            preset=preset,
            moves=moves,
            created_at=now,
        )

    async def chat_lines(
        self, table_id: str | None, *, limit: int = 100, reader: int | None = None
    ) -> list[ChatLine]:
        if limit < 0:
            raise ValueError(f"limit must be 0 or more, not {limit}")
        query = _room_lines_query(table_id is not None, reader is not None)
        parameters = {"table_id": table_id, "reader": reader, "limit": limit}
        async with self._read() as conn:
            rows = (await conn.execute(query, parameters)).all()
        return [_line(row) for row in reversed(rows)]

    async def get_chat_line(self, line_id: int) -> ChatLine | None:
        async with self._read() as conn:
            row = (await conn.execute(_line_query().where(chat_lines.c.id == line_id))).first()
        return None if row is None else _line(row)

    async def chat_context(self, line_id: int, before: int = 5, after: int = 2) -> list[ChatLine]:
        line = await self.get_chat_line(line_id)
        if line is None:
            return []
        room = (
            chat_lines.c.table_id.is_(None)
            if line.table_id is None
            else chat_lines.c.table_id == line.table_id
        )
        earlier = (
            _line_query()
            .where(room, chat_lines.c.id < line_id)
            .order_by(chat_lines.c.id.desc())
            .limit(before)
        )
        later = (
            _line_query()
            .where(room, chat_lines.c.id > line_id)
            .order_by(chat_lines.c.id)
            .limit(after)
        )
        async with self._read() as conn:
            first = [_line(r) for r in reversed((await conn.execute(earlier)).all())]
            last = [_line(r) for r in (await conn.execute(later)).all()]
        return [*first, line, *last]

    # --- mutes and blocks -------------------------------------------------------------------
    async def set_muted(self, user_id: int, other_id: int, muted: bool) -> bool:
        return await self._set_pair(user_mutes, "muted_id", user_id, other_id, muted)

    async def set_blocked(self, user_id: int, other_id: int, blocked: bool) -> bool:
        return await self._set_pair(user_blocks, "blocked_id", user_id, other_id, blocked)

    async def _set_pair(
        self, table: sa.Table, column: str, user_id: int, other_id: int, on: bool
    ) -> bool:
        if user_id == other_id:
            raise ValueError("a user cannot mute or block themselves")
        mine = (table.c.user_id == user_id) & (table.c[column] == other_id)
        async with self._write() as conn:
            found = await conn.scalar(sa.select(sa.func.count()).select_from(table).where(mine))
            if on == bool(found):
                return False
            if not on:
                await conn.execute(sa.delete(table).where(mine))
                return True
            known = await conn.scalar(
                sa.select(sa.func.count()).where(users.c.id.in_([user_id, other_id]))
            )
            if known != 2:
                raise NotFoundError(f"there is no user with id {user_id} or {other_id}")
            await conn.execute(
                sa.insert(table).values(
                    {"user_id": user_id, column: other_id, "created_at": self._now()}
                )
            )
        return True

    async def muted_and_blocked(
        self, user_id: int
    ) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        out: list[list[tuple[int, str]]] = []
        async with self._read() as conn:
            for table, column in ((user_mutes, "muted_id"), (user_blocks, "blocked_id")):
                query = (
                    sa.select(users.c.id, users.c.name)
                    .join(table, table.c[column] == users.c.id)
                    .where(table.c.user_id == user_id)
                    .order_by(users.c.name_key)
                )
                out.append([(row.id, row.name) for row in (await conn.execute(query)).all()])
        return out[0], out[1]

    async def hidden_users(self, user_id: int) -> frozenset[int]:
        async with self._read() as conn:
            rows = (await conn.execute(_HIDDEN_FROM_READER, {"reader": user_id})).all()
        return frozenset(row[0] for row in rows)

    async def is_blocked(self, by_user_id: int, user_id: int) -> bool:
        return bool(await self.blockers_among(user_id, [by_user_id]))

    async def blockers_among(self, user_id: int, candidates: Iterable[int]) -> set[int]:
        wanted = sorted({c for c in candidates if c != user_id})
        if not wanted:
            return set()
        parameters = {"user_id": user_id, "wanted": wanted}
        async with self._read() as conn:
            return {row[0] for row in (await conn.execute(_BLOCKERS_AMONG, parameters)).all()}

    # --- reports ----------------------------------------------------------------------------
    async def add_report(
        self,
        reporter_id: int,
        target_id: int,
        reason: str,
        *,
        line_id: int | None = None,
        line_text: str | None = None,
        table_id: str | None = None,
    ) -> Report:
        async with self._write() as conn:
            try:
                report_id = await conn.scalar(
                    sa.insert(reports)
                    .values(
                        reporter_id=reporter_id,
                        target_id=target_id,
                        line_id=line_id,
                        line_text=line_text,
                        table_id=table_id,
                        reason=reason,
                        created_at=self._now(),
                    )
                    .returning(reports.c.id)
                )
            except IntegrityError:
                raise NotFoundError("the reported user, line or table does not exist") from None
            row = (await conn.execute(_report_query().where(reports.c.id == report_id))).one()
        return _report(row)

    async def list_reports(self, *, handled: bool = False, limit: int = 100) -> list[Report]:
        query = _report_query().where(
            reports.c.handled_at.is_not(None) if handled else reports.c.handled_at.is_(None)
        )
        query = query.order_by(reports.c.id.desc() if handled else reports.c.id).limit(limit)
        async with self._read() as conn:
            return [_report(row) for row in (await conn.execute(query)).all()]

    async def handle_report(self, report_id: int, admin_id: int) -> Report:
        async with self._write() as conn:
            await conn.execute(
                sa.update(reports)
                .where(reports.c.id == report_id, reports.c.handled_at.is_(None))
                .values(handled_at=self._now(), handled_by=admin_id)
            )
            row = (await conn.execute(_report_query().where(reports.c.id == report_id))).first()
        if row is None:
            raise NotFoundError(f"there is no report {report_id}")
        return _report(row)

    # --- roles and suspensions --------------------------------------------------------------
    async def set_role(self, user_id: int, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        await self._update_user(user_id, role=role)

    async def set_suspended(self, user_id: int, suspended: bool) -> None:
        await self._update_user(user_id, suspended_at=self._now() if suspended else None)

    async def _update_user(self, user_id: int, **values: Any) -> None:
        async with self._write() as conn:
            result = await conn.execute(
                sa.update(users).where(users.c.id == user_id).values(**values)
            )
        if result.rowcount == 0:
            raise NotFoundError(f"there is no user with id {user_id}")


def _hidden_query(reader: int | sa.BindParameter[Any]) -> sa.CompoundSelect[Any]:
    """The users whose lines `reader` (a user id, or a parameter bound to one) does not
    get: muted or blocked."""
    return sa.union(
        sa.select(user_mutes.c.muted_id).where(user_mutes.c.user_id == reader),
        sa.select(user_blocks.c.blocked_id).where(user_blocks.c.user_id == reader),
    )


# built once with bound parameters (a socket opening reads whom its user does not hear; a
# player joining, who blocked them; docs/server.md, "The hot path, tenth pass")
_HIDDEN_FROM_READER = _hidden_query(sa.bindparam("reader"))
_BLOCKERS_AMONG = sa.select(user_blocks.c.user_id).where(
    user_blocks.c.blocked_id == sa.bindparam("user_id"),
    user_blocks.c.user_id.in_(sa.bindparam("wanted", expanding=True)),
)


@functools.cache
def _room_lines_query(at_table: bool, for_reader: bool) -> sa.Select[Any]:
    """`chat_lines`' query, built once per kind (a table's room or the lobby's, for a reader
    or for no one), with bound parameters `table_id`, `reader` and `limit`: every socket
    that opens reads its table's lines (twice), and building the query and its cache key
    anew cost more than running it (docs/server.md, "The hot path, fifth pass")."""
    query = _line_query().where(
        chat_lines.c.table_id == sa.bindparam("table_id")
        if at_table
        else chat_lines.c.table_id.is_(None)
    )
    if for_reader:
        query = query.where(chat_lines.c.user_id.not_in(_hidden_query(sa.bindparam("reader"))))
    return query.order_by(chat_lines.c.id.desc()).limit(sa.bindparam("limit"))


def _line_query() -> sa.Select[Any]:
    return sa.select(chat_lines, users.c.name.label("user_name")).join(
        users, users.c.id == chat_lines.c.user_id
    )


def _line(row: sa.Row[Any]) -> ChatLine:
    return ChatLine(
        id=row.id,
        table_id=row.table_id,
        user_id=row.user_id,
        user_name=row.user_name,
        seat=row.seat,
        spectator=row.spectator,
        text=row.text,
        preset=row.preset,
        moves=row.moves,
        created_at=row.created_at,
    )


def _report_query() -> sa.Select[Any]:
    reporter = users.alias("reporter")
    target = users.alias("target")
    return (
        sa.select(
            reports,
            reporter.c.name.label("reporter_name"),
            target.c.name.label("target_name"),
            target.c.suspended_at.label("target_suspended_at"),
        )
        .join(reporter, reporter.c.id == reports.c.reporter_id)
        .join(target, target.c.id == reports.c.target_id)
    )


def _report(row: sa.Row[Any]) -> Report:
    return Report(
        id=row.id,
        reporter_id=row.reporter_id,
        reporter_name=row.reporter_name,
        target_id=row.target_id,
        target_name=row.target_name,
        target_suspended=row.target_suspended_at is not None,
        line_id=row.line_id,
        line_text=row.line_text,
        table_id=row.table_id,
        reason=row.reason,
        created_at=row.created_at,
        handled_at=row.handled_at,
        handled_by=row.handled_by,
    )
