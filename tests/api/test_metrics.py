"""/metrics on a real server: Prometheus text for admins, counting what the process really did.

The counters are the process's own, and this test process may run other servers before this one, so
every check compares a scrape before with a scrape after.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest
from prometheus_client.parser import text_string_to_metric_families

from server import metrics
from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.rawws import EVENT_SEQS, RawSubscription
from tests.waiting import patient

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
    assert grew(ops_total, operation="Create", type="mutation", outcome="ok") == 1
    assert grew(ops_total, operation="Next", type="mutation", outcome="ok") == 1
    assert grew(ops_total, operation="Next", type="mutation", outcome="user_error") == 1
    assert grew("flightdeck_graphql_operation_duration_seconds_count", operation="Next", type="mutation") == 2
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

        await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        await sub.next()
        lag = "flightdeck_delivery_lag_seconds_count"

        async def lag_observed() -> bool:
            return value(await scrape(client), lag) > value(before, lag)

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


async def test_only_admin_keys_may_scrape(db_url: str, clock: FakeClock) -> None:
    db = Database(db_url)
    try:
        _, admin = await create_key(db, "t", Role.ADMIN, "admin", clock.now())
        _, agent = await create_key(db, "t", Role.AGENT, "agent", clock.now())
    finally:
        await db.dispose()
    live = start_server(Settings(database_url=db_url, auth_cache_seconds=0), clock)
    clients = {
        who: GraphQLClient(live.url, key) for who, key in (("admin", admin), ("agent", agent), ("none", None))
    }
    try:
        assert (await clients["admin"].http.get("/metrics")).status_code == 200
        refused = await clients["agent"].http.get("/metrics")
        assert refused.status_code == 403
        assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        anonymous = await clients["none"].http.get("/metrics")
        assert anonymous.status_code == 401
        assert anonymous.headers["www-authenticate"] == "Bearer"
    finally:
        for c in clients.values():
            await c.aclose()
        stop_server(live)


def test_client_chosen_operation_names_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics, "_names", set())
    labels = [metrics.operation_label(f"Op{n}") for n in range(metrics.MAX_OPERATION_NAMES + 50)]
    assert labels[: metrics.MAX_OPERATION_NAMES] == [f"Op{n}" for n in range(metrics.MAX_OPERATION_NAMES)]
    assert set(labels[metrics.MAX_OPERATION_NAMES :]) == {"other"}
    assert metrics.operation_label("Op0") == "Op0"  # a known name keeps its series
    assert metrics.operation_label(None) == "anonymous"
