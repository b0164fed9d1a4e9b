"""duration order and the mission review inbox's indexes

Revision ID: 0014
Revises: 0012
Create Date: 2026-11-24 23:40:00

Plans, missions and workflows sort by duration from an index over a generated
column ``duration_key`` (server/db/duration.py: VIRTUAL on SQLite, which cannot add a STORED column to
a table, STORED on PostgreSQL); hops and assets waiting for a person are read by waiting time
(tenant, status, updated_at, id) for the paged mission review inbox.
"""

from __future__ import annotations

from alembic import op

from server.db.duration import ROOTS, generation_sql

revision = "0014"
down_revision = "0012"
branch_labels = None
depends_on = None

INDEXES = [
    ("hops", "ix_hops_tenant_status_updated", ["tenant_id", "status", "updated_at", "id"]),
    ("assets", "ix_assets_tenant_status_updated", ["tenant_id", "status", "updated_at", "id"]),
]


def _duration_index(table: str) -> str:
    return "ix_research_plans_tenant_duration" if table == "research_plans" else f"ix_{table}_tenant_duration"


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table, (start, end, ended) in ROOTS.items():
        expression = generation_sql(dialect, start, end, ended)
        if dialect == "sqlite":
            column = f"duration_key FLOAT GENERATED ALWAYS AS ({expression}) VIRTUAL"
        else:
            column = f"duration_key FLOAT GENERATED ALWAYS AS ({expression}) STORED"
        op.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        op.create_index(_duration_index(table), table, ["tenant_id", "duration_key", "id"], unique=False)
    for table, name, columns in INDEXES:
        op.create_index(name, table, columns, unique=False)


def downgrade() -> None:
    for table, name, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    for table in reversed(list(ROOTS)):
        op.drop_index(_duration_index(table), table_name=table)
        op.execute(f"ALTER TABLE {table} DROP COLUMN duration_key")
