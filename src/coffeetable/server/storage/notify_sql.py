"""The storage of presence, "my games" and notifications (issue 38), as a part of
`SqlStorage`: who sits at which table and whose move it is there (`table_players`), users'
settings and e-mail address, the mail waiting for its digest and the claims that let exactly
one node send it, and the site's secrets."""

from __future__ import annotations

import functools
import secrets
from collections.abc import Collection, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from coffeetable.server.storage.records import (
    JSONObject,
    MailEvent,
    PlayerTable,
    Seat,
    UserSettings,
)
from coffeetable.server.storage.rows import insert_ignoring_duplicates, table_from_row
from coffeetable.server.storage.schema import (
    game_tables,
    mail_events,
    site_secrets,
    table_players,
    user_settings,
)
from coffeetable.server.storage.sqlite_loop import LoopConnection

#: The statuses of tables "my games" shows always; finished and aborted ones only the latest.
_ACTIVE = ("open", "running")


class _Transactions(Protocol):
    def _read(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

    def _write(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

    def _now(self) -> datetime: ...


# `sync_players`' read and insert, built once (a set-up runs them twice: made, joined)
_SEATED_PLAYERS = sa.select(table_players.c.seat, table_players.c.user_id).where(
    table_players.c.table_id == sa.bindparam("table_id")
)
_SEAT_PLAYERS = sa.insert(table_players)


async def sync_players(conn: AsyncConnection, table_id: str, seats: Sequence[Seat]) -> None:
    """Make `table_players` list the table's human seats (inside the transaction that
    stores the seats). A seat that keeps its player keeps its turn."""
    wanted = {
        (index, seat.user_id)
        for index, seat in enumerate(seats)
        if seat.kind == "human" and seat.user_id is not None
    }
    rows = (await conn.execute(_SEATED_PLAYERS, {"table_id": table_id})).all()
    have = {(row.seat, row.user_id) for row in rows}
    gone = have - wanted
    if gone:
        await conn.execute(
            sa.delete(table_players).where(
                table_players.c.table_id == table_id,
                table_players.c.seat.in_([seat for seat, _ in gone]),
            )
        )
    new = wanted - have
    if new:
        await conn.execute(
            _SEAT_PLAYERS,
            [
                {"table_id": table_id, "seat": seat, "user_id": user, "to_move": False}
                for seat, user in sorted(new)
            ],
        )


class NotifyStorage:
    """The methods (mixed into `SqlStorage`); see `base.Storage` for their contracts."""

    # --- "my games" and turns -----------------------------------------------------------
    async def player_tables(
        self: _Transactions, user_id: int, *, recent: int = 20
    ) -> list[PlayerTable]:
        joined = game_tables.join(table_players, table_players.c.table_id == game_tables.c.id)
        columns = (
            *game_tables.c,
            table_players.c.seat.label("p_seat"),
            table_players.c.to_move.label("p_to_move"),
            table_players.c.turn_since.label("p_turn_since"),
        )
        mine = table_players.c.user_id == user_id
        active = (
            sa.select(*columns)
            .select_from(joined)
            .where(mine, game_tables.c.status.in_(_ACTIVE))
            .order_by(game_tables.c.created_at.desc())
            .limit(500)
        )
        done = (
            sa.select(*columns)
            .select_from(joined)
            .where(mine, game_tables.c.status.not_in(_ACTIVE))
            .order_by(sa.func.coalesce(game_tables.c.finished_at, game_tables.c.created_at).desc())
            .limit(max(0, recent))
        )
        async with self._read() as conn:
            rows = [*(await conn.execute(active)).all(), *(await conn.execute(done)).all()]
        seen: set[str] = set()
        out = []
        for row in rows:
            if row.id in seen:  # two seats of one user (a hot seat): the table once
                continue
            seen.add(row.id)
            out.append(
                PlayerTable(
                    table=table_from_row(row),
                    seat=row.p_seat,
                    to_move=bool(row.p_to_move) and row.status == "running",
                    turn_since=row.p_turn_since,
                )
            )
        return out

    async def set_turns(
        self: _Transactions, table_id: str, revision: int, to_move: Collection[int]
    ) -> None:
        await _set_turns(self, [(table_id, revision, to_move)])

    async def set_turns_many(
        self: _Transactions, turns: Sequence[tuple[str, int, Collection[int]]]
    ) -> None:
        await _set_turns(self, turns)

    # --- settings -----------------------------------------------------------------------
    async def get_settings(self: _Transactions, user_id: int) -> UserSettings:
        async with self._read() as conn:
            row = (
                await conn.execute(
                    sa.select(user_settings).where(user_settings.c.user_id == user_id)
                )
            ).first()
        if row is None:
            return UserSettings(user_id=user_id, email=None, language="en", prefs={})
        return _settings(row)

    async def save_settings(
        self: _Transactions,
        user_id: int,
        *,
        email: str | None,
        language: str,
        prefs: JSONObject,
    ) -> UserSettings:
        now = self._now()
        values = {"email": email, "language": language, "prefs": dict(prefs), "updated_at": now}
        async with self._write() as conn:
            done = await conn.execute(
                sa.update(user_settings).where(user_settings.c.user_id == user_id).values(values)
            )
            if done.rowcount == 0:
                inserted = await conn.execute(
                    insert_ignoring_duplicates(
                        conn, user_settings, [{"user_id": user_id, **values}]
                    )
                )
                if inserted.rowcount == 0:  # made meanwhile by another request
                    await conn.execute(
                        sa.update(user_settings)
                        .where(user_settings.c.user_id == user_id)
                        .values(values)
                    )
            row = (
                await conn.execute(
                    sa.select(user_settings).where(user_settings.c.user_id == user_id)
                )
            ).one()
        return _settings(row)

    # --- mail ---------------------------------------------------------------------------
    async def add_mail_event(
        self: _Transactions, user_id: int, kind: str, table_id: str | None, params: JSONObject
    ) -> None:
        async with self._write() as conn:
            await conn.execute(
                sa.insert(mail_events).values(
                    user_id=user_id,
                    kind=kind,
                    table_id=table_id,
                    params=dict(params),
                    created_at=self._now(),
                )
            )

    async def drop_mail_events(
        self: _Transactions, user_id: int, table_id: str, kinds: Collection[str]
    ) -> int:
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(mail_events).where(
                    mail_events.c.user_id == user_id,
                    mail_events.c.table_id == table_id,
                    mail_events.c.kind.in_(list(kinds)),
                    mail_events.c.batch.is_(None),
                )
            )
        return int(result.rowcount or 0)

    async def mail_due(self: _Transactions, older_than: datetime, limit: int = 500) -> list[int]:
        now = self._now()
        query = (
            sa.select(mail_events.c.user_id)
            .select_from(
                mail_events.outerjoin(
                    user_settings, user_settings.c.user_id == mail_events.c.user_id
                )
            )
            .where(
                mail_events.c.batch.is_(None),
                mail_events.c.created_at <= older_than,
                sa.or_(user_settings.c.next_mail_at.is_(None), user_settings.c.next_mail_at <= now),
            )
            .group_by(mail_events.c.user_id)
            .limit(limit)
        )
        async with self._read() as conn:
            return [row.user_id for row in (await conn.execute(query)).all()]

    async def claim_mail(
        self: _Transactions, user_id: int, older_than: datetime, gap: timedelta
    ) -> tuple[str, list[MailEvent]] | None:
        now = self._now()
        token = secrets.token_hex(12)
        async with self._write() as conn:
            await conn.execute(  # settings never saved: the defaults, to claim on
                insert_ignoring_duplicates(
                    conn,
                    user_settings,
                    [{"user_id": user_id, "language": "en", "prefs": {}, "updated_at": now}],
                )
            )
            # the user's turn first: exactly one claim per interval, whichever node asks
            claimed = await conn.execute(
                sa.update(user_settings)
                .where(
                    user_settings.c.user_id == user_id,
                    sa.or_(
                        user_settings.c.next_mail_at.is_(None),
                        user_settings.c.next_mail_at <= now,
                    ),
                )
                .values(next_mail_at=now + gap)
            )
            if claimed.rowcount != 1:
                return None
            await conn.execute(
                sa.update(mail_events)
                .where(
                    mail_events.c.user_id == user_id,
                    mail_events.c.batch.is_(None),
                    mail_events.c.created_at <= older_than,
                )
                .values(batch=token)
            )
            rows = (
                await conn.execute(
                    sa.select(mail_events)
                    .where(mail_events.c.batch == token)
                    .order_by(mail_events.c.id)
                )
            ).all()
        return token, [_event(row) for row in rows]

    async def finish_mail(self: _Transactions, batch: str, sent: bool) -> None:
        async with self._write() as conn:
            if sent:
                await conn.execute(
                    sa.update(mail_events)
                    .where(mail_events.c.batch == batch)
                    .values(sent_at=self._now())
                )
            else:  # to be tried again with the next digest
                await conn.execute(
                    sa.update(mail_events).where(mail_events.c.batch == batch).values(batch=None)
                )

    async def delete_sent_mail(self: _Transactions, before: datetime) -> int:
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(mail_events).where(
                    mail_events.c.sent_at.is_not(None), mail_events.c.sent_at < before
                )
            )
        return int(result.rowcount or 0)

    # --- secrets ------------------------------------------------------------------------
    async def site_secret(self: _Transactions, name: str) -> str:
        query = sa.select(site_secrets.c.value).where(site_secrets.c.name == name)
        async with self._read() as conn:
            value = await conn.scalar(query)
        if value is not None:
            return str(value)
        async with self._write() as conn:
            # another node may make it first: then theirs it is
            await conn.execute(
                insert_ignoring_duplicates(
                    conn,
                    site_secrets,
                    [{"name": name, "value": secrets.token_hex(32), "created_at": self._now()}],
                )
            )
            value = await conn.scalar(query)
        return str(value)


