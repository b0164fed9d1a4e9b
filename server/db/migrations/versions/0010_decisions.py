"""decision points: deadlines, default outcomes, assignees, escalation

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 20:20:00

``decisions`` (one row per decision point opened, read by the deadline timer
through an index per deadline) and ``decision_policies`` (the defaults per tenant, plan or mission,
and workflow definition).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from server.db.types import UTCDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decisions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("subject_type", sa.String(32), nullable=False),
        sa.Column("subject_id", sa.String(36), nullable=False),
        sa.Column("root_type", sa.String(32), nullable=False),
        sa.Column("root_id", sa.String(36), nullable=False),
        sa.Column("assignee", sa.String(200), nullable=True),
        sa.Column("default_outcome", sa.String(16), nullable=True),
        sa.Column("deadline_at", UTCDateTime(timezone=True), nullable=True),
        sa.Column("escalate_at", UTCDateTime(timezone=True), nullable=True),
        sa.Column("escalation_role", sa.String(16), nullable=True),
        sa.Column("escalated_at", UTCDateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(32), nullable=True),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("created_at", UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UTCDateTime(timezone=True), nullable=False),
        sa.Column("closed_at", UTCDateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_decisions_tenant_status_created", "decisions", ["tenant_id", "status", "created_at", "id"]
    )
    op.create_index("ix_decisions_subject", "decisions", ["tenant_id", "subject_id", "status"])
    op.create_index("ix_decisions_status_deadline", "decisions", ["status", "deadline_at"])
    op.create_index("ix_decisions_status_escalate", "decisions", ["status", "escalate_at"])
    op.create_table(
        "decision_policies",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("scope_type", sa.String(32), nullable=False),
        sa.Column("scope_id", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("deadline_seconds", sa.Float(), nullable=True),
        sa.Column("default_outcome", sa.String(16), nullable=True),
        sa.Column("assignee", sa.String(200), nullable=True),
        sa.Column("escalate_after_seconds", sa.Float(), nullable=True),
        sa.Column("escalation_role", sa.String(16), nullable=True),
        sa.Column("updated_at", UTCDateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tenant_id", "scope_type", "scope_id", "kind", name="uq_decision_policies_scope"),
    )


def downgrade() -> None:
    op.drop_table("decision_policies")
    for name in (
        "ix_decisions_status_escalate",
        "ix_decisions_status_deadline",
        "ix_decisions_subject",
        "ix_decisions_tenant_status_created",
    ):
        op.drop_index(name, table_name="decisions")
    op.drop_table("decisions")
