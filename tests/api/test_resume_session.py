"""Cross-session resume (seed 003) through a real server: reads never write, resumeSession does.

A new session announces itself with the ``resumeSession`` mutation (or ``startNextStep`` with its
``sessionId``); ``researchContext`` and every other query, over POST or GET, leave every table as it was.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from server.config import Settings
from tests.api import operations as ops
from tests.api.test_bad_input import Driver, Tables, payload_of
from tests.conftest import GraphQLClient, LiveServer

RESUME = """
mutation Resume($planId: ID!, $sessionId: String!) {
  resumeSession(planId: $planId, sessionId: $sessionId) {
    resumed
    plan { id status sessionId }
    userErrors { code message field entity fromState toState }
  }
}
"""
CONTEXT = "query($id: ID!) { researchContext(planId: $id) { plan { id sessionId } priorResults { id } } }"
# Every read a resuming agent makes, in one document.
READS = """
query($id: ID!, $step: ID!) {
  researchContext(planId: $id) { plan { id status sessionId } steps { id status } priorResults { id } }
  planStatus(planId: $id) { status progressPercent stalled }
  stepContext(stepId: $step) { step { id } priorSteps { id } }
  researchPlan(id: $id) { id sessionId }
  researchPlans(first: 5) { totalCount edges { node { id } } }
}
"""


@pytest.fixture
def driver(client: GraphQLClient) -> Driver:
    return Driver(client)


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine)
    await engine.dispose()


@pytest.fixture
async def http(live_server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as c:
        yield c


async def event_count(tables: Tables) -> int:
    async with tables.engine.connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM events"))).scalar_one())


async def resume(client: GraphQLClient, plan_id: str, session_id: str) -> dict[str, Any]:
    return await payload_of(client, RESUME, {"planId": plan_id, "sessionId": session_id})


async def driven_by(client: GraphQLClient, driver: Driver, session_id: str) -> tuple[str, list[str]]:
    plan = await driver.create(3)
    started = await payload_of(client, ops.START_NEXT_STEP, {"planId": plan.id, "sessionId": session_id})
    assert started["outcome"] == "STARTED"
    return plan.id, plan.step_ids


async def test_reads_over_get_and_post_write_nothing(
    client: GraphQLClient, driver: Driver, tables: Tables, http: httpx.AsyncClient
) -> None:
    plan_id, step_ids = await driven_by(client, driver, "session-1")
    variables = {"id": plan_id, "step": step_ids[0]}
    count = await event_count(tables)
    assert count > 0

    async with tables.unchanged():
        over_post = await client.execute(READS, variables)
        response = await http.get("/graphql", params={"query": READS, "variables": json.dumps(variables)})
    assert response.status_code == 200, response.text
    over_get = response.json()["data"]
    assert over_get == over_post
    assert over_get["researchContext"]["plan"]["sessionId"] == "session-1"
    assert await event_count(tables) == count


async def test_research_context_takes_no_session_id_any_more(
    http: httpx.AsyncClient, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan_id, _ = await driven_by(client, driver, "session-1")
    query = 'query($id: ID!) { researchContext(planId: $id, sessionId: "session-2") { plan { id } } }'
    async with tables.unchanged():
        response = await http.post("/graphql", json={"query": query, "variables": {"id": plan_id}})
    assert response.status_code in (200, 400)
    [error] = response.json()["errors"]
    assert "sessionId" in error["message"]


async def test_resume_session_records_session_resumed_once_then_the_context_reads_it(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan_id, _ = await driven_by(client, driver, "session-1")
    count = await event_count(tables)

    found = await resume(client, plan_id, "session-2")

    assert found["userErrors"] == []
    assert found["resumed"] is True
    assert found["plan"] == {"id": plan_id, "status": "EXECUTING", "sessionId": "session-2"}
    assert await event_count(tables) == count + 1
    async with tables.engine.connect() as conn:
        kind, data = (
            await conn.execute(text("SELECT kind, data FROM events ORDER BY seq DESC LIMIT 1"))
        ).one()
    assert kind == "session_resumed"
    data = data if isinstance(data, dict) else json.loads(data)
    assert data == {"sessionId": "session-2", "previousSessionId": "session-1", "planStatus": "executing"}
    context = await client.execute(CONTEXT, {"id": plan_id})
    assert context["researchContext"]["plan"]["sessionId"] == "session-2"

    async with tables.unchanged():
        again = await resume(client, plan_id, "session-2")
    assert again["resumed"] is False
    assert again["userErrors"] == []
    # startNextStep from the session that resumed it records nothing more (seed 003 resumes there too).
    nxt = await payload_of(client, ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": "session-2"})
    assert nxt["outcome"] == "STARTED"
    async with tables.engine.connect() as conn:
        resumed = (
            await conn.execute(text("SELECT count(*) FROM events WHERE kind = 'session_resumed'"))
        ).scalar_one()
    assert resumed == 1


async def test_the_first_session_on_a_plan_takes_it_without_a_resume_event(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.create(2)
    count = await event_count(tables)
    found = await resume(client, plan.id, "session-1")
    assert found["resumed"] is False
    assert found["plan"]["sessionId"] == "session-1"
    assert await event_count(tables) == count


async def test_a_finished_plan_is_left_as_it_is(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.completed()
    async with tables.unchanged():
        found = await resume(client, plan.id, "session-9")
    assert found["userErrors"] == []
    assert found["resumed"] is False
    assert found["plan"]["status"] == "COMPLETED"
    assert found["plan"]["sessionId"] != "session-9"


@pytest.mark.parametrize(
    ("plan_id", "session_id", "code", "field"),
    [
        ("00000000-0000-0000-0000-000000000000", "s", "NOT_FOUND", ["planId"]),
        (None, "", "VALIDATION_FAILED", ["sessionId"]),
        (None, "s" * 201, "VALIDATION_FAILED", ["sessionId"]),
    ],
)
async def test_a_refused_resume_writes_nothing(
    client: GraphQLClient,
    driver: Driver,
    tables: Tables,
    plan_id: str | None,
    session_id: str,
    code: str,
    field: list[str],
) -> None:
    if plan_id is None:
        plan_id, _ = await driven_by(client, driver, "session-1")
    async with tables.unchanged():
        found = await resume(client, plan_id, session_id)
    assert [(e["code"], e["field"]) for e in found["userErrors"]] == [(code, field)]
    assert found["plan"] is None
    assert found["resumed"] is None
