"""Lists' filters, orders and search over HTTP on a real server; past stall alerts from the log."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from server.loops.stalls import scan_stalls
from tests.api import mission_operations as mops
from tests.api import operations as ops
from tests.api import workflow_operations as wops
from tests.conftest import GraphQLClient, LiveServer

PLANS = """
query Plans($first: Int!, $after: String, $filter: ListFilter, $orderBy: ListOrderBy) {
  researchPlans(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id title } }
  }
}
"""

STALLS = """
query Stalls($after: String) {
  stallAlerts(first: 1, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { seq planId steps { stepId } } }
  }
}
"""


async def _plan(client: GraphQLClient, title: str) -> str:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1, title=title)})
    plan_id: str = created["createResearchPlan"]["plan"]["id"]
    return plan_id


async def test_plans_are_searched_sorted_and_paged_with_a_server_count(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    ids = []
    for title in ("Solar output", "Wind output", "Tidal output", "Something else"):
        ids.append(await _plan(client, title))
        live_server.clock.advance(timedelta(seconds=1))

    variables = {
        "first": 2,
        "filter": {"search": "OUTPUT"},
        "orderBy": {"field": "CREATED_AT", "direction": "ASC"},
    }
    first = (await client.execute(PLANS, variables))["researchPlans"]
    assert first["totalCount"] == 3
    assert [e["node"]["id"] for e in first["edges"]] == ids[:2]
    assert first["pageInfo"]["hasNextPage"] is True
    rest = (await client.execute(PLANS, {**variables, "after": first["pageInfo"]["endCursor"]}))[
        "researchPlans"
    ]
    assert [e["node"]["id"] for e in rest["edges"]] == [ids[2]]
    assert rest["pageInfo"]["hasNextPage"] is False


@pytest.mark.parametrize(
    ("variables", "problem"),
    [
        ({"filter": {"search": "ab"}}, "search"),
        ({"filter": {"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}}, "until"),
        ({"filter": {"since": "2026-01-01T00:00:00Z"}, "orderBy": {"field": "STATUS"}}, "order"),
        ({"after": "bm90IGEgY3Vyc29y"}, "cursor"),
    ],
)
async def test_out_of_bounds_list_input_is_validation_failed(
    client: GraphQLClient, variables: dict[str, object], problem: str
) -> None:
    response = await client.post(PLANS, {"first": 5, **variables})
    body = response.json()
    assert body["data"] is None, problem
    assert [e["extensions"]["code"] for e in body["errors"]] == ["VALIDATION_FAILED"], problem


async def test_event_filters_out_of_bounds_are_validation_failed(client: GraphQLClient) -> None:
    kinds = [f"k{i}" for i in range(51)]
    response = await client.post(
        "query($k: [String!]) { events(filter: {kinds: $k}) { totalCount } }", {"k": kinds}
    )
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["VALIDATION_FAILED"]


async def test_stall_alerts_are_read_from_the_log_newest_first_by_a_page_opened_later(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    stalled = []
    for _ in range(2):
        plan_id = await _plan(client, "Slow plan")
        await client.execute(ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": None})
        live_server.clock.advance(timedelta(hours=2))
        found = live_server.call(scan_stalls(live_server.app.state.runtime))
        assert len(found) == 1
        stalled.append(plan_id)

    page = (await client.execute(STALLS))["stallAlerts"]
    assert page["totalCount"] == 2
    assert [e["node"]["planId"] for e in page["edges"]] == [stalled[1]]
    assert page["edges"][0]["node"]["steps"] != []
    older = (await client.execute(STALLS, {"after": page["pageInfo"]["endCursor"]}))["stallAlerts"]
    assert [e["node"]["planId"] for e in older["edges"]] == [stalled[0]]
    assert older["pageInfo"]["hasNextPage"] is False
    assert older["edges"][0]["node"]["seq"] < page["edges"][0]["node"]["seq"]


async def test_missions_are_searched_by_title_and_workflows_by_name(client: GraphQLClient) -> None:
    for title in ("Map the Reef", "Count the birds"):
        answer = await client.execute(mops.PROPOSE_MISSION, {"input": {"title": title, "goal": "reef goal"}})
        assert answer["proposeMission"]["userErrors"] == []
    for name in ("nightly-reef-sync", "weekly-report"):
        answer = await client.execute(wops.CREATE, {"input": {"name": name, "steps": [{"name": "a"}]}})
        assert answer["createWorkflow"]["userErrors"] == []

    search = {"filter": {"search": "reef"}}
    missions = (
        "query($filter: ListFilter) { missions(filter: $filter) { totalCount edges { node { title } } } }"
    )
    found = (await client.execute(missions, search))["missions"]
    assert [e["node"]["title"] for e in found["edges"]] == ["Map the Reef"]  # not by goal
    assert found["totalCount"] == 1
    workflows = (
        "query($filter: ListFilter) { workflows(filter: $filter) { totalCount edges { node { name } } } }"
    )
    found = (await client.execute(workflows, search))["workflows"]
    assert [e["node"]["name"] for e in found["edges"]] == ["nightly-reef-sync"]
    assert found["totalCount"] == 1


async def test_workflow_gates_waiting_for_review_are_filtered_by_workflow_name_and_time(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    started = []
    for name in ("reef-deploy", "bird-deploy", "reef-audit"):
        created = await client.execute(
            wops.CREATE, {"input": {"name": name, "steps": [{"name": "g", "approval": True}]}}
        )
        workflow_id = created["createWorkflow"]["workflow"]["id"]
        await client.execute(wops.START, {"id": workflow_id})
        started.append(workflow_id)
        live_server.clock.advance(timedelta(minutes=1))

    inbox = """
    query($filter: ReviewInboxFilter, $newest: Boolean!, $after: String) {
      workflowStepsAwaitingReview(first: 1, filter: $filter, newestFirst: $newest, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } edges { node { workflow { id } } }
      }
    }
    """

    async def waiting(**variables: object) -> dict[str, Any]:
        answer = await client.execute(inbox, {"newest": False, **variables})
        page: dict[str, Any] = answer["workflowStepsAwaitingReview"]
        return page

    assert (await waiting())["totalCount"] == 3
    reef = await waiting(filter={"search": "REEF"}, newest=True)
    assert reef["totalCount"] == 2
    assert [e["node"]["workflow"]["id"] for e in reef["edges"]] == [started[2]]
    older = await waiting(filter={"search": "REEF"}, newest=True, after=reef["pageInfo"]["endCursor"])
    assert [e["node"]["workflow"]["id"] for e in older["edges"]] == [started[0]]
    assert older["pageInfo"]["hasNextPage"] is False
    assert (await waiting(filter={"search": "deploy", "until": minutes_ago(live_server, 2)}))[
        "totalCount"
    ] == 1


def minutes_ago(live_server: LiveServer, minutes_ago: int) -> str:
    return (live_server.clock.now() - timedelta(minutes=minutes_ago)).isoformat()


LEAN = """
query Lean($first: Int!, $after: String, $status: [PlanStatus!], $orderBy: ListOrderBy) {
  researchPlans(first: $first, after: $after, status: $status, orderBy: $orderBy) {
    pageInfo { hasNextPage endCursor } edges { node { id } }
  }
}
"""
COUNTED = """
query Counted($first: Int!, $after: String, $status: [PlanStatus!], $orderBy: ListOrderBy) {
  researchPlans(first: $first, after: $after, status: $status, orderBy: $orderBy) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } }
  }
}
"""


async def _walk(client: GraphQLClient, query: str, variables: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every id of the list, two a page, and each page's end cursor."""
    ids: list[str] = []
    ends: list[str] = []
    after = None
    while True:
        page = (await client.execute(query, {**variables, "first": 2, "after": after}))["researchPlans"]
        ids += [e["node"]["id"] for e in page["edges"]]
        ends.append(page["pageInfo"]["endCursor"])
        if "cursor" in page["edges"][0]:
            assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]
        if not page["pageInfo"]["hasNextPage"]:
            return ids, ends
        after = page["pageInfo"]["endCursor"]


async def test_a_page_without_edge_cursors_pages_like_one_with_them(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    """Without ``edges { cursor }`` only the end cursor is made; the pages
    are the same, in every order and with one or several states."""
    for n in range(5):
        await _plan(client, f"plan {n}")
        live_server.clock.advance(timedelta(seconds=1))
    cases: list[dict[str, Any]] = [
        {"orderBy": {"field": field, "direction": direction}}
        for field in ("CREATED_AT", "UPDATED_AT", "STATUS", "DURATION")
        for direction in ("ASC", "DESC")
    ]
    cases += [{"status": ["PLANNING"]}, {"status": ["PLANNING", "COMPLETED"], "orderBy": {"field": "STATUS"}}]
    for variables in cases:
        lean, counted = await _walk(client, LEAN, variables), await _walk(client, COUNTED, variables)
        assert lean == counted, variables
        assert len(lean[0]) == 5, variables
