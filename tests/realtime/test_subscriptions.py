"""Subscriptions over graphql-transport-ws against a real server: replay, live tail, snapshots, auth."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from gql import GraphQLRequest
from sqlalchemy import select
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import OperationLog
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import EVENTS, PLAN_UPDATED, collect, next_result, ws_session


async def _run_plan(client: GraphQLClient, steps: int = 2) -> str:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(steps)})
    plan_id: str = created["createResearchPlan"]["plan"]["id"]
    for _ in range(steps):
        step = (await client.execute(ops.START_NEXT_STEP, {"planId": plan_id}))["startNextStep"]["step"]
        await client.execute(ops.SUBMIT_RESULT, {"input": {"stepId": step["id"], "resultSummary": "ok"}})
    return plan_id


async def test_events_replays_the_log_after_a_seq_then_tails_live_ones_in_order(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    await _run_plan(client)  # 1 create + 2 x (3 start + 3 submit) + completion events
    history = (await client.execute(ops.EVENTS, {"rootId": None, "after": 0, "first": 100}))["events"][
        "edges"
    ]
    total = len(history)
    async with ws_session(live_server.ws_url) as ws:
        replay_from = 3
        task = asyncio.create_task(collect(ws, EVENTS, {"after": replay_from}, total - replay_from + 4))
        await asyncio.sleep(0.2)
        created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        plan_id = created["createResearchPlan"]["plan"]["id"]
        await client.execute(ops.START_NEXT_STEP, {"planId": plan_id})
        results = await task
    seqs = [r["events"]["seq"] for r in results]
    assert seqs == list(range(replay_from + 1, total + 5))
    live = [r["events"]["kind"] for r in results[-4:]]
    assert live == ["plan_modified", "step_transitioned", "plan_transitioned", "step_started"]


async def test_events_filter_by_root_and_kind(live_server: LiveServer, client: GraphQLClient) -> None:
    first = await _run_plan(client, 1)
    await _run_plan(client, 1)
    async with ws_session(live_server.ws_url) as ws:
        results = await collect(
            ws, EVENTS, {"after": 0, "filter": {"rootId": first, "kinds": ["step_transitioned"]}}, 2
        )
    assert [(r["events"]["fromState"], r["events"]["toState"]) for r in results] == [
        ("pending", "in_progress"),
        ("in_progress", "completed"),
    ]
    assert {r["events"]["rootId"] for r in results} == {first}


async def test_plan_updated_sends_a_snapshot_then_every_change(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    async with ws_session(live_server.ws_url) as ws:
        updates = ws.subscribe(GraphQLRequest(PLAN_UPDATED, variable_values={"id": plan_id}))
        try:
            # Each change is made once the update before it arrived: the snapshot first, so the
            # subscription is in place before the plan moves (however slow the machine).
            results = [await next_result(updates)]
            step = (await client.execute(ops.START_NEXT_STEP, {"planId": plan_id}))["startNextStep"]["step"]
            results.append(await next_result(updates))
            await client.execute(ops.SUBMIT_RESULT, {"input": {"stepId": step["id"], "resultSummary": "ok"}})
            results.append(await next_result(updates))
        finally:
            await updates.aclose()
    states = [
        (r["researchPlanUpdated"]["status"], r["researchPlanUpdated"]["progressPercent"]) for r in results
    ]
    assert states == [("PLANNING", 0.0), ("EXECUTING", 0.0), ("COMPLETED", 100.0)]


async def test_plan_updated_for_an_unknown_plan_is_an_error(live_server: LiveServer) -> None:
    async with ws_session(live_server.ws_url) as ws:
        with pytest.raises(Exception, match="not found"):
            await collect(ws, PLAN_UPDATED, {"id": "00000000-0000-0000-0000-000000000000"}, 1, within=10)


@pytest.fixture
async def tenant_keys(settings: Settings, clock: FakeClock) -> dict[str, str]:
    db = Database(settings.database_url)
    keys = {
        "a": (await create_key(db, "tenant-a", Role.AGENT, "a", clock.now()))[1],
        "b": (await create_key(db, "tenant-b", Role.VIEWER, "b", clock.now()))[1],
    }
    await db.dispose()
    return keys


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@pytest.fixture
def keyed_server(tenant_keys: dict[str, str], live_server: LiveServer) -> LiveServer:
    """The server, started after the keys were made: it runs with keys, not in dev mode."""
    assert not live_server.app.state.dev_mode
    return live_server


async def test_a_bad_key_in_connection_init_closes_with_4403(
    keyed_server: LiveServer, tenant_keys: dict[str, str]
) -> None:
    live_server = keyed_server
    # gql hides the close code, so this one speaks the protocol's first message by hand.
    async with websockets.connect(
        live_server.ws_url, subprotocols=[Subprotocol("graphql-transport-ws")]
    ) as ws:
        await ws.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": "Bearer fdk_wrong"}})
        )
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
    assert ws.close_code == 4403


async def test_subscribers_only_see_their_own_tenant(
    keyed_server: LiveServer, tenant_keys: dict[str, str]
) -> None:
    live_server = keyed_server
    a = GraphQLClient(live_server.url, tenant_keys["a"])
    try:
        async with (
            ws_session(live_server.ws_url, tenant_keys["b"]) as ws_b,
            ws_session(live_server.ws_url, tenant_keys["a"]) as ws_a,
        ):
            seen_by_b = asyncio.create_task(collect(ws_b, EVENTS, {"after": 0}, 1, within=3))
            seen_by_a = asyncio.create_task(collect(ws_a, EVENTS, {"after": 0}, 1))
            await a.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
            assert (await seen_by_a)[0]["events"]["kind"] == "plan_modified"
            with pytest.raises(TimeoutError):
                await seen_by_b
    finally:
        await a.aclose()


async def test_identical_event_subscriptions_render_each_event_once(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    fanout = live_server.app.state.graphql.fanout
    async with ws_session(live_server.ws_url) as one, ws_session(live_server.ws_url) as two:
        first = asyncio.create_task(collect(one, EVENTS, {"after": 0}, 4))
        second = asyncio.create_task(collect(two, EVENTS, {"after": 0}, 4))
        await asyncio.sleep(0.3)
        created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        await client.execute(ops.START_NEXT_STEP, {"planId": created["createResearchPlan"]["plan"]["id"]})
        a, b = await first, await second
    assert a == b
    assert [r["events"]["seq"] for r in a] == [1, 2, 3, 4]
    assert fanout.renders == 4
    assert fanout.sends == 8


async def test_subscriptions_are_recorded_in_the_operation_log(
    live_server: LiveServer, client: GraphQLClient, settings: Settings
) -> None:
    async with ws_session(live_server.ws_url) as ws:
        await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        await collect(ws, "subscription Shared { events(after: 0) { seq } }", {}, 1)
    db = Database(settings.database_url)
    try:
        for _ in range(200):  # the writer batches in the background; bounded wait
            async with db.reader() as session:
                rows = (
                    await session.execute(
                        select(OperationLog.operation_name, OperationLog.operation_type).where(
                            OperationLog.operation_type == "subscription"
                        )
                    )
                ).all()
            if rows:
                break
            await asyncio.sleep(0.05)
    finally:
        await db.dispose()
    assert [tuple(r) for r in rows] == [("Shared", "subscription")]
