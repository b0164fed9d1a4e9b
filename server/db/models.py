"""SQLAlchemy models. Every row carries ``tenant_id``; states are stored as their string values."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ..limits import SHORT_TEXT
from .types import JSONType, UTCDateTime

ID = String(36)
# SQLite only autoincrements INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit identity.
SERIAL = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    pass


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64), index=True)
    role: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(SHORT_TEXT), default="")
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # The agent names this key claims and reports as (issue 13); null: any name.
    agents: Mapped[list[str] | None] = mapped_column(JSONType, nullable=True)


class TenantCounter(Base):
    """The per-tenant event counter: its row lock orders event ``seq`` by commit."""

    __tablename__ = "tenant_counters"

    tenant_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    last_seq: Mapped[int] = mapped_column(BigInteger, default=0)


class ResearchPlan(Base):
    __tablename__ = "research_plans"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(Text, default="")
    research_question: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(32))
    output_formatting_notes: Mapped[str | None] = mapped_column(Text, nullable=True)
    stall_threshold_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    session_id: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    failure_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        # The plan list, newest first: all of a tenant's plans, or those of one status.
        Index("ix_research_plans_tenant_created", "tenant_id", "created_at", "id"),
        Index("ix_research_plans_tenant_status_created", "tenant_id", "status", "created_at", "id"),
        # Sorted by last change (issue 16): all, or those of some states.
        Index("ix_research_plans_tenant_updated", "tenant_id", "updated_at", "id"),
        Index("ix_research_plans_tenant_status_updated", "tenant_id", "status", "updated_at", "id"),
    )


class PlanStep(Base):
    __tablename__ = "plan_steps"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    plan_id: Mapped[str] = mapped_column(ID, ForeignKey("research_plans.id", ondelete="CASCADE"))
    step_order: Mapped[int] = mapped_column(Integer)
    step_type: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(Text, default="")
    instructions: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(32))
    result_summary: Mapped[str | None] = mapped_column(Text, nullable=True)
    result_data: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    step_execution_report: Mapped[str | None] = mapped_column(Text, nullable=True)
    output_formatting_notes: Mapped[str | None] = mapped_column(Text, nullable=True)
    failure_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    review_summary: Mapped[str | None] = mapped_column(Text, nullable=True)
    review_questions: Mapped[list[str] | None] = mapped_column(JSONType, nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        Index("ix_plan_steps_plan_order", "plan_id", "step_order"),
        # The stall scan: in_progress steps by start time, across tenants.
        Index("ix_plan_steps_status_started", "status", "started_at"),
        # The review inbox: a tenant's steps awaiting input, longest waiting first.
        Index("ix_plan_steps_tenant_status_updated", "tenant_id", "status", "updated_at", "id"),
    )


class BranchingConditionRow(Base):
    __tablename__ = "branching_conditions"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    plan_id: Mapped[str] = mapped_column(ID, ForeignKey("research_plans.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    after_step_id: Mapped[str] = mapped_column(ID, ForeignKey("plan_steps.id", ondelete="CASCADE"))
    target_step_id: Mapped[str | None] = mapped_column(
        ID, ForeignKey("plan_steps.id", ondelete="SET NULL"), nullable=True
    )
    field: Mapped[str] = mapped_column(String(SHORT_TEXT))
    op: Mapped[str] = mapped_column(String(16))
    value: Mapped[Any] = mapped_column(JSONType, nullable=True)
    action: Mapped[str] = mapped_column(String(16))

    __table_args__ = (
        Index("ix_branching_conditions_plan", "plan_id", "position"),
        # A submitted result: the conditions after that step (on the transition path).
        Index("ix_branching_conditions_after_step", "after_step_id", "position"),
    )


class SkillExecution(Base):
    __tablename__ = "skill_executions"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    session_id: Mapped[str] = mapped_column(String(SHORT_TEXT))
    skill_name: Mapped[str] = mapped_column(String(SHORT_TEXT))
    status: Mapped[str] = mapped_column(String(32))
    plan_id: Mapped[str | None] = mapped_column(
        ID, ForeignKey("research_plans.id", ondelete="SET NULL"), nullable=True
    )
    output_media_type: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    output_formatting_instructions: Mapped[str | None] = mapped_column(Text, nullable=True)
    result_summary: Mapped[str | None] = mapped_column(Text, nullable=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        Index("ix_skill_executions_session_started", "tenant_id", "session_id", "started_at", "id"),
    )


class ResearchOutput(Base):
    __tablename__ = "research_outputs"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    plan_id: Mapped[str] = mapped_column(ID, ForeignKey("research_plans.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(Text, default="")
    media_type: Mapped[str] = mapped_column(String(SHORT_TEXT))
    content: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_research_outputs_plan", "plan_id"),)


class Event(Base):
    """The append-only event log; ``seq`` is gap-free per tenant in commit order."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(SERIAL, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    seq: Mapped[int] = mapped_column(BigInteger)
    entity_type: Mapped[str] = mapped_column(String(32))
    entity_id: Mapped[str] = mapped_column(ID)
    root_type: Mapped[str] = mapped_column(String(32))
    root_id: Mapped[str] = mapped_column(ID)
    kind: Mapped[str] = mapped_column(String(64))
    from_state: Mapped[str | None] = mapped_column(String(32), nullable=True)
    to_state: Mapped[str | None] = mapped_column(String(32), nullable=True)
    actor: Mapped[str] = mapped_column(String(SHORT_TEXT))
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        UniqueConstraint("tenant_id", "seq", name="uq_events_tenant_seq"),
        Index("ix_events_root", "tenant_id", "root_id", "seq"),
        # History filtered by object and by kind (issue 16: activity page, past stall alerts).
        Index("ix_events_entity", "tenant_id", "entity_id", "seq"),
        Index("ix_events_kind", "tenant_id", "kind", "seq"),
    )


