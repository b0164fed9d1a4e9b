"""indexes for every list and hot path

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 16:40:00

Every list reads its page in index order (tenant, [status,] time, id) and every
statement on a transition path is served by an index (branching conditions by the step they follow).
The three-column list indexes are replaced by four-column ones that end with the id tie-breaker.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

CREATED = [
    ("research_plans", "ix_research_plans_tenant_created", ["tenant_id", "created_at", "id"]),
    (
        "research_plans",
        "ix_research_plans_tenant_status_created",
        ["tenant_id", "status", "created_at", "id"],
    ),
    ("plan_steps", "ix_plan_steps_tenant_status_updated", ["tenant_id", "status", "updated_at", "id"]),
    ("branching_conditions", "ix_branching_conditions_after_step", ["after_step_id", "position"]),
    ("missions", "ix_missions_tenant_created", ["tenant_id", "created_at", "id"]),
    ("missions", "ix_missions_tenant_status_created", ["tenant_id", "status", "created_at", "id"]),
    ("tool_steps", "ix_tool_steps_mission", ["mission_id"]),
    ("workflows", "ix_workflows_tenant_created", ["tenant_id", "created_at", "id"]),
    ("workflows", "ix_workflows_tenant_status_created", ["tenant_id", "status", "created_at", "id"]),
    ("workflows", "ix_workflows_tenant_status_queued", ["tenant_id", "status", "queued_at", "id"]),
    (
        "workflow_steps",
        "ix_workflow_steps_tenant_status_started",
        ["tenant_id", "status", "started_at", "id"],
    ),
    (
        "skill_executions",
        "ix_skill_executions_session_started",
        ["tenant_id", "session_id", "started_at", "id"],
    ),
]
REPLACED = [
    ("research_plans", "ix_research_plans_tenant_status", ["tenant_id", "status", "created_at"]),
    ("missions", "ix_missions_tenant_status", ["tenant_id", "status", "created_at"]),
    ("workflows", "ix_workflows_tenant_status", ["tenant_id", "status", "created_at"]),
    ("skill_executions", "ix_skill_executions_session", ["tenant_id", "session_id", "started_at"]),
    # The admin query pages by (tenant, id); with this one too, PostgreSQL sometimes chose it and sorted.
    ("operation_log", "ix_operation_log_tenant_time", ["tenant_id", "created_at"]),
]


def upgrade() -> None:
    for table, name, columns in CREATED:
        op.create_index(name, table, columns, unique=False)
    for table, name, _ in REPLACED:
        op.drop_index(name, table_name=table)


def downgrade() -> None:
    for table, name, columns in REPLACED:
        op.create_index(name, table, columns, unique=False)
    for table, name, _ in reversed(CREATED):
        op.drop_index(name, table_name=table)
