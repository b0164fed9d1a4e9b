"""Failure roll-ups and every retry path: retry returns FAILED to the state it failed from (DESIGN.md)."""

from __future__ import annotations

from server.errors import ErrorCode
from server.services.missions import execution as mission_execution
from server.services.missions import implementation as mission_implementation
from server.services.missions.inputs import NewToolStep
from tests.services.missions.driver import Crew


async def test_a_tool_step_failing_in_execution_fails_its_hop_and_mission(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id, (first, second, third) = await crew.executing_hop(mission_id, steps=3)
    await crew.complete_step(first)

    done = await crew.fail_step(second, "rate limited")

    assert (await crew.step(second)).status == "FAILED"
    assert (await crew.step(second)).failed_from == "EXECUTING"
    assert (await crew.step(second)).status_reason == "rate limited"
    assert done.hop is not None
    assert (done.hop.status, done.hop.failed_from) == ("FAILED", "EXECUTING")
    assert (done.mission.status, done.mission.failed_from) == ("FAILED", "EXECUTING_HOP")
    assert done.mission.status_reason == "tool step search 2 failed: rate limited"
    # The other steps are left as they are: one done, one still running.
    assert await crew.statuses(hop_id) == ["COMPLETED", "FAILED", "EXECUTING"]
    [event] = await crew.events(kind="tool_step_failed")
    assert (event.entity_id, event.data) == (second, {"reason": "rate limited"})

    # A sibling still running may finish while the hop is failed; nothing rolls up.
    await crew.complete_step(third)
    assert (await crew.hop(hop_id)).status == "FAILED"


async def test_retrying_the_failed_step_resumes_hop_and_mission_and_completion_rolls_up(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    _, (first, second) = await crew.executing_hop(mission_id, final=True)
    await crew.fail_step(first)

    done = await crew.retry_step(first)

    assert (await crew.step(first)).status == "EXECUTING"
    assert (await crew.step(first)).failed_from is None
    assert done.hop is not None
    assert done.hop.status == "EXECUTING"
    assert done.mission.status == "EXECUTING_HOP"
    assert [(e.from_state, e.to_state) for e in await crew.events(kind="mission_transitioned")][-2:] == [
        ("EXECUTING_HOP", "FAILED"),
        ("FAILED", "EXECUTING_HOP"),
    ]
    await crew.complete_step(first)
    finished = await crew.complete_step(second)
    assert finished.mission.status == "COMPLETED"


async def test_with_two_failed_steps_the_hop_resumes_only_when_the_last_is_retried(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id, (first, second) = await crew.executing_hop(mission_id)
    await crew.fail_step(first)
    await crew.fail_step(second)  # the hop is failed already: no second roll-up
    assert len(await crew.events(kind="hop_transitioned")) == 5

    await crew.retry_step(first)
    assert (await crew.hop(hop_id)).status == "FAILED"
    assert (await crew.mission(mission_id)).status == "FAILED"
    await crew.retry_step(second)
    assert (await crew.hop(hop_id)).status == "EXECUTING"
    assert (await crew.mission(mission_id)).status == "EXECUTING_HOP"


async def test_retrying_the_hop_retries_every_failed_step_with_it(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id, (first, second, third) = await crew.executing_hop(mission_id, steps=3)
    await crew.complete_step(first)
    await crew.fail_step(second)
    await crew.fail_step(third)

    done = await crew.retry_hop(hop_id)

    assert done.hop is not None
    assert (done.hop.status, done.hop.failed_from, done.hop.status_reason) == ("EXECUTING", None, None)
    assert done.mission.status == "EXECUTING_HOP"
    assert await crew.statuses(hop_id) == ["COMPLETED", "EXECUTING", "EXECUTING"]
    [event] = await crew.events(kind="hop_retried")
    assert event.data == {"toState": "EXECUTING", "retriedToolStepIds": [second, third]}


async def test_a_failed_configuration_waits_in_the_implementation_for_a_retry(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    proposed = await crew.propose_implementation(hop_id, [NewToolStep("a", tool_name="web_search")])
    [step] = proposed.tool_steps

    await crew.fail_step(step.id, "no credentials for this tool")

    assert ((await crew.step(step.id)).status, (await crew.step(step.id)).failed_from) == (
        "FAILED",
        "READY_TO_CONFIGURE",
    )
    assert (await crew.hop(hop_id)).status == "IMPLEMENTATION_PROPOSED"  # no hop edge for it in the seed
    assert (await crew.mission(mission_id)).status == "BUILDING_HOP"
    await crew.refused(
        lambda tx: mission_implementation.approve_hop_implementation(tx, hop_id), ErrorCode.INVALID_TRANSITION
    )

    await crew.retry_step(step.id)
    assert (await crew.step(step.id)).status == "READY_TO_CONFIGURE"
    await crew.configure(step.id)
    await crew.approve_implementation(hop_id)
    assert (await crew.mission(mission_id)).status == "HOP_READY"


async def test_a_failed_implementation_keeps_the_mission_building_and_retry_reopens_the_hop(
    crew: Crew,
) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)

    done = await crew.fail_implementation(hop_id, "no tool can read these PDFs")

    assert done.hop is not None
    assert (done.hop.status, done.hop.failed_from) == ("FAILED", "READY_FOR_IMPLEMENTATION")
    assert done.mission.status == "BUILDING_HOP"  # the seed's mission table has no edge for it
    [event] = await crew.events(kind="hop_failed")
    assert event.data == {"reason": "no tool can read these PDFs"}

    retried = await crew.retry_hop(hop_id)
    assert retried.hop is not None
    assert retried.hop.status == "READY_FOR_IMPLEMENTATION"
    assert retried.mission.status == "BUILDING_HOP"


async def test_only_failed_steps_and_hops_are_retried(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id, (step_id, _) = await crew.executing_hop(mission_id)
    error = await crew.refused(
        lambda tx: mission_execution.retry_tool_step(tx, step_id), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("tool_step", "EXECUTING")
    error = await crew.refused(
        lambda tx: mission_execution.retry_hop(tx, hop_id), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("hop", "EXECUTING")


async def test_tool_steps_that_are_not_running_or_configuring_cannot_fail_or_complete(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    _, (step_id, _) = await crew.implemented_hop(mission_id)
    for act in (
        lambda tx: mission_execution.fail_tool_step(tx, step_id, "no"),
        lambda tx: mission_execution.complete_tool_step(tx, step_id, None),
    ):
        error = await crew.refused(act, ErrorCode.INVALID_TRANSITION)
        assert error.problems[0].from_state == "READY_TO_EXECUTE"


async def test_a_hop_starts_only_when_ready_for_execution(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id = await crew.hop_ready_for_implementation(mission_id)
    error = await crew.refused(
        lambda tx: mission_execution.start_hop(tx, hop_id), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].from_state, error.problems[0].to_state) == (
        "READY_FOR_IMPLEMENTATION",
        "EXECUTING",
    )
