"""Models of the missions domain (seed 004): tools, missions, hops, tool steps and assets.

Every row carries ``tenant_id``; tool steps and assets also carry their ``mission_id`` so that a
mutation finds (and locks) the aggregate root with one read. ``status_reason`` keeps the reason of the
latest rejection, cancellation or failure; ``failed_from`` the state a retry returns to.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..limits import SHORT_TEXT
from .models import ID, Base
from .types import JSONType, UTCDateTime

STATE = String(32)


class Tool(Base):
    """A tool agents may select for a tool step, with the JSON Schema its parameters must satisfy."""

    __tablename__ = "tools"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(SHORT_TEXT))
    description: Mapped[str] = mapped_column(Text, default="")
    parameter_schema: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("tenant_id", "name", name="uq_tools_tenant_name"),)


class Mission(Base):
    __tablename__ = "missions"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(Text)
    goal: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    failed_from: Mapped[str | None] = mapped_column(STATE, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        Index("ix_missions_tenant_created", "tenant_id", "created_at", "id"),
        Index("ix_missions_tenant_status_created", "tenant_id", "status", "created_at", "id"),
        Index("ix_missions_tenant_updated", "tenant_id", "updated_at", "id"),
        Index("ix_missions_tenant_status_updated", "tenant_id", "status", "updated_at", "id"),
    )


class Hop(Base):
    __tablename__ = "hops"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    mission_id: Mapped[str] = mapped_column(ID, ForeignKey("missions.id", ondelete="CASCADE"))
    sequence: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(Text)
    plan: Mapped[str] = mapped_column(Text)
    is_final: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    failed_from: Mapped[str | None] = mapped_column(STATE, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        UniqueConstraint("mission_id", "sequence", name="uq_hops_mission_sequence"),
        # The review inbox: a tenant's hops waiting for a person.
        Index("ix_hops_tenant_status", "tenant_id", "status", "created_at"),
    )


class ToolStep(Base):
    __tablename__ = "tool_steps"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    mission_id: Mapped[str] = mapped_column(ID, ForeignKey("missions.id", ondelete="CASCADE"))
    hop_id: Mapped[str] = mapped_column(ID, ForeignKey("hops.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text, default="")
    tool_id: Mapped[str | None] = mapped_column(
        ID, ForeignKey("tools.id", ondelete="RESTRICT"), nullable=True
    )
    tool_name: Mapped[str | None] = mapped_column(
        String(SHORT_TEXT), nullable=True
    )  # a tool's name never changes
    parameters: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    result: Mapped[Any] = mapped_column(JSONType, nullable=True)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    failed_from: Mapped[str | None] = mapped_column(STATE, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        Index("ix_tool_steps_hop_position", "hop_id", "position"),
        Index("ix_tool_steps_mission", "mission_id"),
    )


class Asset(Base):
    __tablename__ = "assets"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    mission_id: Mapped[str] = mapped_column(ID, ForeignKey("missions.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text, default="")
    media_type: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    content: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    failed_from: Mapped[str | None] = mapped_column(STATE, nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ready_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        Index("ix_assets_mission", "mission_id", "created_at"),
        Index("ix_assets_tenant_status", "tenant_id", "status", "created_at"),
        # The expiry timer: assets of a state by expiry time, across tenants.
        Index("ix_assets_status_expires", "status", "expires_at"),
    )
