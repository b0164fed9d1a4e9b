"""Decision deadlines, escalation and the "mine" inbox over HTTP against a real server.

The server's own decision timer runs with a long interval; the test moves the fake clock and runs
one pass on the server's event loop, as the loop would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from server.auth import Role
from server.clock import FakeClock
from server.config import Settings
from server.db.models import Event
from server.loops.decision_deadlines import TIMER, run_decision_deadlines
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, keys_per_role

TERMS_REVIEW = """
mutation Review($stepId: ID!, $terms: DecisionTermsInput) {
  requestUserReview(stepId: $stepId, summary: "look", decision: $terms) {
    step { id status }
    userErrors { code message field }
  }
}
"""
INBOX = """
query Inbox($mine: Boolean!) {
  decisionInbox(mine: $mine) {
    edges { node {
      id kind status subjectId rootId assignee defaultOutcome deadlineAt escalateAt escalationRole escalatedAt
    } }
    pageInfo { hasNextPage endCursor }
  }
}
"""
SET_POLICY = """
mutation Policy($scope: DecisionScope!, $scopeId: String, $kind: DecisionKind, $terms: DecisionTermsInput!) {
  setDecisionPolicy(scope: $scope, scopeId: $scopeId, kind: $kind, terms: $terms) {
    policy { scope scopeId kind deadlineSeconds defaultOutcome assignee }
    userErrors { code message field }
  }
}
"""
ABOUT = """
query About($id: ID!) {
  decisionsAbout(subjectId: $id) { id status outcome statusReason closedAt }
}
"""


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0, decision_deadline_interval_seconds=3600)


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> dict[Role, str]:
    return await keys_per_role(settings.database_url, clock.now())


@pytest.fixture
async def as_role(
    keys: dict[Role, str], live_server: LiveServer
) -> AsyncIterator[Callable[[Role], GraphQLClient]]:
    assert not live_server.app.state.dev_mode
    opened: list[GraphQLClient] = []

    def make(role: Role) -> GraphQLClient:
        opened.append(GraphQLClient(live_server.url, keys[role]))
        return opened[-1]

    yield make
    for c in opened:
        await c.aclose()


async def review_requested(agent: GraphQLClient, terms: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    steps = [{"stepType": "SEARCH", "instructions": "find"}, {"stepType": "ANALYZE", "instructions": "think"}]
    created = await agent.execute(ops.CREATE_PLAN, {"input": {"researchQuestion": "why?", "steps": steps}})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    started = await agent.execute(ops.START_NEXT_STEP, {"planId": plan_id})
    step_id = started["startNextStep"]["step"]["id"]
    return (await agent.execute(TERMS_REVIEW, {"stepId": step_id, "terms": terms}))[
        "requestUserReview"
    ], plan_id


async def test_an_assigned_review_escalates_then_defaults_and_the_inbox_follows(
    as_role: Callable[[Role], GraphQLClient], live_server: LiveServer, clock: FakeClock
) -> None:
    agent, reviewer, admin = as_role(Role.AGENT), as_role(Role.REVIEWER), as_role(Role.ADMIN)
    terms = {
        "deadlineSeconds": 3600,
        "defaultOutcome": "REJECT",
        "assignee": "user:t-reviewer",
        "escalateAfterSeconds": 600,
        "escalationRole": "admin",
    }
    done, plan_id = await review_requested(agent, terms)
    assert done["userErrors"] == []
    step_id = done["step"]["id"]

    [mine] = [e["node"] for e in (await reviewer.execute(INBOX, {"mine": True}))["decisionInbox"]["edges"]]
    assert (mine["kind"], mine["status"], mine["subjectId"], mine["rootId"]) == (
        "PLAN_REVIEW",
        "OPEN",
        step_id,
        plan_id,
    )
    assert (mine["assignee"], mine["defaultOutcome"], mine["escalationRole"]) == (
        "user:t-reviewer",
        "REJECT",
        "admin",
    )
    assert mine["deadlineAt"] is not None
    assert mine["escalateAt"] is not None
    assert (await admin.execute(INBOX, {"mine": True}))["decisionInbox"]["edges"] == []
    assert len((await admin.execute(INBOX, {"mine": False}))["decisionInbox"]["edges"]) == 1

    runtime = live_server.app.state.runtime
    clock.advance(timedelta(minutes=10))
    assert live_server.call(run_decision_deadlines(runtime)).escalated == [mine["id"]]
    assert (await reviewer.execute(INBOX, {"mine": True}))["decisionInbox"]["edges"] == []
    [escalated] = [e["node"] for e in (await admin.execute(INBOX, {"mine": True}))["decisionInbox"]["edges"]]
    assert (escalated["status"], escalated["assignee"]) == ("ESCALATED", "role:admin")

    clock.advance(timedelta(minutes=50))
    assert live_server.call(run_decision_deadlines(runtime)).defaulted == [mine["id"]]
    assert (await admin.execute(INBOX, {"mine": False}))["decisionInbox"]["edges"] == []
    about = await reviewer.execute(ABOUT, {"id": step_id})
    [closed] = about["decisionsAbout"]
    assert (closed["status"], closed["outcome"]) == ("DEFAULTED", "reject")
    assert "no answer by the deadline" in closed["statusReason"]
    events = live_server.call(_events(runtime, plan_id))
    applied = [e for e in events if e.kind == "decision_deadline_applied"]
    assert [(e.actor, e.data["outcome"]) for e in applied] == [(TIMER, "reject")]
    assert [e.kind for e in events if e.kind == "decision_escalated"] == ["decision_escalated"]


async def _events(runtime: Any, root_id: str) -> list[Event]:
    async with runtime.db.reader() as session:
        return list(
            (await session.scalars(select(Event).where(Event.root_id == root_id).order_by(Event.seq))).all()
        )


async def test_bad_terms_are_user_errors_and_roles_are_enforced(
    as_role: Callable[[Role], GraphQLClient],
) -> None:
    agent, viewer = as_role(Role.AGENT), as_role(Role.VIEWER)
    done, _ = await review_requested(
        agent, {"deadlineSeconds": 60, "defaultOutcome": "SKIP", "assignee": "bob"}
    )
    assert done["step"] is None
    assert sorted(tuple(e["field"]) for e in done["userErrors"]) == [("assignee",)]
    too_long = {"assignee": "user:" + "x" * 300}  # the column holds 200: refused before the database
    done, _ = await review_requested(agent, too_long)
    assert [(e["code"], e["field"]) for e in done["userErrors"]] == [("VALIDATION_FAILED", ["assignee"])]
    done, _ = await review_requested(agent, {"deadlineSeconds": 60})
    assert [(e["code"], e["field"]) for e in done["userErrors"]] == [
        ("VALIDATION_FAILED", ["defaultOutcome"])
    ]

    tenant_wide = {"scope": "TENANT", "terms": {"deadlineSeconds": 60, "defaultOutcome": "APPROVE"}}
    refused = await agent.post(SET_POLICY, tenant_wide)
    assert refused.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    as_viewer = await viewer.post(INBOX, {"mine": True})
    assert "errors" not in as_viewer.json()  # viewers read
    skip_everywhere = {"scope": "TENANT", "terms": {"deadlineSeconds": 60, "defaultOutcome": "SKIP"}}
    admin = as_role(Role.ADMIN)
    errors = (await admin.execute(SET_POLICY, skip_everywhere))["setDecisionPolicy"]["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == [("VALIDATION_FAILED", ["defaultOutcome"])]
    ok = (await admin.execute(SET_POLICY, tenant_wide))["setDecisionPolicy"]
    assert ok["policy"] == {
        "scope": "TENANT",
        "scopeId": "t",
        "kind": None,
        "deadlineSeconds": 60.0,
        "defaultOutcome": "APPROVE",
        "assignee": None,
    }
