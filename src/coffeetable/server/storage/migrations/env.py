"""Alembic environment for the coffeetable storage schema.

`Storage.migrate()` runs it with an open connection in `config.attributes["connection"]`.
Run from the command line (to write a new revision, see docs/server-storage.md) it opens
the database named by `sqlalchemy.url` in alembic.ini, or else `COFFEETABLE_DB` / the
default SQLite file.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from coffeetable.server.storage.schema import metadata


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite can change a table only by copying it: alembic's batch mode does that
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_from_command_line() -> None:
    from coffeetable.server.storage.backends import default_database_url, engine_for_url

    url = context.config.get_main_option("sqlalchemy.url") or default_database_url()
    engine = engine_for_url(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run_migrations)
    finally:
        await engine.dispose()


given: Connection | None = context.config.attributes.get("connection")
if given is not None:
    run_migrations(given)
elif context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run them on a database")
else:
    asyncio.run(run_from_command_line())
