"""Tools and their JSON Schemas: parameters are checked before READY_TO_EXECUTE; bad input writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from server.errors import ErrorCode
from server.services.missions import implementation as mission_implementation
from server.services.missions import tools as mission_tools
from server.services.missions.inputs import NewTool, NewToolStep
from tests.services.missions.driver import SEARCH_SCHEMA, Crew


async def _configurable_step(crew: Crew) -> tuple[str, str]:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    proposed = await crew.propose_implementation(hop_id, [NewToolStep("a", tool_name="web_search")])
    return hop_id, proposed.tool_steps[0].id


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({}, ["parameters"]),  # "query" is required
        ({"query": ""}, ["parameters", "query"]),
        ({"query": "x", "limit": 0}, ["parameters", "limit"]),
        ({"query": "x", "limit": "5"}, ["parameters", "limit"]),
        ({"query": "x", "extra": True}, ["parameters"]),
    ],
)
async def test_parameters_that_break_the_tools_schema_are_refused_and_nothing_changes(
    crew: Crew, parameters: dict[str, Any], field: list[str]
) -> None:
    _, step_id = await _configurable_step(crew)
    error = await crew.refused(
        lambda tx: mission_implementation.configure_tool_step(tx, step_id, parameters),
        ErrorCode.VALIDATION_FAILED,
    )
    assert [p.field for p in error.problems] == [field]
    assert "web_search" in error.problems[0].message
    assert (await crew.step(step_id)).status == "READY_TO_CONFIGURE"


async def test_every_schema_violation_is_reported_at_once(crew: Crew) -> None:
    _, step_id = await _configurable_step(crew)
    error = await crew.refused(
        lambda tx: mission_implementation.configure_tool_step(tx, step_id, {"query": 3, "limit": -1}),
        ErrorCode.VALIDATION_FAILED,
    )
    assert sorted(p.field[-1] for p in error.problems) == ["limit", "query"]


async def test_valid_parameters_make_the_step_ready_to_execute_and_are_kept(crew: Crew) -> None:
    _, step_id = await _configurable_step(crew)
    done = await crew.configure(step_id, {"query": "lithium"})
    assert done.tool_step is not None
    assert (done.tool_step.status, done.tool_step.parameters) == ("READY_TO_EXECUTE", {"query": "lithium"})
    [event] = await crew.events(kind="tool_step_configured")
    assert event.data == {"parameters": {"query": "lithium"}}


async def test_proposing_an_implementation_checks_every_named_tool_and_parameter_before_writing(
    crew: Crew,
) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    steps = [
        NewToolStep("a", tool_name="no_such_tool"),
        NewToolStep("b", tool_name="web_search", parameters={"limit": 2}),
        NewToolStep("c", parameters={"query": "x"}),
        NewToolStep(""),
    ]
    error = await crew.refused(
        lambda tx: mission_implementation.propose_hop_implementation(tx, hop_id, steps)
    )
    found = {(p.code, tuple(p.field)) for p in error.problems}
    assert found == {
        (ErrorCode.NOT_FOUND, ("toolSteps", "0", "toolName")),
        (ErrorCode.VALIDATION_FAILED, ("toolSteps", "1", "parameters")),
        (ErrorCode.VALIDATION_FAILED, ("toolSteps", "2", "toolName")),
        (ErrorCode.VALIDATION_FAILED, ("toolSteps", "3", "name")),
    }
    assert (await crew.hop(hop_id)).status == "READY_FOR_IMPLEMENTATION"


async def test_an_implementation_needs_at_least_one_step(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    error = await crew.refused(
        lambda tx: mission_implementation.propose_hop_implementation(tx, hop_id, []),
        ErrorCode.VALIDATION_FAILED,
    )
    assert error.problems[0].field == ["toolSteps"]


async def test_selecting_an_unknown_tool_is_not_found_and_changes_nothing(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    step_id = (await crew.propose_implementation(hop_id, [NewToolStep("a")])).tool_steps[0].id
    error = await crew.refused(
        lambda tx: mission_implementation.select_tool(tx, step_id, "nope"), ErrorCode.NOT_FOUND
    )
    assert error.problems[0].field == ["toolName"]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "no-such-type"},
        {"properties": {"a": {"minimum": "zero"}}},
        {"required": "query"},
    ],
)
async def test_registering_a_tool_with_an_invalid_json_schema_is_refused(
    crew: Crew, schema: dict[str, Any]
) -> None:
    error = await crew.refused(
        lambda tx: mission_tools.register_tool(tx, NewTool("bad", schema)), ErrorCode.VALIDATION_FAILED
    )
    assert error.problems[0].field == ["parameterSchema"]
    assert "not a valid JSON Schema" in error.problems[0].message


async def test_registering_a_name_again_replaces_its_schema_for_later_configurations(crew: Crew) -> None:
    _, step_id = await _configurable_step(crew)
    looser = {**SEARCH_SCHEMA, "required": []}
    again = await crew.register_tool("web_search", looser)
    [first, second] = await crew.events(kind="tool_registered")
    assert first.entity_id == second.entity_id == again.id
    assert second.data["parameterSchema"] == looser
    done = await crew.configure(step_id, {})  # valid now: query is no longer required
    assert done.tool_step is not None
    assert done.tool_step.status == "READY_TO_EXECUTE"


async def test_tools_of_another_tenant_do_not_exist(crew: Crew) -> None:
    from tests.services.helpers import OTHER_TENANT

    other = crew.as_(OTHER_TENANT)
    mission_id = await other.approved_mission()
    hop_id = await other.hop_ready_for_implementation(mission_id)
    error = await other.refused(
        lambda tx: mission_implementation.propose_hop_implementation(
            tx, hop_id, [NewToolStep("a", tool_name="web_search")]
        ),
        ErrorCode.NOT_FOUND,
    )
    assert error.problems[0].field == ["toolSteps", "0", "toolName"]
