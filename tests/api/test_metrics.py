"""/metrics on a real server: Prometheus text for the operator, counting what the process really did.

The counters are the process's own, and this test process may run other servers before this one, so
every check compares a scrape before with a scrape after.
"""

from __future__ import annotations

import asyncio
import gc
import time
import uuid
from collections.abc import Awaitable, Callable

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from server import metrics
from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.mcp.helpers import mcp_client, ok, refused, steps
from tests.realtime.rawws import EVENT_SEQS, RawSubscription
from tests.services.webhooks.receiver import receiver
from tests.waiting import patient

WEBHOOK_CREATE = """
mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { id } userErrors { code message } }
}
"""

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: GraphQLClient) -> Samples:
    response = await client.http.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def until(check: Callable[[], Awaitable[bool]], within: float, what: str) -> None:
    deadline = time.monotonic() + patient(within)
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {within}s")
        await asyncio.sleep(0.05)


async def test_operations_transitions_and_user_errors_are_counted(client: GraphQLClient) -> None:
    before = await scrape(client)
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    await client.execute(ops.START_NEXT_STEP, {"planId": plan_id})
    missing = await client.execute(ops.START_NEXT_STEP, {"planId": "00000000-0000-0000-0000-000000000000"})
    assert missing["startNextStep"]["userErrors"][0]["code"] == "NOT_FOUND"
    after = await scrape(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    ops_total = "flightdeck_graphql_operations_total"
    # Labelled by root field (schema names), not by the clients' operation names ("Create", "Next").
    assert grew(ops_total, operation="createResearchPlan", type="mutation", outcome="ok") == 1
    assert grew(ops_total, operation="startNextStep", type="mutation", outcome="ok") == 1
    assert grew(ops_total, operation="startNextStep", type="mutation", outcome="user_error") == 1
    duration = "flightdeck_graphql_operation_duration_seconds_count"
    assert grew(duration, operation="startNextStep", type="mutation") == 2
    assert grew("flightdeck_user_errors_total", code="NOT_FOUND") == 1
    step_started = {"machine": "step", "from_state": "pending", "to_state": "in_progress"}
    assert grew("flightdeck_transitions_total", **step_started) == 1
    plan_started = {"machine": "plan", "from_state": "planning", "to_state": "executing"}
    assert grew("flightdeck_transitions_total", **plan_started) == 1
    # Gauges of this process's state, read at scrape time.
    assert value(after, "flightdeck_db_pool_connections", pool="writer", state="capacity") >= 1
    assert ("flightdeck_operation_log_queue_depth", frozenset()) in after


async def test_websockets_subscriptions_and_delivery_lag_are_measured(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    before = await scrape(client)
    sub = await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": 0})
    try:

        async def subscribed() -> bool:
            now = await scrape(client)
            return value(now, "flightdeck_subscriptions_active", kind="events") > value(
                before, "flightdeck_subscriptions_active", kind="events"
            )

        await until(subscribed, 10, "the subscription counted")
        open_now = await scrape(client)
        assert (
            value(open_now, "flightdeck_websockets_open") == value(before, "flightdeck_websockets_open") + 1
        )

        lag = "flightdeck_delivery_lag_seconds_count"

        async def lag_observed() -> bool:
            return value(await scrape(client), lag) > value(before, lag)

        # The lag is measured on the live path. A subscriber still replaying from its cursor when an
        # event commits reads it in its replay (no sample), then joins the live path: the next event
        # takes that path.
        for _ in range(3):
            await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
            await sub.next()
            if await lag_observed():
                break
        await until(lag_observed, 10, "a delivery lag sample")
    finally:
        await sub.close()

    async def closed() -> bool:
        now = await scrape(client)
        return value(now, "flightdeck_websockets_open") == value(
            before, "flightdeck_websockets_open"
        ) and value(now, "flightdeck_subscriptions_active", kind="events") == value(
            before, "flightdeck_subscriptions_active", kind="events"
        )

    await until(closed, 10, "the socket and subscription uncounted")


async def test_each_loop_pass_is_counted(client: GraphQLClient) -> None:
    # Every loop runs once as the server starts.
    samples = await scrape(client)
    for loop in ("stalls", "workflow-timers", "asset-expiry", "operation-log-retention"):
        assert value(samples, "flightdeck_loop_runs_total", loop=loop, outcome="ok") >= 1, loop
        assert value(samples, "flightdeck_loop_duration_seconds_count", loop=loop) >= 1, loop


TOKEN = "operator-" + "x" * 40


async def _scrape_as(url: str, authorization: str | None) -> httpx.Response:
    headers = {"authorization": authorization} if authorization else {}
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        return await http.get("/metrics", headers=headers)


@pytest.mark.parametrize("token", [TOKEN, None])
async def test_only_the_operators_token_may_scrape_and_no_tenant_key_can(
    db_url: str, clock: FakeClock, token: str | None
) -> None:
    db = Database(db_url)
    try:
        _, admin = await create_key(db, "t", Role.ADMIN, "admin", clock.now())
        _, agent = await create_key(db, "t", Role.AGENT, "agent", clock.now())
    finally:
        await db.dispose()
    live = start_server(Settings(database_url=db_url, auth_cache_seconds=0, metrics_token=token), clock)
    try:
        for key in (admin, agent):  # a tenant's key, even an admin's, is refused
            refused = await _scrape_as(live.url, f"Bearer {key}")
            assert refused.status_code == 403
            assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
            assert "flightdeck_" not in refused.text
        wrong = await _scrape_as(live.url, "Bearer " + "y" * 48)
        assert wrong.status_code == 403
        anonymous = await _scrape_as(live.url, None)
        if token is None:  # no operator credential configured: nobody reads metrics beyond dev mode
            assert anonymous.status_code == 403
            assert "FLIGHTDECK_METRICS_TOKEN" in anonymous.json()["errors"][0]["message"]
        else:
            assert anonymous.status_code == 401
            assert anonymous.headers["www-authenticate"] == "Bearer"
            operator = await _scrape_as(live.url, f"Bearer {token}")
            assert operator.status_code == 200
            assert "flightdeck_graphql_operations_total" in operator.text
    finally:
        stop_server(live)


@pytest.mark.parametrize("names_allowed", [False, True])
async def test_a_clients_operation_name_is_a_label_only_when_the_operator_allows_it(
    db_url: str, clock: FakeClock, names_allowed: bool
) -> None:
    live = start_server(Settings(database_url=db_url, metrics_operation_names=names_allowed), clock)
    client = GraphQLClient(live.url)
    try:
        # Its own name each run: the counters outlive a server in this test process.
        secret_name = f"AcmeMerger_{uuid.uuid4().hex}"
        await client.execute(f"query {secret_name} {{ researchPlans(first: 1) {{ totalCount }} }}")
        text = (await client.http.get("/metrics")).text
        assert (secret_name in text) is names_allowed
        if not names_allowed:
            assert 'operation="researchPlans",type="query"' in text
    finally:
        await client.aclose()
        stop_server(live)


async def test_mcp_tool_calls_are_counted_and_timed_by_tool_and_outcome(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    before = await scrape(client)
    async with mcp_client(live_server.url) as mcp:
        await ok(mcp, "create_research_plan", {"researchQuestion": "q", "steps": steps(1)})
        await refused(mcp, "get_next_step", {"planId": "00000000-0000-0000-0000-000000000000"})
        with pytest.raises(Exception, match="unknown tool"):
            await mcp.call_tool("tenant_free_text_tool_name", {})
    after = await scrape(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    calls = "flightdeck_mcp_tool_calls_total"
    assert grew(calls, tool="create_research_plan", outcome="ok") == 1
    assert grew(calls, tool="get_next_step", outcome="error") == 1
    assert grew(calls, tool="unknown", outcome="unknown_tool") == 1
    assert grew("flightdeck_mcp_tool_call_duration_seconds_count", tool="create_research_plan") == 1
    assert not any("tenant_free_text_tool_name" in str(labels) for _, labels in after)


async def test_gc_pauses_have_buckets_up_to_several_seconds(client: GraphQLClient) -> None:
    metrics.watch_gc()
    gc.collect()
    samples = await scrape(client)
    buckets = {
        float(dict(labels)["le"])
        for name, labels in samples
        if name == "flightdeck_gc_pause_seconds_bucket" and dict(labels)["le"] != "+Inf"
    }
    assert max(buckets) >= 5


def test_client_chosen_operation_names_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics, "_names", set())
    labels = [metrics.operation_label(f"Op{n}") for n in range(metrics.MAX_OPERATION_NAMES + 50)]
    assert labels[: metrics.MAX_OPERATION_NAMES] == [f"Op{n}" for n in range(metrics.MAX_OPERATION_NAMES)]
    assert set(labels[metrics.MAX_OPERATION_NAMES :]) == {"other"}
    assert metrics.operation_label("Op0") == "Op0"  # a known name keeps its series
    assert metrics.operation_label(None) == "anonymous"


async def test_webhook_deliveries_and_the_deliverers_passes_are_measured(
    db_url: str, clock: FakeClock
) -> None:
    settings = Settings(database_url=db_url, webhook_allow_private_targets=True, webhook_poll_seconds=0.1)
    live = start_server(settings, clock)
    client = GraphQLClient(live.url)
    try:
        async with receiver() as hook:
            before = await scrape(client)
            made = await client.execute(
                WEBHOOK_CREATE, {"input": {"url": hook.url, "topics": ["REVIEW_REQUESTED"]}}
            )
            assert made["createWebhookEndpoint"]["userErrors"] == []
            created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
            plan_id = created["createResearchPlan"]["plan"]["id"]
            step = (await client.execute(ops.START_NEXT_STEP, {"planId": plan_id}))["startNextStep"]["step"]
            await client.execute(
                ops.REQUEST_REVIEW, {"stepId": step["id"], "summary": "look", "questions": []}
            )
            delivered = "flightdeck_webhook_deliveries_total"

            async def counted() -> bool:
                return value(await scrape(client), delivered, outcome="delivered") > value(
                    before, delivered, outcome="delivered"
                )

            await until(counted, 20, "a delivered webhook counted")
            after = await scrape(client)
        assert len(hook.received) == 1
        grew = {
            name: value(after, name, **labels) - value(before, name, **labels)
            for name, labels in [
                (delivered, {"outcome": "delivered"}),
                ("flightdeck_webhook_delivery_attempts_count", {"outcome": "delivered"}),
                ("flightdeck_webhook_delivery_attempts_sum", {"outcome": "delivered"}),
                ("flightdeck_webhook_delivery_lag_seconds_count", {}),
            ]
        }
        assert set(grew.values()) == {1}
        assert value(after, "flightdeck_loop_runs_total", loop="webhooks", outcome="ok") >= 1
        assert value(after, "flightdeck_loop_items_total", loop="webhooks") >= 1
    finally:
        await client.aclose()
        stop_server(live)
