"""missions, hops, tool steps, assets and tools (seed 004)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 18:18:31.400672
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import server.db.types

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    _create_missions()
    _create_tools()
    _create_assets()
    _create_hops()
    _create_tool_steps()


def _create_missions() -> None:
    op.create_table(
        "missions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("goal", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("failed_from", sa.String(length=32), nullable=True),
        sa.Column("created_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("completed_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("missions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_missions_tenant_status", ["tenant_id", "status", "created_at"], unique=False
        )


def _create_tools() -> None:
    op.create_table(
        "tools",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column(
            "parameter_schema",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "name", name="uq_tools_tenant_name"),
    )


def _create_assets() -> None:
    op.create_table(
        "assets",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("mission_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("media_type", sa.String(length=200), nullable=True),
        sa.Column("content", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("failed_from", sa.String(length=32), nullable=True),
        sa.Column("expires_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("ready_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["mission_id"], ["missions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("assets", schema=None) as batch_op:
        batch_op.create_index("ix_assets_mission", ["mission_id", "created_at"], unique=False)
        batch_op.create_index("ix_assets_status_expires", ["status", "expires_at"], unique=False)
        batch_op.create_index("ix_assets_tenant_status", ["tenant_id", "status", "created_at"], unique=False)


def _create_hops() -> None:
    op.create_table(
        "hops",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("mission_id", sa.String(length=36), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("plan", sa.Text(), nullable=False),
        sa.Column("is_final", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("failed_from", sa.String(length=32), nullable=True),
        sa.Column("created_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("started_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("completed_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["mission_id"], ["missions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("mission_id", "sequence", name="uq_hops_mission_sequence"),
    )
    with op.batch_alter_table("hops", schema=None) as batch_op:
        batch_op.create_index("ix_hops_tenant_status", ["tenant_id", "status", "created_at"], unique=False)


def _create_tool_steps() -> None:
    op.create_table(
        "tool_steps",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("mission_id", sa.String(length=36), nullable=False),
        sa.Column("hop_id", sa.String(length=36), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("tool_id", sa.String(length=36), nullable=True),
        sa.Column("tool_name", sa.String(length=200), nullable=True),
        sa.Column(
            "parameters",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "result",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("failed_from", sa.String(length=32), nullable=True),
        sa.Column("created_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", server.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("started_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("completed_at", server.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["hop_id"], ["hops.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["mission_id"], ["missions.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["tool_id"], ["tools.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tool_steps", schema=None) as batch_op:
        batch_op.create_index("ix_tool_steps_hop_position", ["hop_id", "position"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tool_steps", schema=None) as batch_op:
        batch_op.drop_index("ix_tool_steps_hop_position")

    op.drop_table("tool_steps")
    with op.batch_alter_table("hops", schema=None) as batch_op:
        batch_op.drop_index("ix_hops_tenant_status")

    op.drop_table("hops")
    with op.batch_alter_table("assets", schema=None) as batch_op:
        batch_op.drop_index("ix_assets_tenant_status")
        batch_op.drop_index("ix_assets_status_expires")
        batch_op.drop_index("ix_assets_mission")

    op.drop_table("assets")
    op.drop_table("tools")
    with op.batch_alter_table("missions", schema=None) as batch_op:
        batch_op.drop_index("ix_missions_tenant_status")

    op.drop_table("missions")