class OperationLog(Base):
    __tablename__ = "operation_log"

    id: Mapped[int] = mapped_column(SERIAL, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    operation_name: Mapped[str] = mapped_column(String(SHORT_TEXT))
    operation_type: Mapped[str] = mapped_column(String(16))
    duration_ms: Mapped[float] = mapped_column(Float)
    error: Mapped[bool] = mapped_column(Boolean)
    actor: Mapped[str] = mapped_column(String(SHORT_TEXT))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        # The admin query pages a tenant's records newest first by id; retention deletes by age.
        Index("ix_operation_log_tenant_id", "tenant_id", "id"),
        Index("ix_operation_log_created_at", "created_at"),
    )


class McpToolCallLog(Base):
    """Seed 003's mcp_tool_call_log: one row per MCP tool call (not ping), its sizes and not its content."""

    __tablename__ = "mcp_tool_call_log"

    id: Mapped[int] = mapped_column(SERIAL, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    tool: Mapped[str] = mapped_column(String(SHORT_TEXT))
    actor: Mapped[str] = mapped_column(String(SHORT_TEXT))
    session_id: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    transport: Mapped[str] = mapped_column(String(16))
    duration_ms: Mapped[float] = mapped_column(Float)
    error: Mapped[bool] = mapped_column(Boolean)
    error_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    argument_bytes: Mapped[int] = mapped_column(Integer)
    result_bytes: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        # As the operation log: the admin query pages a tenant's records by id; retention deletes by age.
        Index("ix_mcp_tool_call_log_tenant_id", "tenant_id", "id"),
        Index("ix_mcp_tool_call_log_created_at", "created_at"),
    )


# The missions and workflows domains keep their models in modules of their own; importing them here
# puts their tables in ``Base.metadata`` for everything that reads it (Alembic, tests).
from . import decision_models as decision_models  # noqa: E402
from . import mission_models as mission_models  # noqa: E402
from . import webhook_models as webhook_models  # noqa: E402
from . import workflow_models as workflow_models  # noqa: E402
