"""GraphQL types of webhook endpoints, deliveries and attempts; the secret only where one is made."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.types import Info

from ...auth import Role
from ...db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ...services.webhooks.delivery import DeliveryStatus
from ...services.webhooks.topics import Topic
from ..context import Context
from ..descriptions import CREATED_AT, UPDATED_AT, described_enum, user_errors
from ..errors import UserError
from ..rows import from_row


class IsTenantAdmin(BasePermission):
    message = "only admin keys may manage webhooks or read their deliveries"
    error_extensions = {"code": "FORBIDDEN"}

    def has_permission(self, source: Any, info: Info[Context, Any], **kwargs: Any) -> bool:
        return info.context.principal.role is Role.ADMIN


described_enum(
    Topic,
    "WebhookTopic",
    "What an endpoint subscribes to; each is a set of event-log kinds (docs/webhooks.md). The payload's "
    "`type` is the topic's value, e.g. `plan.finished`.",
    {
        Topic.REVIEW_REQUESTED: "A decision waits for a person: requestUserReview, a workflow approval "
        "gate, a proposed mission, hop plan, hop implementation or asset.",
        Topic.DECISION_MADE: "A person decided: a review answered, a gate approved or rejected, a mission, "
        "hop plan or implementation approved or rejected, an asset rejected.",
        Topic.DEADLINE_APPLIED: "A decision's deadline passed and its default outcome was applied.",
        Topic.ESCALATED: "A decision was escalated (or a workflow step raised a governance error).",
        Topic.STALL_DETECTED: "A plan stalled: a step in progress past its threshold.",
        Topic.PLAN_FINISHED: "A plan completed.",
        Topic.PLAN_FAILED: "A plan failed.",
        Topic.WORKFLOW_FINISHED: "A workflow completed.",
        Topic.WORKFLOW_FAILED: "A workflow failed.",
        Topic.MISSION_FINISHED: "A mission completed.",
        Topic.MISSION_FAILED: "A mission failed.",
        Topic.ASSET_EXPIRED: "An asset passed its TTL.",
    },
)
described_enum(
    DeliveryStatus,
    "WebhookDeliveryStatus",
    "Where one event's delivery to one endpoint stands.",
    {
        DeliveryStatus.PENDING: "Not delivered yet: a retry is due at `nextAttemptAt`.",
        DeliveryStatus.DELIVERED: "The endpoint answered 2xx.",
        DeliveryStatus.FAILED: "Given up: every attempt of the retry schedule failed (redeliver to retry).",
    },
)


@strawberry.type(
    name="WebhookEndpoint",
    description="An HTTP endpoint that receives your tenant's events (Standard Webhooks).",
)
class WebhookEndpointType:
    id: strawberry.ID = strawberry.field(description="The endpoint's id.")
    url: str = strawberry.field(description="Where deliveries are POSTed.")
    description: str = strawberry.field(description="A note for people.")
    topics: list[Topic] = strawberry.field(description="What it receives.")
    enabled: bool = strawberry.field(description="False: nothing is sent; events wait at its cursor.")
    paused_reason: str | None = strawberry.field(
        description="Why the server disabled it: HISTORY_TRUNCATED when events after its cursor were "
        "archived before it took them up (enabling it again moves the cursor past them; the update "
        "event records which seqs were skipped). Null when enabled or disabled by an admin."
    )
    cursor_seq: int = strawberry.field(description="The last event seq it has taken up (sent or queued).")
    previous_secret_until: datetime | None = strawberry.field(
        description="While set and in the future, deliveries are signed with the previous secret too."
    )
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)

    @staticmethod
    def from_row(row: WebhookEndpoint) -> WebhookEndpointType:
        return from_row(WebhookEndpointType, row, topics=[Topic(t) for t in row.topics])


@strawberry.type(name="WebhookDelivery", description="One event's delivery to one endpoint.")
class WebhookDeliveryType:
    seq: int = strawberry.field(description="The event's seq: the `webhook-id` header, the idempotency key.")
    topic: Topic = strawberry.field(description="The topic it was sent as.")
    status: DeliveryStatus = strawberry.field(description="Delivered, pending a retry, or failed.")
    attempts: int = strawberry.field(description="Attempts so far (since the last redelivery).")
    last_status_code: int | None = strawberry.field(description="The last attempt's HTTP status, if any.")
    last_error: str | None = strawberry.field(description="Why the last attempt failed without a status.")
    next_attempt_at: datetime | None = strawberry.field(description="When a pending delivery is retried.")
    created_at: datetime = strawberry.field(description="When it was first attempted (UTC).")
    updated_at: datetime = strawberry.field(description="When it last changed (UTC).")

    @staticmethod
    def from_row(row: WebhookDelivery) -> WebhookDeliveryType:
        return from_row(WebhookDeliveryType, row)


@strawberry.type(name="WebhookAttempt", description="One HTTP request of a delivery.")
class WebhookAttemptType:
    attempt: int = strawberry.field(description="1 for the first attempt (since the last redelivery).")
    status_code: int | None = strawberry.field(description="The HTTP status, or null (see `error`).")
    error: str | None = strawberry.field(description="Timeout, connection error or refused address.")
    latency_ms: float = strawberry.field(description="From sending to the response read, milliseconds.")
    succeeded: bool = strawberry.field(description="True for a 2xx answer.")
    created_at: datetime = strawberry.field(description="When it was sent (UTC).")

    @staticmethod
    def from_row(row: WebhookAttempt) -> WebhookAttemptType:
        return from_row(WebhookAttemptType, row)


@strawberry.type(description="An endpoint after a webhook mutation.")
class WebhookEndpointPayload:
    endpoint: WebhookEndpointType | None = strawberry.field(default=None, description="The endpoint now.")
    secret: str | None = strawberry.field(
        default=None,
        description="create and rotate only: the signing secret (`whsec_…`). Shown once; store it.",
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What deleteWebhookEndpoint removed.")
class DeleteWebhookEndpointPayload:
    deleted_id: strawberry.ID | None = strawberry.field(default=None, description="The removed endpoint.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What redeliverWebhookEvents queued.")
class RedeliverPayload:
    queued: int | None = strawberry.field(default=None, description="Deliveries queued, due now.")
    user_errors: list[UserError] = user_errors()
