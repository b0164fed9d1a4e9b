"""event-log archival: the earliest retained seq, paused webhook endpoints, incremental auto-vacuum

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 00:30:00

``tenant_counters.archived_through``: the highest seq archived and deleted (0: none), written in the
transaction of each deleting batch, so ``archived_through + 1`` is the earliest seq a cursor can resume
after. ``webhook_endpoints.paused_reason``: why an endpoint was disabled by the server rather than by
an admin (``HISTORY_TRUNCATED``: the events after its cursor were archived before it delivered them).

On SQLite the file is switched to incremental auto-vacuum, which takes effect only through a VACUUM
(the whole file is rewritten once; run outside the migration's transaction), so that pages freed by an
archive or a prune can be given back with ``PRAGMA incremental_vacuum``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "tenant_counters",
        sa.Column("archived_through", sa.BigInteger(), nullable=False, server_default=sa.text("0")),
    )
    op.add_column("webhook_endpoints", sa.Column("paused_reason", sa.String(length=64), nullable=True))
    # SQLite files switch to incremental auto-vacuum in server.db.migrate.upgrade, after the
    # migrations: VACUUM cannot run inside their transaction.


def downgrade() -> None:
    op.drop_column("webhook_endpoints", "paused_reason")
    op.drop_column("tenant_counters", "archived_through")
