"""`coffeetable admin grant|revoke|list`: who may read reports and suspend accounts on a site
(docs/server.md, "Chat and moderation"). Works on the site's database, SQLite or PostgreSQL,
whether or not a server runs on it: the role is read at each request."""

from __future__ import annotations

import argparse
import asyncio

from coffeetable.core.errors import DataError


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    from coffeetable.server.storage import (
        DatabaseURLError,
        SqlStorage,
        default_database_url,
        open_storage,
    )
    from coffeetable.server.storage.schema import users

    url = args.db or default_database_url()
    try:
        storage = open_storage(url)
    except DatabaseURLError as exc:
        raise DataError(str(exc)) from None
    try:
        await storage.migrate()
        if args.action == "list":
            assert isinstance(storage, SqlStorage)
            query = (
                sa.select(users.c.name).where(users.c.role == "admin").order_by(users.c.name_key)
            )
            async with storage.engine.connect() as conn:
                names = [row.name for row in (await conn.execute(query)).all()]
            print("\n".join(names) if names else "(no admins)")
            return 0
        user = await storage.get_user_by_name(args.name)
        if user is None:
            raise DataError(f"there is no account named {args.name!r}")
        if user.is_guest and args.action == "grant":
            raise DataError(f"{user.name!r} is a guest: only a registered account may be an admin")
        role = "admin" if args.action == "grant" else "player"
        await storage.set_role(user.id, role)
        print(f"{user.name} is {'now an admin' if role == 'admin' else 'no longer an admin'}")
        return 0
    finally:
        await storage.close()
