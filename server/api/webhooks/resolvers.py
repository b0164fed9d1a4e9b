"""Webhook queries and mutations: thin, one service call each, admin keys only."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.types import Info

from ...services.webhooks import endpoints as webhook_endpoints
from ...services.webhooks import queries as webhook_queries
from ...services.webhooks.delivery import DeliveryStatus
from ...services.webhooks.topics import Topic
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..errors import run_mutation, run_query
from ..pagination import Connection, capped, selects
from .types import (
    DeleteWebhookEndpointPayload,
    IsTenantAdmin,
    RedeliverPayload,
    WebhookAttemptType,
    WebhookDeliveryType,
    WebhookEndpointPayload,
    WebhookEndpointType,
)

I = Info[Context, Any]  # noqa: E741
ADMIN: list[type[BasePermission]] = [IsTenantAdmin]
A = strawberry.argument
EndpointId = Annotated[strawberry.ID, A(description="The webhook endpoint.")]
URL = "http:// or https:// only, at most 2048 bytes; loopback, private and link-local addresses are refused "
URL += "unless the operator allows them (FLIGHTDECK_WEBHOOK_ALLOW_PRIVATE_TARGETS)."


def _changed(info: I) -> None:
    for listener in info.context.runtime.endpoint_listeners:
        listener()


@strawberry.type
class WebhookQueries:
    @strawberry.field(
        description="Your tenant's webhook endpoints, oldest first (admin keys only).",
        permission_classes=ADMIN,
    )
    async def webhook_endpoints(self, info: I) -> list[WebhookEndpointType]:
        tenant = info.context.principal.tenant_id

        async def read(session: Any) -> list[WebhookEndpointType]:
            rows = await webhook_queries.list_endpoints(session, tenant)
            return [WebhookEndpointType.from_row(r) for r in rows]

        return await run_query(info, read) or []

    @strawberry.field(
        description="An endpoint's delivery log, newest event first (admin keys only); null when no such "
        "endpoint.",
        permission_classes=ADMIN,
    )
    async def webhook_deliveries(
        self,
        info: I,
        endpoint_id: EndpointId,
        status: Annotated[DeliveryStatus | None, A(description="Only deliveries in this status.")] = None,
        first: Annotated[int, A(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, A(description=PAGE_AFTER)] = None,
    ) -> Connection[WebhookDeliveryType] | None:
        tenant = info.context.principal.tenant_id
        size, counted = capped(info, first), selects(info, "totalCount")

        async def read(session: Any) -> Connection[WebhookDeliveryType]:
            endpoint = str(endpoint_id)
            page = await webhook_queries.list_deliveries(session, tenant, endpoint, status, size, after)
            total = await webhook_queries.count_deliveries(session, endpoint, status) if counted else 0
            return Connection.of(
                page.items,
                page.has_next_page,
                webhook_queries.delivery_cursor,
                WebhookDeliveryType.from_row,
                total,
            )

        return await run_query(info, read)

    @strawberry.field(
        description="Every attempt (the last 100) to deliver one event to one endpoint, oldest first "
        "(admin keys only): status code or error, and latency.",
        permission_classes=ADMIN,
    )
    async def webhook_attempts(
        self, info: I, endpoint_id: EndpointId, seq: Annotated[int, A(description="The event's seq.")]
    ) -> list[WebhookAttemptType]:
        tenant = info.context.principal.tenant_id

        async def read(session: Any) -> list[WebhookAttemptType]:
            rows = await webhook_queries.list_attempts(session, tenant, str(endpoint_id), seq)
            return [WebhookAttemptType.from_row(r) for r in rows]

        return await run_query(info, read) or []


@strawberry.input(description="A new webhook endpoint.")
class CreateWebhookEndpointInput:
    url: str = strawberry.field(description=URL)
    topics: list[Topic] = strawberry.field(description="What it receives; at least one.")
    description: str | None = strawberry.field(default=None, description="A note, at most 200 bytes.")
    enabled: bool = strawberry.field(default=True, description="False: registered, but nothing sent yet.")


@strawberry.input(description="What to change on an endpoint; omitted fields stay as they are.")
class UpdateWebhookEndpointInput:
    id: strawberry.ID = strawberry.field(description="The endpoint.")
    url: str | None = strawberry.field(default=None, description=URL)
    topics: list[Topic] | None = strawberry.field(default=None, description="What it receives; at least one.")
    description: str | None = strawberry.field(default=None, description="A note, at most 200 bytes.")
    enabled: bool | None = strawberry.field(
        default=None, description="False pauses deliveries (events wait); True resumes them."
    )


@strawberry.type
class WebhookMutations:
    @strawberry.mutation(
        description="Register an endpoint (admin keys only). It receives events from now on; the payload "
        "carries its signing secret, once.",
        permission_classes=ADMIN,
    )
    async def create_webhook_endpoint(
        self, info: I, input: Annotated[CreateWebhookEndpointInput, A(description="The new endpoint.")]
    ) -> WebhookEndpointPayload:
        created, errors = await run_mutation(
            info,
            lambda tx: webhook_endpoints.create_endpoint(
                tx, input.url, input.topics, input.description, input.enabled
            ),
        )
        if created is None:
            return WebhookEndpointPayload(user_errors=errors)
        _changed(info)
        return WebhookEndpointPayload(
            endpoint=WebhookEndpointType.from_row(created.endpoint), secret=created.secret
        )

    @strawberry.mutation(description="Change an endpoint (admin keys only).", permission_classes=ADMIN)
    async def update_webhook_endpoint(
        self, info: I, input: Annotated[UpdateWebhookEndpointInput, A(description="What to change.")]
    ) -> WebhookEndpointPayload:
        row, errors = await run_mutation(
            info,
            lambda tx: webhook_endpoints.update_endpoint(
                tx, str(input.id), input.url, input.topics, input.description, input.enabled
            ),
        )
        if row is None:
            return WebhookEndpointPayload(user_errors=errors)
        _changed(info)
        return WebhookEndpointPayload(endpoint=WebhookEndpointType.from_row(row))

    @strawberry.mutation(
        description="Remove an endpoint and its delivery log (admin keys only).", permission_classes=ADMIN
    )
    async def delete_webhook_endpoint(self, info: I, id: EndpointId) -> DeleteWebhookEndpointPayload:
        deleted, errors = await run_mutation(info, lambda tx: webhook_endpoints.delete_endpoint(tx, str(id)))
        if deleted is None:
            return DeleteWebhookEndpointPayload(user_errors=errors)
        _changed(info)
        return DeleteWebhookEndpointPayload(deleted_id=strawberry.ID(deleted))

    @strawberry.mutation(
        description="Give an endpoint a new signing secret (admin keys only). For `overlapSeconds` (at "
        "most 7 days) deliveries carry a signature with the old secret too, so receivers can switch over.",
        permission_classes=ADMIN,
    )
    async def rotate_webhook_secret(
        self,
        info: I,
        id: EndpointId,
        overlap_seconds: Annotated[
            float, A(description="How long the old secret still signs; 0 retires it now.")
        ] = 86_400,
    ) -> WebhookEndpointPayload:
        created, errors = await run_mutation(
            info, lambda tx: webhook_endpoints.rotate_secret(tx, str(id), overlap_seconds)
        )
        if created is None:
            return WebhookEndpointPayload(user_errors=errors)
        return WebhookEndpointPayload(
            endpoint=WebhookEndpointType.from_row(created.endpoint), secret=created.secret
        )

    @strawberry.mutation(
        description="Send events again to an endpoint (admin keys only): every event from `fromSeq` to "
        "`toSeq` (default: just `fromSeq`; at most 10,000 seqs) that its topics match and it has already "
        "taken up, as a delivery due now with fresh attempts. Receivers drop repeats by `webhook-id`.",
        permission_classes=ADMIN,
    )
    async def redeliver_webhook_events(
        self,
        info: I,
        id: EndpointId,
        from_seq: Annotated[int, A(description="The first event seq.")],
        to_seq: Annotated[int | None, A(description="The last event seq; omitted: fromSeq.")] = None,
    ) -> RedeliverPayload:
        last = to_seq if to_seq is not None else from_seq
        queued, errors = await run_mutation(
            info, lambda tx: webhook_endpoints.redeliver(tx, str(id), from_seq, last)
        )
        if queued is None:
            return RedeliverPayload(user_errors=errors)
        _changed(info)
        return RedeliverPayload(queued=queued)
