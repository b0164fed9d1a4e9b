"""A real graphql-transport-ws client (gql over websockets) for the realtime tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from gql import Client, GraphQLRequest
from gql.transport.websockets import WebsocketsTransport


def transport(ws_url: str, token: str | None = None, **kw: Any) -> WebsocketsTransport:
    return WebsocketsTransport(
        url=ws_url,
        subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL],
        init_payload={"Authorization": f"Bearer {token}"} if token else {},
        **kw,
    )


@asynccontextmanager
async def ws_session(ws_url: str, token: str | None = None) -> AsyncIterator[Any]:
    async with Client(transport=transport(ws_url, token), fetch_schema_from_transport=False) as session:
        yield session


async def collect(
    session: Any, document: str, variables: dict[str, Any], count: int, within: float = 20
) -> list[dict[str, Any]]:
    """The first ``count`` results of a subscription."""
    results: list[dict[str, Any]] = []

    async def run() -> None:
        async for result in session.subscribe(GraphQLRequest(document, variable_values=variables)):
            results.append(result)
            if len(results) >= count:
                return

    await asyncio.wait_for(run(), within)
    return results


async def next_result(updates: AsyncIterator[dict[str, Any]], within: float = 20) -> dict[str, Any]:
    """The next result of a subscription (``session.subscribe(...)``), waiting at most ``within``."""
    return await asyncio.wait_for(anext(updates), within)


EVENTS = """
subscription Events($after: Int, $filter: EventFilter) {
  events(after: $after, filter: $filter) { seq kind entityType entityId rootId fromState toState data }
}
"""

PLAN_UPDATED = """
subscription Plan($id: ID!) {
  researchPlanUpdated(id: $id) { id status progressPercent stepCounts { pending inProgress completed } }
}
"""

STALL_ALERTS = """
subscription Stalls($after: Int) {
  stallAlerts(after: $after) { seq planId thresholdSeconds steps { stepId runningSeconds } plan { status } }
}
"""
