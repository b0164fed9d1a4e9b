"""Cancelling a mission: from every state that is not final, with its hop in progress and that hop's
unfinished tool steps, in one transaction; finished missions refuse."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.errors import ErrorCode
from server.services import mission_proposals
from server.services.mission_inputs import NewToolStep
from tests.missions.driver import Crew


async def _proposed(crew: Crew) -> str:
    return (await crew.propose_mission()).id


async def _building(crew: Crew) -> str:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    await crew.propose_implementation(hop_id, [NewToolStep("a"), NewToolStep("b", tool_name="web_search")])
    return mission_id


async def _hop_ready(crew: Crew) -> str:
    mission_id = await crew.approved_mission()
    await crew.implemented_hop(mission_id)
    return mission_id


async def _executing(crew: Crew) -> str:
    mission_id = await crew.approved_mission()
    _, (first, _) = await crew.executing_hop(mission_id)
    await crew.complete_step(first)
    return mission_id


async def _failed(crew: Crew) -> str:
    mission_id = await crew.approved_mission()
    _, (first, second) = await crew.executing_hop(mission_id)
    await crew.complete_step(first)
    await crew.fail_step(second)
    return mission_id


SETUPS: dict[str, Callable[[Crew], Awaitable[str]]] = {
    "PROPOSED": _proposed,
    "APPROVED": lambda crew: crew.approved_mission(),
    "BUILDING_HOP": _building,
    "HOP_READY": _hop_ready,
    "EXECUTING_HOP": _executing,
    "FAILED": _failed,
}


@pytest.mark.parametrize("state", list(SETUPS))
async def test_cancelling_a_mission_cancels_its_hop_and_unfinished_steps_and_keeps_finished_ones(
    crew: Crew, state: str
) -> None:
    mission_id = await SETUPS[state](crew)
    assert (await crew.mission(mission_id)).status == state
    hops_before = {e.entity_id for e in await crew.events(root_id=mission_id, kind="hop_proposed")}
    completed_before = {
        e.entity_id
        for e in await crew.events(root_id=mission_id, kind="tool_step_transitioned")
        if e.to_state == "COMPLETED"
    }

    done = await crew.cancel_mission(mission_id, "budget cut")

    assert (done.mission.status, done.mission.status_reason) == ("CANCELLED", "budget cut")
    for hop_id in hops_before:
        hop = await crew.hop(hop_id)
        assert (hop.status, hop.status_reason) == ("CANCELLED", "budget cut")
        for step in await crew.steps(hop_id):
            expected = "COMPLETED" if step.id in completed_before else "CANCELLED"
            assert step.status == expected
    [event] = await crew.events(root_id=mission_id, kind="mission_cancelled")
    assert event.data["reason"] == "budget cut"
    assert set(event.data["cancelledHopIds"]) == hops_before
    cancelled_steps = {
        e.entity_id
        for e in await crew.events(root_id=mission_id, kind="tool_step_transitioned")
        if e.to_state == "CANCELLED"
    }
    assert set(event.data["cancelledToolStepIds"]) == cancelled_steps


async def test_finished_hops_stay_as_they_were_when_the_mission_is_cancelled(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    first_hop, [step] = await crew.executing_hop(mission_id, steps=1)
    await crew.complete_step(step)
    rejected = await crew.propose_hop(mission_id, "second")
    await crew.reject_hop_plan(rejected.id, "no")
    await crew.cancel_mission(mission_id)
    assert (await crew.hop(first_hop)).status == "COMPLETED"
    assert (await crew.hop(rejected.id)).status_reason == "no"  # still the rejection's reason


async def test_a_completed_or_cancelled_mission_cannot_be_cancelled(crew: Crew) -> None:
    done_id = await crew.approved_mission()
    _, [step] = await crew.executing_hop(done_id, steps=1, final=True)
    await crew.complete_step(step)
    cancelled = await crew.propose_mission()
    await crew.cancel_mission(cancelled.id)
    for mission_id, state in ((done_id, "COMPLETED"), (cancelled.id, "CANCELLED")):
        error = await crew.refused(
            lambda tx, m=mission_id: mission_proposals.cancel_mission(tx, m, "again"),
            ErrorCode.INVALID_TRANSITION,
        )
        assert (error.problems[0].from_state, error.problems[0].to_state) == (state, "CANCELLED")
