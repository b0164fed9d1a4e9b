"""Webhook targets through a real server (SSRF): spellings of non-public addresses are refused when
registered, and an endpoint saved with one earlier is never delivered to while private targets are not
allowed; with the operator's opt-out on, the same URLs are accepted and reach the receiver."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from server.auth import Principal, Role
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.services.runtime import Runtime, unit_of_work
from server.services.webhooks import endpoints
from server.services.webhooks.topics import Topic
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, keys_per_role, start_server, stop_server
from tests.realtime.processes import until
from tests.services.webhooks.receiver import Receiver, receiver
from tests.services.webhooks.spellings import ISSUE_SPELLINGS, OTHER_ISSUE_ADDRESSES

CREATE = """
mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { id } userErrors { code field message } }
}
"""
ENDPOINTS = "{ webhookEndpoints { id url } }"
DELIVERIES = """
query($id: ID!) {
  webhookDeliveries(endpointId: $id) { edges { node { status attempts lastStatusCode lastError } } }
}
"""
SPELLED = ISSUE_SPELLINGS + [host for hosts in OTHER_ISSUE_ADDRESSES.values() for host in hosts]


@pytest.fixture(params=[False, True], ids=["private-refused", "private-allowed"])
def allow_private(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def settings(db_url: str, allow_private: bool) -> Settings:
    return Settings(
        database_url=db_url,
        auth_cache_seconds=0,
        webhook_allow_private_targets=allow_private,
        webhook_poll_seconds=0.1,
    )


@pytest.fixture
async def hook() -> AsyncIterator[Receiver]:
    async with receiver() as r:
        yield r


@pytest.fixture
async def saved(settings: Settings, clock: FakeClock, hook: Receiver) -> list[str]:
    """One endpoint per spelling of the report, saved before the server starts while private targets
    were allowed (as an operator who later turns the setting off would have them)."""
    db = Database(settings.database_url)
    lenient = Runtime(
        db=db, clock=clock, settings=settings.model_copy(update={"webhook_allow_private_targets": True})
    )
    made = []
    for host in ISSUE_SPELLINGS:
        async with unit_of_work(lenient, Principal("t", Role.ADMIN, "seed")) as tx:
            url = hook.url.replace("127.0.0.1", host)
            created = await endpoints.create_endpoint(tx, url, [Topic.REVIEW_REQUESTED], None, True)
            made.append(created.endpoint.id)
    await db.dispose()
    return made


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> dict[Role, str]:
    return await keys_per_role(settings.database_url, clock.now())


@pytest.fixture
def server(
    saved: list[str], keys: dict[Role, str], settings: Settings, clock: FakeClock
) -> Iterator[LiveServer]:
    live = start_server(settings, clock)
    yield live
    stop_server(live)


@pytest.fixture
async def clients(keys: dict[Role, str], server: LiveServer) -> AsyncIterator[dict[Role, GraphQLClient]]:
    made = {role: GraphQLClient(server.url, token) for role, token in keys.items()}
    yield made
    for c in made.values():
        await c.aclose()


async def test_spellings_of_non_public_addresses_are_refused_when_registered(
    clients: dict[Role, GraphQLClient], saved: list[str], allow_private: bool
) -> None:
    admin = clients[Role.ADMIN]
    for host in SPELLED:
        url = f"http://{host}:8080/hook"
        answer = (await admin.execute(CREATE, {"input": {"url": url, "topics": ["PLAN_FAILED"]}}))[
            "createWebhookEndpoint"
        ]
        if allow_private:
            assert answer["userErrors"] == [], url
        else:
            assert answer["endpoint"] is None, url
            [error] = answer["userErrors"]
            assert (error["code"], error["field"]) == ("VALIDATION_FAILED", ["url"])
            assert "non-public address" in error["message"]
    registered = (await admin.execute(ENDPOINTS))["webhookEndpoints"]
    assert len(registered) == len(saved) + (len(SPELLED) if allow_private else 0)


async def test_an_endpoint_spelled_as_loopback_gets_nothing_unless_private_targets_are_allowed(
    clients: dict[Role, GraphQLClient], saved: list[str], hook: Receiver, allow_private: bool
) -> None:
    admin, agent = clients[Role.ADMIN], clients[Role.AGENT]
    created = await agent.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    started = await agent.execute(
        ops.START_NEXT_STEP, {"planId": created["createResearchPlan"]["plan"]["id"]}
    )
    step_id = started["startNextStep"]["step"]["id"]
    await agent.execute(ops.REQUEST_REVIEW, {"stepId": step_id, "summary": "look", "questions": []})

    async def deliveries() -> list[dict[str, Any]]:
        found = []
        for endpoint_id in saved:
            page = (await admin.execute(DELIVERIES, {"id": endpoint_id}))["webhookDeliveries"]
            found += [edge["node"] for edge in page["edges"] if edge["node"]["attempts"] >= 1]
        return found

    async def attempted() -> bool:
        return len(await deliveries()) == len(saved)

    await until(attempted, 30, "an attempt to every endpoint")
    outcomes = [(d["status"], d["lastStatusCode"], d["lastError"]) for d in await deliveries()]
    if allow_private:
        assert outcomes == [("DELIVERED", 200, None)] * len(saved)
        assert len(hook.received) == len(saved)
    else:
        refused = ("PENDING", None, "refused: 127.0.0.1 is a non-public address")
        assert outcomes == [refused] * len(saved)
        assert hook.received == []
