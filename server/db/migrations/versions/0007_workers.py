"""workers: agent-bound keys, heartbeat timeouts, step progress

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 20:10:00

``api_keys.agents`` lists the agent names a key may claim and report as (null: any). A step's
``heartbeat_timeout_seconds`` bounds the time between heartbeats; ``progress`` is the last heartbeat's
small payload.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.add_column(sa.Column("agents", JSON, nullable=True))
    with op.batch_alter_table("workflow_steps", schema=None) as batch_op:
        batch_op.add_column(sa.Column("heartbeat_timeout_seconds", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("progress", JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workflow_steps", schema=None) as batch_op:
        batch_op.drop_column("progress")
        batch_op.drop_column("heartbeat_timeout_seconds")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_column("agents")
