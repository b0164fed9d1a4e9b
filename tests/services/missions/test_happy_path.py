"""Seed 004's full happy path at the service layer: a mission with two hops, the final one completing it."""

from __future__ import annotations

from datetime import timedelta

from server.services.missions.inputs import NewToolStep
from tests.services.missions.driver import GOOD_PARAMS, Crew


async def test_two_hops_take_a_mission_from_proposed_to_completed(crew: Crew) -> None:
    mission = await crew.propose_mission("Battery study", "Why cold weather shortens battery life")
    assert mission.status == "PROPOSED"
    await crew.approve_mission(mission.id)
    assert (await crew.mission(mission.id)).status == "APPROVED"

    # Hop 1: plan, approval, implementation with two tool steps, approval, execution.
    hop1 = await crew.propose_hop(mission.id, "gather sources")
    assert (hop1.status, hop1.sequence, hop1.is_final) == ("PLAN_PROPOSED", 1, False)
    assert (await crew.mission(mission.id)).status == "BUILDING_HOP"
    await crew.approve_hop_plan(hop1.id)
    assert (await crew.hop(hop1.id)).status == "READY_FOR_IMPLEMENTATION"
    proposed = await crew.propose_implementation(
        hop1.id, [NewToolStep("search papers"), NewToolStep("search datasets", "public only")]
    )
    first, second = (s.id for s in proposed.tool_steps)
    assert await crew.statuses(hop1.id) == ["PROPOSED", "PROPOSED"]
    assert (await crew.hop(hop1.id)).status == "IMPLEMENTATION_PROPOSED"
    for step_id in (first, second):
        await crew.select_tool(step_id)
        assert (await crew.step(step_id)).status == "READY_TO_CONFIGURE"
        await crew.configure(step_id)
    assert await crew.statuses(hop1.id) == ["READY_TO_EXECUTE", "READY_TO_EXECUTE"]
    assert (await crew.step(first)).parameters == GOOD_PARAMS
    assert (await crew.step(first)).tool_name == "web_search"
    await crew.approve_implementation(hop1.id)
    assert (await crew.hop(hop1.id)).status == "READY_FOR_EXECUTION"
    assert (await crew.mission(mission.id)).status == "HOP_READY"

    crew.clock.advance(timedelta(minutes=1))
    await crew.start_hop(hop1.id)
    assert (await crew.mission(mission.id)).status == "EXECUTING_HOP"
    assert (await crew.hop(hop1.id)).status == "EXECUTING"
    assert (await crew.hop(hop1.id)).started_at == crew.clock.now()
    assert await crew.statuses(hop1.id) == ["EXECUTING", "EXECUTING"]
    await crew.complete_step(first, {"papers": 12})
    assert (await crew.hop(hop1.id)).status == "EXECUTING"  # one step still running
    done = await crew.complete_step(second, {"datasets": 3})

    # The last step completing completes the hop and returns the (not final) hop's mission to APPROVED.
    assert done.hop is not None
    assert done.hop.status == "COMPLETED"
    assert done.mission.status == "APPROVED"
    assert (await crew.step(first)).result == {"papers": 12}

    # Hop 2, the final one, proposed with its tools named and configured in one go.
    hop2 = await crew.propose_hop(mission.id, "write report", final=True)
    assert hop2.sequence == 2
    await crew.approve_hop_plan(hop2.id)
    impl = await crew.propose_implementation(
        hop2.id, [NewToolStep("draft", tool_name="web_search", parameters={"query": "summary"})]
    )
    [step] = impl.tool_steps
    assert step.status == "READY_TO_EXECUTE"
    await crew.approve_implementation(hop2.id)
    await crew.start_hop(hop2.id)
    finished = await crew.complete_step(step.id, "the report")

    assert finished.mission.status == "COMPLETED"
    assert finished.mission.completed_at == crew.clock.now()
    assert (await crew.hop(hop2.id)).status == "COMPLETED"

    mission_moves = [
        (e.from_state, e.to_state) for e in await crew.events(root_id=mission.id, kind="mission_transitioned")
    ]
    assert mission_moves == [
        ("PROPOSED", "APPROVED"),
        ("APPROVED", "BUILDING_HOP"),
        ("BUILDING_HOP", "HOP_READY"),
        ("HOP_READY", "EXECUTING_HOP"),
        ("EXECUTING_HOP", "APPROVED"),
        ("APPROVED", "BUILDING_HOP"),
        ("BUILDING_HOP", "HOP_READY"),
        ("HOP_READY", "EXECUTING_HOP"),
        ("EXECUTING_HOP", "COMPLETED"),
    ]
    events = await crew.events(root_id=mission.id)
    assert {e.root_type for e in events} == {"mission"}
    kinds = [e.kind for e in events]
    assert kinds[0] == "mission_proposed"
    assert kinds.count("hop_proposed") == 2
    assert kinds.count("hop_implementation_proposed") == 2
    assert kinds.count("tool_selected") == 3
    assert kinds.count("tool_step_configured") == 3
    assert kinds.count("tool_step_completed") == 3


async def test_each_hop_step_walks_the_seed_edges_one_event_each(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    hop_id, [step_id] = await crew.executing_hop(mission_id, steps=1)
    await crew.complete_step(step_id)
    moves = [(e.from_state, e.to_state) for e in await crew.events(kind="tool_step_transitioned")]
    assert moves == [
        ("PROPOSED", "READY_TO_CONFIGURE"),
        ("READY_TO_CONFIGURE", "READY_TO_EXECUTE"),
        ("READY_TO_EXECUTE", "EXECUTING"),
        ("EXECUTING", "COMPLETED"),
    ]
    hop_moves = [(e.from_state, e.to_state) for e in await crew.events(kind="hop_transitioned")]
    assert hop_moves == [
        ("PLAN_PROPOSED", "READY_FOR_IMPLEMENTATION"),
        ("READY_FOR_IMPLEMENTATION", "IMPLEMENTATION_PROPOSED"),
        ("IMPLEMENTATION_PROPOSED", "READY_FOR_EXECUTION"),
        ("READY_FOR_EXECUTION", "EXECUTING"),
        ("EXECUTING", "COMPLETED"),
    ]
    assert (await crew.hop(hop_id)).completed_at == crew.clock.now()
