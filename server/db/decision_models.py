"""Decision points with deadlines, assignees and escalation, and the defaults they start with.

``decisions`` holds one row per decision point opened (a review requested, a gate opened, a proposal
waiting for approval): what it is about, who it is assigned to, when it escalates and when its default
applies. The timer reads the two deadlines through an index each. ``decision_policies`` holds the
defaults a new decision starts with, per tenant, per plan or mission, and per workflow definition.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..limits import SHORT_TEXT
from .decision_due import due_key
from .models import ID, Base
from .types import UTCDateTime


class Decision(Base):
    __tablename__ = "decisions"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    subject_type: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[str] = mapped_column(ID)
    root_type: Mapped[str] = mapped_column(String(32))
    root_id: Mapped[str] = mapped_column(ID)
    assignee: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    default_outcome: Mapped[str | None] = mapped_column(String(16), nullable=True)
    deadline_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    escalate_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    escalation_role: Mapped[str | None] = mapped_column(String(16), nullable=True)
    escalated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    outcome: Mapped[str | None] = mapped_column(String(32), nullable=True)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Open: the deadline, or the far future without one; closed: NULL (server/db/decision_due.py).
    due_key: Mapped[datetime | None] = mapped_column(UTCDateTime, due_key(), nullable=True)

    __table_args__ = (
        # The inbox: a tenant's open decisions, oldest first; and the ones about one thing.
        Index("ix_decisions_tenant_status_created", "tenant_id", "status", "created_at", "id"),
        Index("ix_decisions_subject", "tenant_id", "subject_id", "status"),
        # The timer: open decisions past their deadline, or past their escalation time.
        Index("ix_decisions_status_deadline", "status", "deadline_at"),
        Index("ix_decisions_status_escalate", "status", "escalate_at"),
        # The review inboxes in deadline order: a domain's open decisions, nearest deadline first.
        Index("ix_decisions_tenant_root_due", "tenant_id", "root_type", "due_key", "created_at", "id"),
    )


class DecisionPolicy(Base):
    """Defaults for the decisions opened in a scope: ``tenant`` (scope id: the tenant), ``plan`` or
    ``mission`` (its id), ``workflow_definition`` (the workflow's name). ``kind`` is a decision kind or
    ``*`` for every kind of that scope."""

    __tablename__ = "decision_policies"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    scope_type: Mapped[str] = mapped_column(String(32))
    scope_id: Mapped[str] = mapped_column(String(SHORT_TEXT))
    kind: Mapped[str] = mapped_column(String(32))
    deadline_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    default_outcome: Mapped[str | None] = mapped_column(String(16), nullable=True)
    assignee: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    escalate_after_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    escalation_role: Mapped[str | None] = mapped_column(String(16), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        UniqueConstraint("tenant_id", "scope_type", "scope_id", "kind", name="uq_decision_policies_scope"),
    )
