"""Tables remember the client's request id, so that a repeated request (a double click, a
retry) gets the same table back instead of a second one.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("request_key", sa.Text, nullable=True))
    # NULLs are distinct in a unique index (SQLite and PostgreSQL): only keyed tables count
    op.create_index(
        "ix_game_tables_created_by_request_key",
        "game_tables",
        ["created_by", "request_key"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("ix_game_tables_created_by_request_key", table_name="game_tables")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("request_key")
