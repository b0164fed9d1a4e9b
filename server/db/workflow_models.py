"""Workflow tables (seed 002): workflows, their DAG steps, and the compensations of a failed run.

Deadlines the timer loop reads are columns (``timeout_at``, ``next_attempt_at``) with an index each,
so a restart or a second instance loses nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..limits import SHORT_TEXT
from .models import ID, Base
from .types import JSONType, UTCDateTime

NAME = String(SHORT_TEXT)


class Workflow(Base):
    __tablename__ = "workflows"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(NAME)
    status: Mapped[str] = mapped_column(String(32))
    outcome: Mapped[str | None] = mapped_column(String(32), nullable=True)
    failure_policy: Mapped[str] = mapped_column(String(16))
    timeout_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Normalized, in the YAML's own words. Deferred: it grows with the workflow (a 1,000-step document
    # is tens of kB of JSON) and no claim, report or timer needs it, only the API's `definition`
    # (issue 13 item 7); reading it by accident raises instead of loading it.
    definition: Mapped[dict[str, Any]] = mapped_column(JSONType, deferred=True, deferred_raiseload=True)
    failure_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    queued_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    timeout_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        # Lists, slot counting and the queue (tenant, status), newest or oldest first.
        Index("ix_workflows_tenant_created", "tenant_id", "created_at", "id"),
        Index("ix_workflows_tenant_status_created", "tenant_id", "status", "created_at", "id"),
        Index("ix_workflows_tenant_updated", "tenant_id", "updated_at", "id"),
        Index("ix_workflows_tenant_status_updated", "tenant_id", "status", "updated_at", "id"),
        Index("ix_workflows_tenant_status_queued", "tenant_id", "status", "queued_at", "id"),
        # The timer loop: executing or blocked workflows past their deadline.
        Index("ix_workflows_status_timeout", "status", "timeout_at"),
    )


class WorkflowStep(Base):
    __tablename__ = "workflow_steps"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    workflow_id: Mapped[str] = mapped_column(ID, ForeignKey("workflows.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(NAME)
    agent: Mapped[str | None] = mapped_column(NAME, nullable=True)  # only this agent may claim it
    depends_on: Mapped[list[str]] = mapped_column(JSONType)
    timeout_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # The longest a claimed step may go without a heartbeat before it times out (issue 13).
    heartbeat_timeout_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    on_failure: Mapped[str] = mapped_column(String(16))
    retry_policy: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    approval: Mapped[bool] = mapped_column(Boolean, default=False)
    compensation_action: Mapped[str | None] = mapped_column(Text, nullable=True)
    compensation_agent: Mapped[str | None] = mapped_column(NAME, nullable=True)
    status: Mapped[str] = mapped_column(String(32))
    blocked_on: Mapped[str | None] = mapped_column(String(16), nullable=True)
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    claimed_by: Mapped[str | None] = mapped_column(NAME, nullable=True)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    timeout_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completion_order: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_error_category: Mapped[str | None] = mapped_column(String(16), nullable=True)
    output: Mapped[Any] = mapped_column(JSONType, nullable=True)
    progress: Mapped[Any] = mapped_column(JSONType, nullable=True)  # the last heartbeat's payload
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        Index("ix_workflow_steps_workflow_position", "workflow_id", "position"),
        # Claims (a workflow's pending steps in definition order) and settling (is any step failed,
        # awaiting a reviewer, not yet done?) seek instead of walking every step (issue 13 item 7).
        Index("ix_workflow_steps_workflow_status_position", "workflow_id", "status", "position"),
        # The next completion number: the top of the workflow's completion order.
        Index("ix_workflow_steps_workflow_completion", "workflow_id", "completion_order"),
        # The timer loop: retries whose back-off is over, running steps past their timeout.
        Index("ix_workflow_steps_status_next_attempt", "status", "next_attempt_at"),
        Index("ix_workflow_steps_status_timeout", "status", "timeout_at"),
        # The reviewers' queue: a tenant's blocked steps, oldest first.
        Index("ix_workflow_steps_tenant_status_started", "tenant_id", "status", "started_at", "id"),
    )


class WorkflowCompensation(Base):
    __tablename__ = "workflow_compensations"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    workflow_id: Mapped[str] = mapped_column(ID, ForeignKey("workflows.id", ondelete="CASCADE"))
    step_id: Mapped[str] = mapped_column(ID, ForeignKey("workflow_steps.id", ondelete="CASCADE"))
    step_name: Mapped[str] = mapped_column(NAME)
    position: Mapped[int] = mapped_column(Integer)  # 1 runs first: the step that completed last
    action: Mapped[str] = mapped_column(Text)
    agent: Mapped[str] = mapped_column(NAME)
    status: Mapped[str] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_workflow_compensations_workflow", "workflow_id", "position"),)
