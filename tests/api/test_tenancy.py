"""Tenancy and roles (DESIGN.md rule 8) through a real server with real API keys."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from server.auth import Role, create_key, revoke_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import mission_operations as mops
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer


@pytest.fixture
def settings(db_url: str) -> Settings:
    # No key cache: a revoked key must stop working at once in these tests.
    return Settings(database_url=db_url, auth_cache_seconds=0)


@dataclass
class Keys:
    a_agent: str
    a_reviewer: str
    a_viewer: str
    b_agent: str
    b_admin: str
    a_agent_id: str


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> AsyncIterator[Keys]:
    db = Database(settings.database_url)
    made = {}
    for name, tenant, role in [
        ("a_agent", "tenant-a", Role.AGENT),
        ("a_reviewer", "tenant-a", Role.REVIEWER),
        ("a_viewer", "tenant-a", Role.VIEWER),
        ("b_agent", "tenant-b", Role.AGENT),
        ("b_admin", "tenant-b", Role.ADMIN),
    ]:
        made[name] = await create_key(db, tenant, role, name, clock.now())
    yield Keys(**{k: v[1] for k, v in made.items()}, a_agent_id=made["a_agent"][0])
    await db.dispose()


@pytest.fixture
async def as_key(keys: Keys, live_server: LiveServer) -> AsyncIterator[object]:
    # The keys exist before the server starts: it decides on dev mode then, once.
    assert not live_server.app.state.dev_mode
    opened: list[GraphQLClient] = []

    def make(token: str | None) -> GraphQLClient:
        c = GraphQLClient(live_server.url, token)
        opened.append(c)
        return c

    yield make
    for c in opened:
        await c.aclose()


async def _plan_in_review(agent: GraphQLClient) -> tuple[str, str]:
    created = await agent.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    step = (await agent.execute(ops.START_NEXT_STEP, {"planId": plan_id}))["startNextStep"]["step"]
    review = await agent.execute(ops.REQUEST_REVIEW, {"stepId": step["id"], "summary": "look"})
    assert review["requestUserReview"]["userErrors"] == []
    return plan_id, step["id"]


async def test_another_tenant_can_neither_see_nor_change_a_plan(keys: Keys, as_key) -> None:  # type: ignore[no-untyped-def]
    a, b = as_key(keys.a_agent), as_key(keys.b_admin)
    plan_id, step_id = await _plan_in_review(a)

    seen = await b.execute(
        "query($id: ID!) { researchPlan(id: $id) { id } researchPlans { totalCount edges { node { id } } } }",
        {"id": plan_id},
    )
    assert seen == {"researchPlan": None, "researchPlans": {"totalCount": 0, "edges": []}}
    events = await b.execute(ops.EVENTS, {"rootId": plan_id, "after": 0, "first": 100})
    assert events["events"]["edges"] == []
    status = await b.execute(ops.PLAN_STATUS, {"planId": plan_id})
    assert status["planStatus"] is None

    attempts = [
        (ops.START_NEXT_STEP, {"planId": plan_id}, "startNextStep"),
        (ops.SUBMIT_RESULT, {"input": {"stepId": step_id, "resultSummary": "x"}}, "submitStepResult"),
        (ops.DECIDE, {"stepId": step_id, "decision": "APPROVE"}, "submitUserDecision"),
        (ops.FAIL_PLAN, {"planId": plan_id, "reason": "mine now"}, "failPlan"),
        (ops.RETRY, {"stepId": step_id}, "retryStep"),
    ]
    for document, variables, field in attempts:
        payload = (await b.execute(document, variables))[field]
        assert [e["code"] for e in payload["userErrors"]] == ["NOT_FOUND"], field

    mine = await a.execute("query($id: ID!) { researchPlan(id: $id) { status } }", {"id": plan_id})
    assert mine["researchPlan"]["status"] == "AWAITING_REVIEW"


async def test_another_tenants_mission_proposals_are_not_in_the_review_inbox(keys: Keys, as_key) -> None:  # type: ignore[no-untyped-def]
    a, b = as_key(keys.a_agent), as_key(keys.b_admin)
    proposed = await a.execute(mops.PROPOSE_MISSION, {"input": {"title": "Reef survey", "goal": "g"}})
    assert proposed["proposeMission"]["userErrors"] == []
    inbox = "query($f: MissionReviewFilter) { missionReviews(filter: $f) { totalCount edges { cursor } } }"
    for given in (None, {"search": "reef"}, {"kinds": ["MISSION"]}):
        assert (await b.execute(inbox, {"f": given}))["missionReviews"] == {"totalCount": 0, "edges": []}
        assert (await a.execute(inbox, {"f": given}))["missionReviews"]["totalCount"] == 1


async def _top_level_code(client: GraphQLClient, document: str, variables: dict[str, object]) -> str:
    body = (await client.post(document, variables)).json()
    return str(body["errors"][0]["extensions"]["code"])


async def test_only_reviewers_and_admins_decide_and_viewers_only_read(keys: Keys, as_key) -> None:  # type: ignore[no-untyped-def]
    agent, reviewer, viewer = as_key(keys.a_agent), as_key(keys.a_reviewer), as_key(keys.a_viewer)
    plan_id, step_id = await _plan_in_review(agent)
    decide = {"stepId": step_id, "decision": "APPROVE"}

    assert await _top_level_code(agent, ops.DECIDE, decide) == "FORBIDDEN"
    assert await _top_level_code(viewer, ops.DECIDE, decide) == "FORBIDDEN"
    assert await _top_level_code(viewer, ops.CREATE_PLAN, {"input": ops.plan_input(1)}) == "FORBIDDEN"
    assert await _top_level_code(viewer, ops.FAIL_PLAN, {"planId": plan_id, "reason": "no"}) == "FORBIDDEN"
    assert await _top_level_code(reviewer, ops.CREATE_PLAN, {"input": ops.plan_input(1)}) == "FORBIDDEN"
    resume = 'mutation($p: ID!) { resumeSession(planId: $p, sessionId: "s-9") { resumed } }'
    assert await _top_level_code(viewer, resume, {"p": plan_id}) == "FORBIDDEN"
    assert await _top_level_code(reviewer, resume, {"p": plan_id}) == "FORBIDDEN"

    read = await viewer.execute("query($id: ID!) { researchPlan(id: $id) { status } }", {"id": plan_id})
    assert read["researchPlan"]["status"] == "AWAITING_REVIEW"

    approved = (await reviewer.execute(ops.DECIDE, decide))["submitUserDecision"]
    assert approved["userErrors"] == []
    assert approved["step"]["status"] == "COMPLETED"
    assert approved["plan"]["status"] == "EXECUTING"


async def test_requests_without_a_valid_key_are_unauthenticated_once_keys_exist(
    keys: Keys,
    as_key,
    settings: Settings,
    clock: FakeClock,  # type: ignore[no-untyped-def]
) -> None:
    query = "{ researchPlans { totalCount } }"
    for token in (None, "fdk_not-a-key"):
        response = await as_key(token).post(query)
        assert response.status_code == 401
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    malformed = await as_key(None).post(query, headers={"authorization": "Basic abc"})
    assert malformed.status_code == 401

    agent = as_key(keys.a_agent)
    assert (await agent.post(query)).status_code == 200
    db = Database(settings.database_url)
    assert await revoke_key(db, keys.a_agent_id, clock.now())
    await db.dispose()
    assert (await agent.post(query)).status_code == 401


async def test_dev_mode_without_keys_acts_as_the_default_tenant(client: GraphQLClient) -> None:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    assert created["createResearchPlan"]["userErrors"] == []
    events = await client.execute(ops.EVENTS, {"rootId": None, "after": 0, "first": 10})
    assert events["events"]["edges"][0]["node"]["actor"] == "dev"
