"""webhooks

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 20:10:00

A tenant's webhook endpoints (with their event-log cursor and delivery lease), one
delivery row per (endpoint, event) and one attempt row per HTTP request.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import server.db.types

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

WHEN = server.db.types.UTCDateTime(timezone=True)
SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        sa.Column(
            "topics",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.Column("previous_secret", sa.String(length=128), nullable=True),
        sa.Column("previous_secret_until", WHEN, nullable=True),
        sa.Column("cursor_seq", sa.BigInteger(), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", WHEN, nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_webhook_endpoints_tenant_created", "webhook_endpoints", ["tenant_id", "created_at", "id"]
    )
    # The dispatcher's pass reads the enabled endpoints of every tenant.
    op.create_index("ix_webhook_endpoints_enabled", "webhook_endpoints", ["enabled", "tenant_id", "id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", SERIAL, autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("endpoint_id", sa.String(length=36), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("topic", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_status_code", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("next_attempt_at", WHEN, nullable=True),
        sa.Column("first_attempt_at", WHEN, nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoints.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("endpoint_id", "seq", name="uq_webhook_deliveries_endpoint_seq"),
    )
    op.create_index(
        "ix_webhook_deliveries_endpoint_status_due",
        "webhook_deliveries",
        ["endpoint_id", "status", "next_attempt_at"],
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", SERIAL, autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("endpoint_id", sa.String(length=36), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.String(length=200), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.Column("process", sa.String(length=64), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_endpoints.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_webhook_attempts_endpoint_seq", "webhook_attempts", ["endpoint_id", "seq", "id"])


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
