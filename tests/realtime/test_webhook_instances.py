"""Webhooks from processes: two `flightdeck serve` on PostgreSQL (+ Redis), one of them killed with SIGKILL
mid-delivery and restarted (every event reaches the receiver, never two requests at once); and
`flightdeck deliver-webhooks` delivering alone, stopped cleanly by SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web

from server.auth import DEV_PRINCIPAL
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.db.webhook_models import WebhookEndpoint
from server.services.runtime import Runtime, unit_of_work
from server.services.webhooks import endpoints
from server.services.webhooks.topics import Topic
from tests.api import operations as ops
from tests.conftest import GraphQLClient
from tests.realtime.instances import StartInstances
from tests.realtime.processes import end_process, spawn, tail_of, until

on_postgres = pytest.mark.parametrize(
    "db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
PLANS = 12
CREATE_ENDPOINT = """
mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { endpoint { id } secret userErrors { code message } }
}
"""


@dataclass
class SlowReceiver:
    """Answers 200 after ``delay`` seconds; counts requests in flight at once."""

    delay: float
    url: str = ""
    ids: list[str] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0

    async def hook(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            body = await request.read()
            await asyncio.sleep(self.delay)
            self.ids.append(str(json.loads(body)["data"]["seq"]))  # the event's seq
            return web.Response(text="ok")
        finally:
            self.in_flight -= 1


@pytest.fixture
async def slow_receiver() -> AsyncIterator[SlowReceiver]:
    state = SlowReceiver(delay=0.15)
    app = web.Application()
    app.router.add_post("/hook", state.hook)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    state.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/hook"  # type: ignore[union-attr]
    yield state
    await runner.cleanup()


@on_postgres
async def test_two_processes_deliver_every_event_never_concurrently_through_a_kill(
    redis_url: str, start_instances: StartInstances, slow_receiver: SlowReceiver
) -> None:
    env = {
        "FLIGHTDECK_WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
        "FLIGHTDECK_WEBHOOK_POLL_SECONDS": "0.2",
        "FLIGHTDECK_WEBHOOK_TIMEOUT_SECONDS": "1",
        "FLIGHTDECK_WEBHOOK_LEASE_SECONDS": "2",
        "FLIGHTDECK_WEBHOOK_BATCH_SIZE": "5",
    }
    one, two = await start_instances(redis_url, extra_env=env)
    api_one, api_two = GraphQLClient(one.url), GraphQLClient(two.url)
    try:
        made = await api_one.execute(
            CREATE_ENDPOINT, {"input": {"url": slow_receiver.url, "topics": ["PLAN_FAILED"]}}
        )
        assert made["createWebhookEndpoint"]["userErrors"] == []
        plan_ids = []
        for i in range(PLANS):
            api = (api_one, api_two)[i % 2]
            created = await api.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
            plan_id = created["createResearchPlan"]["plan"]["id"]
            failed = await api.execute(ops.FAIL_PLAN, {"planId": plan_id, "reason": "test"})
            assert failed["failPlan"]["userErrors"] == []
            plan_ids.append(plan_id)

        await until(lambda: _some(slow_receiver), 30, "a first delivery")
        one.kill()  # mid-delivery, whichever process holds the endpoint
        one.start()
        await one.ready()
        expected = await _failed_seqs(api_two)
        assert len(expected) == PLANS

        async def all_arrived() -> bool:
            return set(slow_receiver.ids) >= expected

        await until(all_arrived, 60, "every plan.failed event at the receiver")
        assert slow_receiver.most_in_flight == 1
        # At least once: a repeat is at most the batch in flight at the kill.
        assert len(slow_receiver.ids) - len(expected) <= 5
    finally:
        await api_one.aclose()
        await api_two.aclose()


async def _some(receiver: SlowReceiver) -> bool:
    return len(receiver.ids) >= 2


async def _failed_seqs(api: GraphQLClient) -> set[str]:
    found: set[str] = set()
    after = 0
    while True:
        page = (await api.execute(ops.EVENTS, {"rootId": None, "after": after, "first": 100}))["events"]
        for edge in page["edges"]:
            node = edge["node"]
            if node["kind"] == "plan_transitioned" and node.get("toState") == "failed":
                found.add(str(node["seq"]))
            after = node["seq"]
        if not page["pageInfo"]["hasNextPage"]:
            return found


on_sqlite = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


@on_sqlite
async def test_deliver_webhooks_runs_delivery_in_a_process_of_its_own(
    db_url: str, tmp_path: Path, slow_receiver: SlowReceiver
) -> None:
    settings = Settings(database_url=db_url)
    db = Database(db_url)
    runtime = Runtime(
        db=db,
        clock=SystemClock(),
        settings=settings.model_copy(update={"webhook_allow_private_targets": True}),
    )
    try:
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            made = await endpoints.create_endpoint(tx, slow_receiver.url, [Topic.STALL_DETECTED], None, True)
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            tx.events.record("plan_stalled", entity_type="plan", entity_id="p", root_type="plan", root_id="p")
        seq = tx.events.seqs[0]
        env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_")}
        env.update(
            DATABASE_URL=db_url,
            FLIGHTDECK_WEBHOOK_ALLOW_PRIVATE_TARGETS="true",
            FLIGHTDECK_WEBHOOK_POLL_SECONDS="0.1",
            PYTHONUNBUFFERED="1",
        )
        log = tmp_path / "deliver.log"
        proc = spawn([sys.executable, "-m", "server", "deliver-webhooks"], env, log)
        try:

            async def arrived() -> bool:
                assert proc.poll() is None, tail_of(log)
                return slow_receiver.ids == [str(seq)]

            await until(arrived, 30, "the delivery from deliver-webhooks")
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(proc.wait, 15) == 0, tail_of(log)
        finally:
            end_process(proc)
        async with db.reader() as session:
            row = await session.get(WebhookEndpoint, made.endpoint.id)
        assert row is not None
        assert row.cursor_seq == seq
        assert row.lease_owner is None  # released on a clean stop: another process may take it at once
    finally:
        await db.dispose()
