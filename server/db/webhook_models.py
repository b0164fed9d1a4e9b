"""Webhook tables: a tenant's endpoints, one delivery row per (endpoint, event), every attempt.

An endpoint's ``cursor_seq`` is the last event of its tenant it has taken up (delivered, or queued for a
retry in ``webhook_deliveries``); it advances in the transaction that records what was sent, so a
restart re-sends at most one batch and loses nothing. ``lease_owner`` / ``lease_expires_at`` let one
server process at a time deliver to an endpoint.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..limits import SHORT_TEXT, URL_TEXT
from .models import ID, SERIAL, Base
from .types import JSONType, UTCDateTime

URL_LIMIT = URL_TEXT


class WebhookEndpoint(Base):
    __tablename__ = "webhook_endpoints"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(String(URL_LIMIT))
    description: Mapped[str] = mapped_column(String(SHORT_TEXT), default="")
    topics: Mapped[list[str]] = mapped_column(JSONType)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    # Why the server disabled it (HISTORY_TRUNCATED); None when enabled or disabled by an admin.
    paused_reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    secret: Mapped[str] = mapped_column(String(128))
    # During a rotation's overlap deliveries carry a signature with the previous secret too.
    previous_secret: Mapped[str | None] = mapped_column(String(128), nullable=True)
    previous_secret_until: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    cursor_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        Index("ix_webhook_endpoints_tenant_created", "tenant_id", "created_at", "id"),
        # The dispatcher's pass reads the enabled endpoints of every tenant.
        Index("ix_webhook_endpoints_enabled", "enabled", "tenant_id", "id"),
    )


class WebhookDelivery(Base):
    """One event for one endpoint: pending (a retry is due at ``next_attempt_at``), delivered or failed."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(SERIAL, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    endpoint_id: Mapped[str] = mapped_column(ID, ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(BigInteger)
    topic: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    first_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        UniqueConstraint("endpoint_id", "seq", name="uq_webhook_deliveries_endpoint_seq"),
        # The retry queue: an endpoint's pending deliveries by due time.
        Index("ix_webhook_deliveries_endpoint_status_due", "endpoint_id", "status", "next_attempt_at"),
    )


class WebhookAttempt(Base):
    """One HTTP request of a delivery: what came back (status code or error) and how long it took."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(SERIAL, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    endpoint_id: Mapped[str] = mapped_column(ID, ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(BigInteger)
    attempt: Mapped[int] = mapped_column(Integer)
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error: Mapped[str | None] = mapped_column(String(SHORT_TEXT), nullable=True)
    latency_ms: Mapped[float] = mapped_column(Float)
    succeeded: Mapped[bool] = mapped_column(Boolean)
    process: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_webhook_attempts_endpoint_seq", "endpoint_id", "seq", "id"),)


__all__ = ["URL_LIMIT", "JSONType", "WebhookAttempt", "WebhookDelivery", "WebhookEndpoint"]
