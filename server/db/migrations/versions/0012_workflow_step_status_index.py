"""workflow step indexes for claims and settling

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 23:30:00

A claim reads a workflow's pending steps in definition order, and settling asks
whether any step is failed, awaiting a reviewer or not yet done; ``(workflow_id, status, position)``
serves both with a seek instead of a walk over every step. The next completion number is the top of
``(workflow_id, completion_order)``.
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_workflow_steps_workflow_status_position", "workflow_steps", ["workflow_id", "status", "position"]
    )
    op.create_index(
        "ix_workflow_steps_workflow_completion", "workflow_steps", ["workflow_id", "completion_order"]
    )


def downgrade() -> None:
    op.drop_index("ix_workflow_steps_workflow_completion", table_name="workflow_steps")
    op.drop_index("ix_workflow_steps_workflow_status_position", table_name="workflow_steps")
