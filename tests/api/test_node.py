"""Relay object identification through a real server, on both databases: node(id:) and nodes(ids:).

Every object type with a stable id implements Node; any of them can be refetched by its id alone,
only within the caller's tenant.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from graphql import GraphQLInterfaceType, GraphQLObjectType

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import mission_operations as mops
from tests.api import operations as ops
from tests.api.test_workflow_batched_reads import statements
from tests.conftest import GraphQLClient, LiveServer

ERRORS = "userErrors { code message field }"


@pytest.fixture
def settings(db_url: str) -> Settings:
    # No key cache (two tenants' keys take turns); no background loop reads while statements are counted.
    return Settings(
        database_url=db_url,
        auth_cache_seconds=0,
        workflow_timer_interval_seconds=3600,
        stall_scan_interval_seconds=3600,
    )


@dataclass
class Callers:
    a: GraphQLClient
    b: GraphQLClient


@pytest.fixture
async def callers(settings: Settings, clock: FakeClock, live_server: LiveServer) -> AsyncIterator[Callers]:
    db = Database(settings.database_url)
    _, token_a = await create_key(db, "tenant-a", Role.ADMIN, "a_admin", clock.now())
    _, token_b = await create_key(db, "tenant-b", Role.ADMIN, "b_admin", clock.now())
    await db.dispose()
    made = Callers(GraphQLClient(live_server.url, token_a), GraphQLClient(live_server.url, token_b))
    yield made
    await made.a.aclose()
    await made.b.aclose()


async def _ok(client: GraphQLClient, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    data = await client.execute(document, variables)
    (payload,) = data.values()
    assert payload["userErrors"] == [], payload["userErrors"]
    result: dict[str, Any] = payload
    return result


async def _plan_objects(client: GraphQLClient) -> dict[str, str]:
    skill = await _ok(client, ops.START_SKILL, {"sessionId": "s-1", "skillName": "research"})
    steps = [{"stepType": "SEARCH", "instructions": f"step {i}"} for i in (1, 2, 3)]
    condition = {"afterStepOrder": 1, "field": "confidence", "op": "LT", "value": 0.2, "action": "SKIP_TO"}
    condition["targetStepOrder"] = 3
    created = await _ok(
        client,
        "mutation($input: CreateResearchPlanInput!) { createResearchPlan(input: $input) { "
        f"plan {{ id branchingConditions {{ id }} }} stepIds {ERRORS} }} }}",
        {
            "input": {
                "researchQuestion": "Why?",
                "steps": steps,
                "branchingConditions": [condition],
                "sessionId": "s-1",
            }
        },
    )
    plan_id = created["plan"]["id"]
    output = await _ok(
        client,
        ops.STORE_OUTPUT,
        {"planId": plan_id, "content": "# Answer", "mediaType": "text/markdown", "title": "Answer"},
    )
    return {
        "ResearchPlan": plan_id,
        "PlanStep": created["stepIds"][0],
        "BranchingCondition": created["plan"]["branchingConditions"][0]["id"],
        "SkillExecution": skill["skillExecution"]["id"],
        "ResearchOutput": output["output"]["id"],
    }


async def _mission_objects(client: GraphQLClient) -> dict[str, str]:
    tool = await _ok(client, mops.REGISTER_TOOL, {"input": {"name": "search", "parameterSchema": {}}})
    mission = await _ok(client, mops.PROPOSE_MISSION, {"input": {"title": "Map it", "goal": "A map"}})
    mission_id = mission["mission"]["id"]
    about = await client.execute(
        "query($id: ID!) { decisionsAbout(subjectId: $id) { id } }", {"id": mission_id}
    )
    await _ok(client, mops.mission_act("approveMission"), {"id": mission_id})
    hop = await _ok(client, mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": "h", "plan": "p"}})
    hop_id = hop["hop"]["id"]
    await _ok(client, mops.hop_act("approveHopPlan"), {"id": hop_id})
    implementation = await _ok(
        client,
        mops.PROPOSE_IMPLEMENTATION,
        {"input": {"hopId": hop_id, "toolSteps": [{"name": "look", "toolName": "search"}]}},
    )
    asset = await _ok(client, mops.PROPOSE_ASSET, {"input": {"missionId": mission_id, "name": "map"}})
    return {
        "Decision": about["decisionsAbout"][0]["id"],
        "Tool": tool["tool"]["id"],
        "Mission": mission_id,
        "Hop": hop_id,
        "ToolStep": implementation["toolSteps"][0]["id"],
        "Asset": asset["asset"]["id"],
    }


async def _workflow_objects(client: GraphQLClient) -> dict[str, str]:
    definition = {
        "name": "undoable",
        "failurePolicy": "COMPENSATE",
        "steps": [{"name": "a"}, {"name": "b", "dependsOn": ["a"]}],
        "compensation": [{"step": "a", "action": "undo a", "agent": "w"}],
    }
    created = await _ok(
        client,
        "mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { "
        f"workflow {{ id steps {{ edges {{ node {{ id name }} }} }} }} {ERRORS} }} }}",
        {"input": definition},
    )
    workflow_id = created["workflow"]["id"]
    start = f"mutation($id: ID!) {{ startWorkflow(workflowId: $id) {{ {ERRORS} }} }}"
    await _ok(client, start, {"id": workflow_id})
    claim = f'mutation {{ claimWorkflowStep(agent: "w") {{ step {{ id }} {ERRORS} }} }}'
    first = (await _ok(client, claim, {}))["step"]["id"]
    report = 'stepId: $id, agent: "w"'
    await _ok(
        client, f"mutation($id: ID!) {{ completeWorkflowStep({report}) {{ {ERRORS} }} }}", {"id": first}
    )
    second = (await _ok(client, claim, {}))["step"]["id"]
    failed = await _ok(
        client,
        f'mutation($id: ID!) {{ failWorkflowStep({report}, category: VALIDATION, message: "bad") {{ '
        f"workflow {{ status compensations {{ id }} }} {ERRORS} }} }}",
        {"id": second},
    )
    assert failed["workflow"]["status"] == "COMPENSATING"
    return {
        "Workflow": workflow_id,
        "WorkflowStep": first,
        "WorkflowCompensation": failed["workflow"]["compensations"][0]["id"],
    }


# A field of each type that only that type has, to show the right fields came back.
DISTINCT_FIELD = {
    "ResearchPlan": "researchQuestion",
    "PlanStep": "instructions",
    "BranchingCondition": "field",
    "SkillExecution": "skillName",
    "ResearchOutput": "content",
    "Tool": "parameterSchema",
    "Mission": "goal",
    "Hop": "sequence",
    "ToolStep": "toolName",
    "Asset": "readyAt",
    "Workflow": "failurePolicy",
    "WorkflowStep": "attempt",
    "WorkflowCompensation": "stepName",
    "Decision": "subjectType",
}
EXPECTED = {
    "ResearchPlan": {"researchQuestion": "Why?"},
    "PlanStep": {"instructions": "step 1"},
    "BranchingCondition": {"field": "confidence"},
    "SkillExecution": {"skillName": "research"},
    "ResearchOutput": {"content": "# Answer"},
    "Tool": {"parameterSchema": {}},
    "Mission": {"goal": "A map"},
    "Hop": {"sequence": 1},
    "ToolStep": {"toolName": "search"},
    "Asset": {"readyAt": None},
    "Workflow": {"failurePolicy": "COMPENSATE"},
    "WorkflowStep": {"attempt": 1},
    "WorkflowCompensation": {"stepName": "a"},
    "Decision": {"subjectType": "mission"},
}
FRAGMENTS = " ".join(f"... on {kind} {{ {field} }}" for kind, field in DISTINCT_FIELD.items())
NODE = f"query($id: ID!) {{ node(id: $id) {{ __typename id {FRAGMENTS} }} }}"
NODES = f"query($ids: [ID!]!) {{ nodes(ids: $ids) {{ __typename id {FRAGMENTS} }} }}"


async def _every_kind(client: GraphQLClient) -> dict[str, str]:
    return {
        **await _plan_objects(client),
        **await _mission_objects(client),
        **await _workflow_objects(client),
    }


def test_every_object_type_with_an_id_implements_node() -> None:
    from server.api.schema import build_schema

    schema = build_schema(Settings())._schema
    node = schema.get_type("Node")
    assert isinstance(node, GraphQLInterfaceType)
    implementing = {t.name for t in schema.get_possible_types(node)}
    with_id = {
        name for name, t in schema.type_map.items() if isinstance(t, GraphQLObjectType) and "id" in t.fields
    }
    # Any key of the tenant may refetch a Node; a webhook endpoint (its URL) is for admin keys only,
    # so it is read through webhookEndpoints and is not a Node.
    admin_only = {"WebhookEndpoint"}
    assert implementing == set(DISTINCT_FIELD) == with_id - admin_only


async def test_node_refetches_every_kind_of_object_by_its_id(callers: Callers) -> None:
    ids = await _every_kind(callers.a)
    assert set(ids) == set(DISTINCT_FIELD)
    for kind, object_id in ids.items():
        found = (await callers.a.execute(NODE, {"id": object_id}))["node"]
        assert found == {"__typename": kind, "id": object_id, **EXPECTED[kind]}, kind


async def test_another_tenants_object_is_null_like_an_unknown_id(callers: Callers) -> None:
    ids = await _every_kind(callers.a)
    for object_id in ids.values():
        assert (await callers.b.execute(NODE, {"id": object_id}))["node"] is None
    assert (await callers.b.execute(NODES, {"ids": list(ids.values())}))["nodes"] == [None] * len(ids)
    assert (await callers.a.execute(NODE, {"id": str(uuid.uuid4())}))["node"] is None


async def test_an_id_in_another_case_finds_the_same_object(callers: Callers) -> None:
    plan_id = (await _plan_objects(callers.a))["ResearchPlan"]
    found = (await callers.a.execute(NODE, {"id": plan_id.upper()}))["node"]
    assert found["__typename"] == "ResearchPlan"
    assert found["id"] == plan_id


@pytest.mark.parametrize("garbage", ["not-an-id", "", "1", "'; DROP TABLE missions; --", "x" * 5000])
async def test_a_malformed_id_is_a_clean_validation_error(callers: Callers, garbage: str) -> None:
    response = await callers.a.post(NODE, {"id": garbage})
    body = response.json()
    assert response.status_code == 200, body
    assert body["data"] == {"node": None}
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "VALIDATION_FAILED"
    assert error["extensions"]["field"] == ["id"]
    assert error["path"] == ["node"]


async def test_nodes_keeps_the_order_asked_with_nulls_and_repeats(callers: Callers) -> None:
    ids = await _plan_objects(callers.a)
    b_mission = (await _mission_objects(callers.b))["Mission"]
    unknown = str(uuid.uuid4())
    asked = [ids["PlanStep"], unknown, ids["ResearchPlan"], b_mission, ids["PlanStep"]]
    found = (await callers.a.execute(NODES, {"ids": asked}))["nodes"]
    assert [n and (n["__typename"], n["id"]) for n in found] == [
        ("PlanStep", ids["PlanStep"]),
        None,
        ("ResearchPlan", ids["ResearchPlan"]),
        None,
        ("PlanStep", ids["PlanStep"]),
    ]
    assert (await callers.a.execute(NODES, {"ids": []}))["nodes"] == []


async def test_nodes_refuses_a_malformed_id_naming_its_position(callers: Callers) -> None:
    response = await callers.a.post(NODES, {"ids": [str(uuid.uuid4()), "nope"]})
    body = response.json()
    assert body["data"] is None
    (error,) = body["errors"]
    assert error["extensions"] == {"code": "VALIDATION_FAILED", "field": ["ids", "1"]}


async def test_nodes_refuses_more_ids_than_a_page_holds(callers: Callers, settings: Settings) -> None:
    asked = [str(uuid.uuid4()) for _ in range(settings.max_page_size + 1)]
    body = (await callers.a.post(NODES, {"ids": asked})).json()
    assert body["data"] is None
    (error,) = body["errors"]
    assert error["extensions"] == {"code": "VALIDATION_FAILED", "field": ["ids"]}
    at_limit = (await callers.a.execute(NODES, {"ids": asked[:-1]}))["nodes"]
    assert at_limit == [None] * settings.max_page_size


async def test_ids_are_looked_up_in_one_pass_not_one_query_per_id_or_table(
    callers: Callers, live_server: LiveServer
) -> None:
    ids = await _plan_objects(callers.a)
    steps = (
        await callers.a.execute(
            "query($id: ID!) { researchPlan(id: $id) { steps { id } } }", {"id": ids["ResearchPlan"]}
        )
    )["researchPlan"]["steps"]
    asked = [ids["ResearchPlan"], *(s["id"] for s in steps)] + [str(uuid.uuid4()) for _ in range(96)]

    def node_reads(seen: list[str]) -> list[str]:
        # Reads by id (the kind probe and each table's batch, or a per-id read were it one query per
        # id); the loops' scans, which a loaded machine schedules inside the request's window, select
        # by status, deadline or endpoint, never by an id parameter.
        by_id = re.compile(r"\.id (IN \(|= [?$])")
        return [q for q in seen if q.lstrip().upper().startswith("SELECT") and by_id.search(q)]

    with statements(live_server) as seen:
        found = (await callers.a.execute(NODES, {"ids": asked}))["nodes"]
    assert [n["__typename"] for n in found[:4]] == ["ResearchPlan", "PlanStep", "PlanStep", "PlanStep"]
    # Which tables hold the ids, then the plans, then the steps.
    assert len(node_reads(seen)) == 3, node_reads(seen)

    with statements(live_server) as seen:
        assert (await callers.a.execute(NODE, {"id": ids["PlanStep"]}))["node"]
    assert len(node_reads(seen)) == 2, node_reads(seen)
