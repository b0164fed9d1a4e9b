"""The three review inboxes in deadline order (orderBy: DEADLINE) over HTTP on a real server, on both
databases: the nearest deadline first, those without one last, equal ones the longest waiting first;
paged by cursor in that order, each item with its open decision; the input checked."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from server.services.decisions.inbox import ROOT_TYPES
from server.services.decisions.points import POINTS
from tests.api import mission_operations as mops
from tests.api import operations as plan_ops
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

NODES = {
    "reviewInbox": "step { id } openDecision { deadlineAt }",
    "workflowStepsAwaitingReview": "id openDecision { deadlineAt }",
    "missionReviews": "mission { id } openDecision { deadlineAt }",
}
TERMS = """
mutation($id: ID!, $seconds: Float!) {
  setDecisionTerms(decisionId: $id, terms: {deadlineSeconds: $seconds, defaultOutcome: APPROVE}) {
    userErrors { code }
  }
}
"""


def _page_query(field: str) -> str:
    return f"""
query($first: Int!, $after: String, $order: ReviewOrder!, $newest: Boolean! = false) {{
  {field}(first: $first, after: $after, orderBy: $order, newestFirst: $newest) {{
    totalCount pageInfo {{ hasNextPage endCursor }} edges {{ cursor node {{ {NODES[field]} }} }}
  }}
}}"""


def _subject(node: dict[str, Any]) -> str:
    found = node.get("step") or node.get("mission") or node
    return str(found["id"])


async def _in_order(client: GraphQLClient, field: str, first: int) -> list[tuple[str, bool]]:
    """Every page of ``field`` by deadline: (subject id, has a deadline) of each item."""
    seen: list[tuple[str, bool]] = []
    after = None
    while True:
        variables = {"first": first, "after": after, "order": "DEADLINE"}
        page = (await client.execute(_page_query(field), variables))[field]
        seen += [
            (_subject(e["node"]), e["node"]["openDecision"]["deadlineAt"] is not None) for e in page["edges"]
        ]
        if not page["pageInfo"]["hasNextPage"]:
            assert page["totalCount"] == len(seen)
            return seen
        after = page["pageInfo"]["endCursor"]


async def _give_deadline(client: GraphQLClient, subject_id: str, seconds: float) -> None:
    about = await client.execute(
        "query($id: ID!) { decisionsAbout(subjectId: $id) { id } }", {"id": subject_id}
    )
    [decision] = about["decisionsAbout"]
    answer = await client.execute(TERMS, {"id": decision["id"], "seconds": seconds})
    assert answer["setDecisionTerms"]["userErrors"] == []


async def _plan_review(client: GraphQLClient) -> str:
    plan = (await client.execute(plan_ops.CREATE_PLAN, {"input": plan_ops.plan_input(1)}))[
        "createResearchPlan"
    ]
    step = (await client.execute(plan_ops.START_NEXT_STEP, {"planId": plan["plan"]["id"]}))["startNextStep"]
    await client.execute(
        plan_ops.REQUEST_REVIEW, {"stepId": step["step"]["id"], "summary": "s", "questions": []}
    )
    return str(step["step"]["id"])


async def _gate(client: GraphQLClient) -> str:
    definition = {"name": "gated", "steps": [{"name": "gate", "approval": True}]}
    created = (await client.execute(ops.CREATE, {"input": definition}))["createWorkflow"]["workflow"]
    await client.execute(ops.START, {"id": created["id"]})
    return str(ops.steps_by_name(created)["gate"]["id"])


async def _mission(client: GraphQLClient) -> str:
    answer = await client.execute(mops.PROPOSE_MISSION, {"input": {"title": "Reef survey", "goal": "g"}})
    return str(answer["proposeMission"]["mission"]["id"])


async def test_each_inbox_lists_the_nearest_deadline_first_then_the_longest_waiting(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    for field, make in (
        ("reviewInbox", _plan_review),
        ("workflowStepsAwaitingReview", _gate),
        ("missionReviews", _mission),
    ):
        # Four waiting a minute apart; the second and the third get deadlines, the third the nearer.
        subjects = []
        for _ in range(4):
            subjects.append(await make(client))
            live_server.clock.advance(timedelta(minutes=1))
        first, second, third, fourth = subjects
        await _give_deadline(client, second, 900)
        await _give_deadline(client, third, 300)
        expected = [(third, True), (second, True), (first, False), (fourth, False)]
        assert await _in_order(client, field, 10) == expected, field
        assert await _in_order(client, field, 1) == expected, field
        # The waiting order is unchanged by the deadlines.
        waiting = (await client.execute(_page_query(field), {"first": 10, "order": "WAITING"}))[field]
        assert [_subject(e["node"]) for e in waiting["edges"]] == subjects, field


async def test_the_deadline_order_refuses_newest_first_and_another_orders_cursor(
    client: GraphQLClient,
) -> None:
    await _plan_review(client)
    await _plan_review(client)
    await _gate(client)
    await _gate(client)
    await _mission(client)
    await _mission(client)
    for field in NODES:
        query = _page_query(field)
        newest = (await client.post(query, {"first": 1, "order": "DEADLINE", "newest": True})).json()
        assert newest["errors"][0]["extensions"]["code"] == "VALIDATION_FAILED", field
        waiting = (await client.execute(query, {"first": 1, "order": "WAITING"}))[field]
        by_deadline = (await client.execute(query, {"first": 1, "order": "DEADLINE"}))[field]
        for cursor, order in (
            (waiting["pageInfo"]["endCursor"], "DEADLINE"),
            (by_deadline["pageInfo"]["endCursor"], "WAITING"),
        ):
            refused = (await client.post(query, {"first": 1, "after": cursor, "order": order})).json()
            assert refused["errors"][0]["extensions"]["code"] == "VALIDATION_FAILED", (field, order)
        unknown = (await client.post(query, {"first": 1, "order": "SOONEST"})).json()
        assert "errors" in unknown, field


DECISIONS = """
query($first: Int!, $after: String) {
  decisionInbox(first: $first, after: $after, orderBy: DEADLINE) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { subjectId deadlineAt } }
  }
}
"""


async def test_the_decision_inbox_lists_every_domain_by_deadline(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    assert set(ROOT_TYPES) == {point.root for point in POINTS.values()}
    subjects = []
    for make in (_plan_review, _gate, _mission, _plan_review):
        subjects.append(await make(client))
        live_server.clock.advance(timedelta(minutes=1))
    plan, gate, mission, later_plan = subjects
    await _give_deadline(client, gate, 900)
    await _give_deadline(client, mission, 300)
    for first in (10, 1):
        seen: list[str] = []
        after = None
        while True:
            page = (await client.execute(DECISIONS, {"first": first, "after": after}))["decisionInbox"]
            seen += [e["node"]["subjectId"] for e in page["edges"]]
            if not page["pageInfo"]["hasNextPage"]:
                break
            after = page["pageInfo"]["endCursor"]
        assert seen == [mission, gate, plan, later_plan], first
