"""The overview's counts through a real server: one query per domain, by state, failures since a moment,
scoped to the tenant, with bad input refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as plan_ops
from tests.api import workflow_operations as wf_ops
from tests.conftest import GraphQLClient, LiveServer

COUNTS = """
query Counts($since: DateTime) {
  researchPlanCounts(failedSince: $since) { total failedSince byStatus { status count } }
  workflowCounts(failedSince: $since) { total failedSince byStatus { status count } }
  missionCounts(failedSince: $since) { total failedSince byStatus { status count } }
}
"""


@pytest.fixture
async def keys(
    settings: Settings, clock: FakeClock, live_server: LiveServer
) -> AsyncIterator[dict[str, GraphQLClient]]:
    db = Database(settings.database_url)
    try:
        raw = {
            name: (await create_key(db, tenant, Role.ADMIN, name, clock.now()))[1]
            for name, tenant in [("mine", "tenant-a"), ("other", "tenant-b")]
        }
    finally:
        await db.dispose()
    made = {name: GraphQLClient(live_server.url, key) for name, key in raw.items()}
    try:
        yield made
    finally:
        for c in made.values():
            await c.aclose()


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


def nonzero(counts: dict[str, object]) -> dict[str, int]:
    return {c["status"]: c["count"] for c in counts["byStatus"] if c["count"]}  # type: ignore[attr-defined,index]


async def new_plan(client: GraphQLClient) -> str:
    created = (await client.execute(plan_ops.CREATE_PLAN, {"input": plan_ops.plan_input(2)}))[
        "createResearchPlan"
    ]
    assert created["userErrors"] == []
    return str(created["plan"]["id"])


async def test_counts_by_state_and_the_failures_since_a_moment(
    keys: dict[str, GraphQLClient], clock: FakeClock
) -> None:
    mine, other = keys["mine"], keys["other"]
    empty = await mine.execute(COUNTS, {"since": None})
    assert empty["researchPlanCounts"] == {
        "total": 0,
        "failedSince": None,
        "byStatus": [
            {"status": s, "count": 0}
            for s in ["PLANNING", "EXECUTING", "AWAITING_REVIEW", "STALLED", "COMPLETED", "FAILED"]
        ],
    }
    plans = [await new_plan(mine) for _ in range(3)]
    await mine.execute(plan_ops.START_NEXT_STEP, {"planId": plans[0]})
    early = clock.now()
    await mine.execute(plan_ops.FAIL_PLAN, {"planId": plans[1], "reason": "early"})
    clock.advance(timedelta(hours=2))
    await mine.execute(plan_ops.FAIL_PLAN, {"planId": plans[2], "reason": "late"})
    created = await mine.execute(wf_ops.CREATE, {"input": {"name": "w", "steps": [{"name": "a"}]}})
    await mine.execute(wf_ops.START, {"id": created["createWorkflow"]["workflow"]["id"]})

    hour_ago = (clock.now() - timedelta(hours=1)).isoformat()
    counted = await mine.execute(COUNTS, {"since": hour_ago})
    plans_counted = counted["researchPlanCounts"]
    assert (plans_counted["total"], nonzero(plans_counted)) == (3, {"EXECUTING": 1, "FAILED": 2})
    assert plans_counted["failedSince"] == 1  # the early failure is older than an hour
    assert (await mine.execute(COUNTS, {"since": early.isoformat()}))["researchPlanCounts"][
        "failedSince"
    ] == 2
    assert nonzero(counted["workflowCounts"]) == {"EXECUTING": 1}
    assert counted["workflowCounts"]["failedSince"] == 0
    assert counted["missionCounts"]["total"] == 0

    # Another tenant counts only its own.
    theirs = await other.execute(COUNTS, {"since": hour_ago})
    assert [theirs[k]["total"] for k in ("researchPlanCounts", "workflowCounts", "missionCounts")] == [
        0,
        0,
        0,
    ]


async def test_a_malformed_moment_is_refused(keys: dict[str, GraphQLClient]) -> None:
    for bad in ("yesterday", "2026-13-40T00:00:00Z", "x" * 10_000):
        response = await keys["mine"].post(COUNTS, {"since": bad})
        body = response.json()
        assert body.get("data") is None, body
        assert body["errors"], body
