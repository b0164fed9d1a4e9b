"""whether a workflow step has dependents

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-25 02:10:00

``workAvailable`` wakes workers when a completed or skipped step may have
made another claimable, which only a step that some other step depends on can do. The definition
(deferred, one JSON document) says so; ``has_dependents`` keeps it on the step, set when the workflow is
created. Steps created before this column existed get true: they wake workers as they always did.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "workflow_steps", sa.Column("has_dependents", sa.Boolean(), nullable=False, server_default=sa.true())
    )


def downgrade() -> None:
    op.drop_column("workflow_steps", "has_dependents")
