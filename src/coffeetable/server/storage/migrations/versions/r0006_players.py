"""Player pages and abandonment: every person's seat at a table, indexed, with its result
(`player_games`, filled from the tables there are), and a table's abandonment limit and
state (docs/server-storage.md).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("abandon_after", sa.Float, nullable=True))
        batch.add_column(sa.Column("abandonment", sa.JSON, nullable=True))
    player_games = op.create_table(
        "player_games",
        sa.Column(
            "table_id",
            sa.Text,
            sa.ForeignKey(
                "game_tables.id",
                ondelete="CASCADE",
                name="fk_player_games_table_id_game_tables",
            ),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_player_games_user_id_users"),
            nullable=False,
        ),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("score", sa.Integer, nullable=True),
        sa.Column("won", sa.Boolean, nullable=True),
        sa.Column("left_game", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_player_games"),
    )
    op.create_index("ix_player_games_user_id_created_at", "player_games", ["user_id", "created_at"])
    op.create_index(
        "ix_player_games_game_players_score", "player_games", ["game", "players", "score"]
    )
    # the seats of the tables there are already
    tables = sa.table(
        "game_tables",
        sa.column("id", sa.Text),
        sa.column("game", sa.Text),
        sa.column("seats", sa.JSON),
        sa.column("status", sa.Text),
        sa.column("result", sa.JSON),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("finished_at", sa.DateTime(timezone=True)),
    )
    bind = op.get_bind()
    rows: list[dict[str, object]] = []
    for table in bind.execute(sa.select(tables)).mappings():
        rows.extend(_player_rows(dict(table)))
        if len(rows) >= 1000:
            bind.execute(sa.insert(player_games), rows)
            rows = []
    if rows:
        bind.execute(sa.insert(player_games), rows)


def _player_rows(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The `player_games` rows of one table (as the storage writes them in revision 0006)."""
    seats = table["seats"] or []
    result = table["result"] if table["status"] == "finished" else None
    scores = (result or {}).get("scores") or []
    winners = (result or {}).get("winners") or []
    rows = []
    for index, seat in enumerate(seats):
        if seat.get("kind") != "human" or seat.get("user_id") is None:
            continue
        score = scores[index].get("total") if index < len(scores) else None
        rows.append(
            {
                "table_id": table["id"],
                "seat": index,
                "user_id": seat["user_id"],
                "game": table["game"],
                "players": len(seats),
                "created_at": table["created_at"],
                "finished_at": table["finished_at"] if result is not None else None,
                "score": score if isinstance(score, int) else None,
                "won": (index in winners) if result is not None else None,
                "left_game": seat.get("bot") is not None,
            }
        )
    return rows


def downgrade() -> None:
    op.drop_index("ix_player_games_game_players_score", table_name="player_games")
    op.drop_index("ix_player_games_user_id_created_at", table_name="player_games")
    op.drop_table("player_games")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("abandonment")
        batch.drop_column("abandon_after")
