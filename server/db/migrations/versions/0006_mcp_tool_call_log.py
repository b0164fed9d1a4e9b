"""mcp tool call log

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 20:50:00

Seed 003's mcp_tool_call_log: one row per MCP tool call, with the operation log's indexes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import server.db.types

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_tool_call_log",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("tool", sa.String(length=200), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("session_id", sa.String(length=200), nullable=True),
        sa.Column("transport", sa.String(length=16), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("error", sa.Boolean(), nullable=False),
        sa.Column("error_code", sa.String(length=32), nullable=True),
        sa.Column("argument_bytes", sa.Integer(), nullable=False),
        sa.Column("result_bytes", sa.Integer(), nullable=False),
        sa.Column("created_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("mcp_tool_call_log", schema=None) as batch_op:
        batch_op.create_index("ix_mcp_tool_call_log_tenant_id", ["tenant_id", "id"], unique=False)
        batch_op.create_index("ix_mcp_tool_call_log_created_at", ["created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mcp_tool_call_log", schema=None) as batch_op:
        batch_op.drop_index("ix_mcp_tool_call_log_created_at")
        batch_op.drop_index("ix_mcp_tool_call_log_tenant_id")
    op.drop_table("mcp_tool_call_log")
