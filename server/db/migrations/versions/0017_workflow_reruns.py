"""a workflow names the workflow it reruns

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 00:40:00

``rerunWorkflow`` makes a new workflow from a finished one's definition (seed 002: a failed workflow
"must restart as new workflow"). The new one keeps the old one's id in ``rerun_of_id``; the old one
finds its reruns through the index on (tenant, rerun_of_id), so the link is kept in one column and
read both ways.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("workflows", sa.Column("rerun_of_id", sa.String(36), nullable=True))
    op.create_index("ix_workflows_tenant_rerun_of", "workflows", ["tenant_id", "rerun_of_id"])


def downgrade() -> None:
    op.drop_index("ix_workflows_tenant_rerun_of", table_name="workflows")
    op.drop_column("workflows", "rerun_of_id")