def _settings(row: Any) -> UserSettings:
    return UserSettings(
        user_id=row.user_id,
        email=row.email,
        language=row.language,
        prefs=dict(row.prefs or {}),
        next_mail_at=row.next_mail_at,
    )


def _event(row: Any) -> MailEvent:
    return MailEvent(
        id=row.id,
        user_id=row.user_id,
        kind=row.kind,
        table_id=row.table_id,
        params=dict(row.params or {}),
        created_at=row.created_at,
    )


async def _set_turns(
    storage: _Transactions, turns: Sequence[tuple[str, int, Collection[int]]]
) -> None:
    """`set_turns` of several tables in one transaction, each with the statements of its
    number of players to move (built once: `_turn_statements`), on SQLite straight to the
    driver."""
    now = storage._now()
    async with storage._write() as conn:
        for table_id, revision, to_move in turns:
            movers = sorted(set(to_move))
            params: dict[str, Any] = {"t_table": table_id, "t_revision": revision, "t_now": now}
            params.update((f"t_m{i}", user_id) for i, user_id in enumerate(movers))
            for statement in _turn_statements(len(movers)):
                if isinstance(conn, LoopConnection):
                    conn.execute_prepared(statement, params)
                else:
                    await conn.execute(statement, params)


@functools.cache
def _turn_statements(movers: int) -> tuple[sa.Update, ...]:
    """The updates of `set_turns` for `movers` users to move (`t_m0` ...), with bound
    parameters only: the users to move (a user already to move keeps the moment their turn
    began), then the others."""
    players = table_players.c
    revision = sa.bindparam("t_revision", type_=players.turn_revision.type)
    newer = (players.table_id == sa.bindparam("t_table", type_=players.table_id.type)) & (
        players.turn_revision < revision
    )
    ids = [sa.bindparam(f"t_m{i}", type_=players.user_id.type) for i in range(movers)]
    out = []
    if movers:
        out.append(
            sa.update(table_players)
            .where(newer, players.user_id.in_(ids))
            .values(
                to_move=sa.true(),
                turn_since=sa.case(
                    (players.to_move == sa.true(), players.turn_since),
                    else_=sa.bindparam("t_now", type_=players.turn_since.type),
                ),
                turn_revision=revision,
            )
        )
    out.append(
        sa.update(table_players)
        .where(newer, players.user_id.not_in(ids) if movers else sa.true())
        .values(to_move=sa.false(), turn_since=sa.null(), turn_revision=revision)
    )
    return tuple(out)
