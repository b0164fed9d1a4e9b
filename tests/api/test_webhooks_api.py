"""Webhook endpoints and the delivery log through GraphQL on a real server: admin keys only, per tenant,
with deliveries to a real receiver on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.processes import until
from tests.services.webhooks.receiver import Receiver, receiver

CREATE = """
mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    endpoint { id url topics enabled cursorSeq } secret userErrors { code field message }
  }
}
"""
ENDPOINTS = "{ webhookEndpoints { id url topics } }"
DELIVERIES = """
query($id: ID!) {
  webhookDeliveries(endpointId: $id) {
    totalCount pageInfo { hasNextPage } edges { node { seq topic status attempts lastStatusCode } }
  }
}
"""
ATTEMPTS = """
query($id: ID!, $seq: Int!) {
  webhookAttempts(endpointId: $id, seq: $seq) { attempt statusCode succeeded latencyMs }
}
"""
REDELIVER = """
mutation($id: ID!, $from: Int!) {
  redeliverWebhookEvents(id: $id, fromSeq: $from) { queued userErrors { code } }
}
"""
ROTATE = "mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { previousSecretUntil } } }"
DELETE = "mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { deletedId userErrors { code } } }"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(
        database_url=db_url,
        auth_cache_seconds=0,
        webhook_allow_private_targets=True,
        webhook_poll_seconds=0.1,
    )


@pytest.fixture
async def tokens(settings: Settings, clock: FakeClock) -> dict[str, str]:
    db = Database(settings.database_url)
    made = {}
    for name, tenant, role in [
        ("admin", "tenant-a", Role.ADMIN),
        ("agent", "tenant-a", Role.AGENT),
        ("other", "tenant-b", Role.ADMIN),
    ]:
        made[name] = (await create_key(db, tenant, role, name, clock.now()))[1]
    await db.dispose()
    return made


@pytest.fixture
async def clients(tokens: dict[str, str], live_server: LiveServer) -> AsyncIterator[dict[str, GraphQLClient]]:
    made = {name: GraphQLClient(live_server.url, token) for name, token in tokens.items()}
    yield made
    for c in made.values():
        await c.aclose()


@pytest.fixture
async def hook() -> AsyncIterator[Receiver]:
    async with receiver() as r:
        yield r


async def _code(client: GraphQLClient, document: str, variables: dict[str, Any] | None = None) -> str:
    body = (await client.post(document, variables)).json()
    return str(body["errors"][0]["extensions"]["code"])


async def test_an_admin_registers_an_endpoint_reads_its_log_and_redelivers(
    clients: dict[str, GraphQLClient], hook: Receiver
) -> None:
    admin, agent, other = clients["admin"], clients["agent"], clients["other"]
    new = {"url": hook.url, "topics": ["REVIEW_REQUESTED"]}
    assert await _code(agent, CREATE, {"input": new}) == "FORBIDDEN"
    assert await _code(agent, ENDPOINTS) == "FORBIDDEN"
    bad = (await admin.execute(CREATE, {"input": {**new, "url": "ftp://example.com/"}}))[
        "createWebhookEndpoint"
    ]
    assert [(e["code"], e["field"]) for e in bad["userErrors"]] == [("VALIDATION_FAILED", ["url"])]

    made = (await admin.execute(CREATE, {"input": new}))["createWebhookEndpoint"]
    assert made["userErrors"] == []
    assert made["secret"].startswith("whsec_")
    endpoint_id = made["endpoint"]["id"]
    assert (await admin.execute(ENDPOINTS))["webhookEndpoints"] == [
        {"id": endpoint_id, "url": hook.url, "topics": ["REVIEW_REQUESTED"]}
    ]
    assert (await other.execute(ENDPOINTS))["webhookEndpoints"] == []
    assert (await other.execute(DELIVERIES, {"id": endpoint_id}))["webhookDeliveries"] is None

    created = await agent.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    started = await agent.execute(ops.START_NEXT_STEP, {"planId": plan_id})
    step_id = started["startNextStep"]["step"]["id"]
    await agent.execute(ops.REQUEST_REVIEW, {"stepId": step_id, "summary": "look", "questions": []})

    async def delivered(count: int) -> bool:
        page = (await admin.execute(DELIVERIES, {"id": endpoint_id}))["webhookDeliveries"]
        return (
            len(hook.received) >= count and bool(page["edges"]) and page["edges"][0]["node"]["attempts"] == 1
        )

    await until(lambda: delivered(1), 20, "the review.requested delivery")
    page = (await admin.execute(DELIVERIES, {"id": endpoint_id}))["webhookDeliveries"]
    assert page["totalCount"] == 1
    assert page["pageInfo"]["hasNextPage"] is False
    [item] = [edge["node"] for edge in page["edges"]]
    assert (item["topic"], item["status"], item["lastStatusCode"]) == ("REVIEW_REQUESTED", "DELIVERED", 200)
    assert hook.received[0].json["type"] == "review.requested"
    assert hook.seqs == [str(item["seq"])]
    assert hook.ids == [f"msg_{endpoint_id}_{item['seq']}"]
    [attempt] = (await admin.execute(ATTEMPTS, {"id": endpoint_id, "seq": item["seq"]}))["webhookAttempts"]
    assert attempt["statusCode"] == 200
    assert attempt["succeeded"]
    assert attempt["latencyMs"] >= 0

    again = (await admin.execute(REDELIVER, {"id": endpoint_id, "from": item["seq"]}))[
        "redeliverWebhookEvents"
    ]
    assert again == {"queued": 1, "userErrors": []}
    await until(lambda: delivered(2), 20, "the redelivery")
    assert hook.seqs == [str(item["seq"])] * 2
    assert len(set(hook.ids)) == 1  # a redelivery keeps the webhook-id

    rotated = (await admin.execute(ROTATE, {"id": endpoint_id}))["rotateWebhookSecret"]
    assert rotated["secret"] != made["secret"]
    assert rotated["endpoint"]["previousSecretUntil"] is not None
    assert (await other.execute(DELETE, {"id": endpoint_id}))["deleteWebhookEndpoint"]["userErrors"] == [
        {"code": "NOT_FOUND"}
    ]
    gone = (await admin.execute(DELETE, {"id": endpoint_id}))["deleteWebhookEndpoint"]
    assert gone == {"deletedId": endpoint_id, "userErrors": []}
    assert (await admin.execute(ENDPOINTS))["webhookEndpoints"] == []
