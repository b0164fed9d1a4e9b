"""Every rejection path (DESIGN.md: transitions with a recorded reason, not extra states)."""

from __future__ import annotations

import pytest

from server.errors import ErrorCode
from server.services.missions import implementation as mission_implementation
from server.services.missions import proposals as mission_proposals
from server.services.missions.inputs import NewToolStep
from tests.services.missions.driver import GOOD_PARAMS, Crew


async def test_rejecting_a_proposed_mission_cancels_it_with_the_reason(crew: Crew) -> None:
    mission = await crew.propose_mission()
    done = await crew.reject_mission(mission.id, "not our business")
    assert (done.mission.status, done.mission.status_reason) == ("CANCELLED", "not our business")
    [event] = await crew.events(root_id=mission.id, kind="mission_rejected")
    assert event.data == {"reason": "not our business"}
    [move] = await crew.events(root_id=mission.id, kind="mission_transitioned")
    assert (move.from_state, move.to_state) == ("PROPOSED", "CANCELLED")
    assert move.data == {"reason": "not our business", "action": "rejected"}


async def test_only_a_proposed_mission_can_be_rejected(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    error = await crew.refused(
        lambda tx: mission_proposals.reject_mission(tx, mission_id, "late"), ErrorCode.INVALID_TRANSITION
    )
    [problem] = error.problems
    assert (problem.entity, problem.from_state, problem.to_state) == ("mission", "APPROVED", "CANCELLED")
    assert problem.field == ["missionId"]


@pytest.mark.parametrize("reason", ["", "x" * (64 * 1024 + 1)])
async def test_a_rejection_without_a_usable_reason_is_refused(crew: Crew, reason: str) -> None:
    mission = await crew.propose_mission()
    error = await crew.refused(
        lambda tx: mission_proposals.reject_mission(tx, mission.id, reason), ErrorCode.VALIDATION_FAILED
    )
    assert error.problems[0].field == ["reason"]


async def test_rejecting_a_hop_plan_cancels_the_hop_and_returns_the_mission_to_approved(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop = await crew.propose_hop(mission_id)
    done = await crew.reject_hop_plan(hop.id, "start with datasets")

    assert done.mission.status == "APPROVED"
    assert (await crew.hop(hop.id)).status == "CANCELLED"
    assert (await crew.hop(hop.id)).status_reason == "start with datasets"
    [event] = await crew.events(kind="hop_plan_rejected")
    assert (event.entity_id, event.data) == (hop.id, {"reason": "start with datasets"})
    # The mission takes the next proposal; the rejected hop stays as history.
    again = await crew.propose_hop(mission_id, "datasets first")
    assert again.sequence == 2
    assert (await crew.mission(mission_id)).status == "BUILDING_HOP"


async def test_an_approved_hop_plan_can_no_longer_be_rejected(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    error = await crew.refused(
        lambda tx: mission_proposals.reject_hop_plan(tx, hop_id, "too late"), ErrorCode.INVALID_TRANSITION
    )
    assert error.problems[0].from_state == "READY_FOR_IMPLEMENTATION"


async def test_rejecting_an_implementation_cancels_its_steps_and_reopens_the_hop(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    proposed = await crew.propose_implementation(
        hop_id,
        [
            NewToolStep("a"),
            NewToolStep("b", tool_name="web_search"),
            NewToolStep("c", tool_name="web_search"),
        ],
    )
    await crew.configure(proposed.tool_steps[2].id)
    assert await crew.statuses(hop_id) == ["PROPOSED", "READY_TO_CONFIGURE", "READY_TO_EXECUTE"]

    done = await crew.reject_implementation(hop_id, "use a different source")

    assert done.hop is not None
    assert (done.hop.status, done.hop.status_reason) == ("READY_FOR_IMPLEMENTATION", "use a different source")
    assert done.mission.status == "BUILDING_HOP"
    assert await crew.statuses(hop_id) == ["CANCELLED"] * 3
    [event] = await crew.events(kind="hop_implementation_rejected")
    assert event.data == {"reason": "use a different source"}

    # A new implementation is proposed next to the cancelled one; its steps are numbered on.
    again = await crew.propose_implementation(
        hop_id, [NewToolStep("d", tool_name="web_search", parameters=GOOD_PARAMS)]
    )
    assert [s.position for s in again.tool_steps] == [4]
    assert (await crew.hop(hop_id)).status_reason is None
    await crew.approve_implementation(hop_id)
    assert (await crew.mission(mission_id)).status == "HOP_READY"


async def test_an_approved_implementation_can_no_longer_be_rejected(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id, _ = await crew.implemented_hop(mission_id)
    error = await crew.refused(
        lambda tx: mission_implementation.reject_hop_implementation(tx, hop_id, "hmm"),
        ErrorCode.INVALID_TRANSITION,
    )
    assert (error.problems[0].from_state, error.problems[0].to_state) == (
        "READY_FOR_EXECUTION",
        "READY_FOR_IMPLEMENTATION",
    )


async def test_approving_an_implementation_with_an_unconfigured_step_is_refused(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    proposed = await crew.propose_implementation(
        hop_id, [NewToolStep("a", tool_name="web_search", parameters=GOOD_PARAMS), NewToolStep("b")]
    )
    error = await crew.refused(
        lambda tx: mission_implementation.approve_hop_implementation(tx, hop_id), ErrorCode.INVALID_TRANSITION
    )
    [problem] = error.problems
    assert proposed.tool_steps[1].id in problem.message
    assert (problem.entity, problem.from_state, problem.to_state) == (
        "tool_step",
        "PROPOSED",
        "READY_TO_EXECUTE",
    )
