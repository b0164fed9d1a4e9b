"""review inboxes in deadline order: decisions.due_key and its index

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-29 01:00:00

The Reviews page lists each domain's open reviews by deadline (the nearest first, none last), then by
age. ``decisions.due_key`` (server/db/decision_due.py) is the deadline of an open decision, the far
future for one without a deadline, NULL once closed: a generated column (VIRTUAL on SQLite, which
cannot add a STORED column to a table; STORED on PostgreSQL), read in order from the index
(tenant, root type, due_key, created_at, id).
"""

from __future__ import annotations

from alembic import op

from server.db.decision_due import generation_sql

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

INDEX = "ix_decisions_tenant_root_due"


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    kind = "VIRTUAL" if dialect == "sqlite" else "STORED"
    column_type = "DATETIME" if dialect == "sqlite" else "TIMESTAMP WITH TIME ZONE"
    expression = generation_sql(dialect)
    column = f"due_key {column_type} GENERATED ALWAYS AS ({expression}) {kind}"
    op.execute(f"ALTER TABLE decisions ADD COLUMN {column}")
    op.create_index(INDEX, "decisions", ["tenant_id", "root_type", "due_key", "created_at", "id"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="decisions")
    op.execute("ALTER TABLE decisions DROP COLUMN due_key")
