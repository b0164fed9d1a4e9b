"""operation log retention and reading

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 16:30:00

Indexes for the admin query (a tenant's records newest first by id) and for retention (by age).
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("operation_log", schema=None) as batch_op:
        batch_op.create_index("ix_operation_log_tenant_id", ["tenant_id", "id"], unique=False)
        batch_op.create_index("ix_operation_log_created_at", ["created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("operation_log", schema=None) as batch_op:
        batch_op.drop_index("ix_operation_log_created_at")
        batch_op.drop_index("ix_operation_log_tenant_id")
