"""Cancelling a mission: from every state that is not final, with its hop in progress and that hop's
unfinished tool steps, in one transaction; finished missions refuse. Cancelling one hop: its unfinished
tool steps with it, and the mission back to APPROVED for another hop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.auth import Principal, Role
from server.errors import ErrorCode
from server.services.missions import proposals as mission_proposals
from server.services.missions.inputs import NewToolStep
from tests.services.missions.driver import GOOD_PARAMS, Crew


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


async def _finished_hops(crew: Crew) -> tuple[str, str, str]:
    """A mission with a completed hop and a rejected (cancelled) one: (mission, completed, rejected)."""
    mission_id = await crew.approved_mission()
    done_hop, [step] = await crew.executing_hop(mission_id, steps=1)
    await crew.complete_step(step)
    rejected = await crew.propose_hop(mission_id, "second")
    await crew.reject_hop_plan(rejected.id, "no")
    return mission_id, done_hop, rejected.id


async def test_finished_hops_stay_as_they_were_when_the_mission_is_cancelled(crew: Crew) -> None:
    mission_id, first_hop, rejected = await _finished_hops(crew)
    await crew.cancel_mission(mission_id)
    assert (await crew.hop(first_hop)).status == "COMPLETED"
    assert (await crew.hop(rejected)).status_reason == "no"  # still the rejection's reason


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


# -- cancelling one hop --


async def _plan_proposed(crew: Crew) -> str:
    return (await crew.propose_hop(await crew.approved_mission())).id


async def _ready_for_implementation(crew: Crew) -> str:
    return await crew.hop_ready_for_implementation(await crew.approved_mission())


async def _implementation_proposed(crew: Crew) -> str:
    hop_id = await _ready_for_implementation(crew)
    bare, configured = NewToolStep("a"), NewToolStep("b", tool_name="web_search", parameters=GOOD_PARAMS)
    await crew.propose_implementation(hop_id, [bare, configured])
    return hop_id


async def _implementation_failed(crew: Crew) -> str:
    hop_id = await _ready_for_implementation(crew)
    await crew.fail_implementation(hop_id)
    return hop_id


async def _ready_for_execution(crew: Crew) -> str:
    hop_id, _ = await crew.implemented_hop(await crew.approved_mission())
    return hop_id


async def _hop_executing(crew: Crew) -> str:
    hop_id, (first, _) = await crew.executing_hop(await crew.approved_mission())
    await crew.complete_step(first)
    return hop_id


async def _hop_failed_in_execution(crew: Crew) -> str:
    hop_id, (first, second, _) = await crew.executing_hop(await crew.approved_mission(), steps=3)
    await crew.complete_step(first)
    await crew.fail_step(second)  # the third is still running
    return hop_id


# hop state -> (its set-up, the mission's state then, the mission's walk to APPROVED)
HOP_SETUPS: dict[str, tuple[Callable[[Crew], Awaitable[str]], str, list[tuple[str, str]]]] = {
    "PLAN_PROPOSED": (_plan_proposed, "BUILDING_HOP", [("BUILDING_HOP", "APPROVED")]),
    "READY_FOR_IMPLEMENTATION": (_ready_for_implementation, "BUILDING_HOP", [("BUILDING_HOP", "APPROVED")]),
    "IMPLEMENTATION_PROPOSED": (_implementation_proposed, "BUILDING_HOP", [("BUILDING_HOP", "APPROVED")]),
    "FAILED implementing": (_implementation_failed, "BUILDING_HOP", [("BUILDING_HOP", "APPROVED")]),
    "READY_FOR_EXECUTION": (
        _ready_for_execution,
        "HOP_READY",
        [("HOP_READY", "EXECUTING_HOP"), ("EXECUTING_HOP", "APPROVED")],
    ),
    "EXECUTING": (_hop_executing, "EXECUTING_HOP", [("EXECUTING_HOP", "APPROVED")]),
    "FAILED executing": (
        _hop_failed_in_execution,
        "FAILED",
        [("FAILED", "EXECUTING_HOP"), ("EXECUTING_HOP", "APPROVED")],
    ),
}


@pytest.mark.parametrize("state", list(HOP_SETUPS))
async def test_cancelling_a_hop_cancels_its_unfinished_steps_and_returns_the_mission_to_approved(
    crew: Crew, state: str
) -> None:
    setup, mission_state, walk = HOP_SETUPS[state]
    hop_id = await setup(crew)
    hop = await crew.hop(hop_id)
    assert (hop.status, (await crew.mission(hop.mission_id)).status) == (state.split()[0], mission_state)
    before = {s.id: s.status for s in await crew.steps(hop_id)}
    seq0 = await crew.last_seq()

    done = await crew.cancel_hop(hop_id, "wrong direction")  # Crew.call: edges of the tables, coordinated

    assert done.hop is not None
    assert (done.hop.status, done.hop.status_reason) == ("CANCELLED", "wrong direction")
    assert (done.mission.status, done.mission.status_reason) == ("APPROVED", "wrong direction")
    after = {s.id: s.status for s in await crew.steps(hop_id)}
    unfinished = {sid for sid, status in before.items() if status not in ("COMPLETED", "CANCELLED")}
    assert after == {sid: "CANCELLED" if sid in unfinished else status for sid, status in before.items()}
    assert {s.id for s in done.tool_steps} == unfinished
    new = await crew.new_events(seq0)
    assert [(e.from_state, e.to_state) for e in new if e.kind == "mission_transitioned"] == walk
    assert all(e.data["action"] == "hop_cancelled" for e in new if e.kind == "mission_transitioned")
    [cancelled] = [e for e in new if e.kind == "hop_cancelled"]
    assert (cancelled.entity_id, cancelled.data["reason"]) == (hop_id, "wrong direction")
    assert set(cancelled.data["cancelledToolStepIds"]) == unfinished
    # The mission is ready for another hop, as after a rejected plan.
    assert (await crew.propose_hop(hop.mission_id, "another")).status == "PLAN_PROPOSED"


async def test_a_finished_hop_cannot_be_cancelled(crew: Crew) -> None:
    _, done_hop, rejected = await _finished_hops(crew)
    for hop_id, state in ((done_hop, "COMPLETED"), (rejected, "CANCELLED")):
        error = await crew.refused(
            lambda tx, h=hop_id: mission_proposals.cancel_hop(tx, h, "again"), ErrorCode.INVALID_TRANSITION
        )
        assert (error.problems[0].entity, error.problems[0].from_state) == ("hop", state)
        assert error.problems[0].to_state == "CANCELLED"


async def test_cancelling_a_hop_needs_a_reason_and_a_hop_of_ones_own_tenant(crew: Crew) -> None:
    hop_id = await _plan_proposed(crew)
    await crew.refused(lambda tx: mission_proposals.cancel_hop(tx, hop_id, ""), ErrorCode.VALIDATION_FAILED)
    other = crew.as_(Principal("tenant-b", Role.ADMIN, "other-admin"))
    await other.refused(lambda tx: mission_proposals.cancel_hop(tx, hop_id, "mine"), ErrorCode.NOT_FOUND)
    assert (await crew.hop(hop_id)).status == "PLAN_PROPOSED"
