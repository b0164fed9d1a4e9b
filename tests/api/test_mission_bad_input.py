"""Bad input to the mission API gets a clear error and writes nothing (the event log does not move)."""

from __future__ import annotations

from typing import Any

import pytest

from server.config import Settings
from tests.api import mission_operations as mops
from tests.api.test_missions_api import approved_mission, register_search_tool
from tests.conftest import GraphQLClient

LAST_SEQ = "{ events(after: 0, first: 100) { edges { node { seq } } } }"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, max_text_bytes=64, max_result_bytes=256, max_steps=3)


async def last_seq(client: GraphQLClient) -> int:
    edges = (await client.execute(LAST_SEQ))["events"]["edges"]
    return int(edges[-1]["node"]["seq"]) if edges else 0


async def world(client: GraphQLClient) -> dict[str, str]:
    """A tool, a mission with a hop whose one tool step is READY_TO_CONFIGURE, and an EXECUTING step."""
    await register_search_tool(client)
    mission_id = await approved_mission(client)
    hop = (
        await client.execute(mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": "h", "plan": "p"}})
    )["proposeHop"]["hop"]["id"]
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop})
    done = await client.execute(
        mops.PROPOSE_IMPLEMENTATION,
        {"input": {"hopId": hop, "toolSteps": [{"name": "s", "toolName": "web_search"}]}},
    )
    [step] = done["proposeHopImplementation"]["toolSteps"]
    return {"mission": mission_id, "hop": hop, "step": step["id"]}


CASES: list[tuple[str, str, Any, str, list[str]]] = [
    (
        "empty title",
        mops.PROPOSE_MISSION,
        {"input": {"title": "", "goal": "g"}},
        "VALIDATION_FAILED",
        ["title"],
    ),
    (
        "long goal",
        mops.PROPOSE_MISSION,
        {"input": {"title": "t", "goal": "g" * 65}},
        "VALIDATION_FAILED",
        ["goal"],
    ),
    (
        "unknown mission",
        mops.PROPOSE_HOP,
        {"input": {"missionId": "00000000-0000-0000-0000-000000000000", "name": "h", "plan": "p"}},
        "NOT_FOUND",
        ["missionId"],
    ),
    (
        "malformed mission id",
        mops.PROPOSE_HOP,
        {"input": {"missionId": "m-1", "name": "h", "plan": "p"}},
        "VALIDATION_FAILED",
        ["missionId"],
    ),
    (
        "parameters not an object",
        mops.CONFIGURE,
        {"id": "{step}", "parameters": ["q"]},
        "VALIDATION_FAILED",
        ["parameters"],
    ),
    (
        "parameters too large",
        mops.CONFIGURE,
        {"id": "{step}", "parameters": {"query": "q" * 300}},
        "VALIDATION_FAILED",
        ["parameters"],
    ),
    (
        "schema not a schema",
        mops.REGISTER_TOOL,
        {"input": {"name": "t", "parameterSchema": "any"}},
        "VALIDATION_FAILED",
        ["parameterSchema"],
    ),
    (
        "negative ttl",
        mops.PROPOSE_ASSET,
        {"input": {"missionId": "{mission}", "name": "a", "ttlSeconds": -1}},
        "VALIDATION_FAILED",
        ["ttlSeconds"],
    ),
    (
        "empty reason",
        mops.mission_act("cancelMission", True),
        {"id": "{mission}", "reason": ""},
        "VALIDATION_FAILED",
        ["reason"],
    ),
    (
        "cancel a hop without a reason",
        mops.hop_act("cancelHop", True),
        {"id": "{hop}", "reason": ""},
        "VALIDATION_FAILED",
        ["reason"],
    ),
    (
        "cancel a malformed hop id",
        mops.hop_act("cancelHop", True),
        {"id": "h-1", "reason": "r"},
        "VALIDATION_FAILED",
        ["hopId"],
    ),
    (
        "cancel an unknown hop",
        mops.hop_act("cancelHop", True),
        {"id": "00000000-0000-0000-0000-000000000000", "reason": "r"},
        "NOT_FOUND",
        ["hopId"],
    ),
    (
        "too many tool steps",
        mops.PROPOSE_IMPLEMENTATION,
        {"input": {"hopId": "{hop}", "toolSteps": [{"name": f"s{i}"} for i in range(4)]}},
        "VALIDATION_FAILED",
        ["toolSteps"],
    ),
]


def _fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, ids) for v in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}") and value[1:-1] in ids:
        return ids[value[1:-1]]
    return value


@pytest.mark.parametrize(
    ("document", "variables", "code", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_bad_input_is_a_user_error_naming_its_field_and_nothing_is_written(
    client: GraphQLClient, document: str, variables: dict[str, Any], code: str, field: list[str]
) -> None:
    ids = await world(client)
    seq = await last_seq(client)
    data = await client.execute(document, _fill(variables, ids))
    [payload] = data.values()
    assert [(e["code"], e["field"]) for e in payload["userErrors"]] == [(code, field)], payload
    assert await last_seq(client) == seq


async def test_an_unknown_status_is_a_request_error(client: GraphQLClient) -> None:
    response = await client.post("{ missions(status: [NOPE]) { totalCount } }")
    assert response.status_code == 400
    assert "NOPE" in response.json()["errors"][0]["message"]


async def test_a_lookup_of_a_malformed_mission_id_is_an_error_and_an_unknown_one_null(
    client: GraphQLClient,
) -> None:
    body = (await client.post(mops.MISSION_QUERY, {"id": "x"})).json()
    assert body["errors"][0]["extensions"]["code"] == "VALIDATION_FAILED"
    unknown = await client.execute(mops.MISSION_QUERY, {"id": "00000000-0000-0000-0000-000000000000"})
    assert unknown == {"mission": None}
