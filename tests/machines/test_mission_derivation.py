"""Missions follow their hops and hops their tool steps: pure derivations, checked
against the coordination tables they read the other way."""

from __future__ import annotations

import itertools

import pytest

from server.machines.mission import HopStatus, MissionStatus, ToolStepStatus
from server.machines.mission_coordination import (
    HOP_STEP_TABLE,
    MISSION_HOP_TABLE,
    HopView,
    derive_hop_status,
    derive_mission_status,
    mission_hop_problems,
)

M, H, T = MissionStatus, HopStatus, ToolStepStatus
HOPS_WITH_STEPS = {H.IMPLEMENTATION_PROPOSED, H.READY_FOR_EXECUTION, H.EXECUTING, H.COMPLETED}


def hop_in(status: HopStatus, *, final: bool = False, failed_from: HopStatus | None = None) -> HopView:
    steps = (T.COMPLETED,) if status in HOPS_WITH_STEPS else ()
    if status is H.FAILED and failed_from is H.EXECUTING:
        steps = (T.FAILED,)
    return HopView("h", status, final, steps, failed_from)


def consistent_hops(mission: MissionStatus) -> list[list[HopView]]:
    """Every way the mission's hops can satisfy the mission <-> hop table."""
    if mission is M.COMPLETED:
        return [[HopView("old", H.COMPLETED, False, (T.COMPLETED,)), hop_in(H.COMPLETED, final=True)]]
    if not MISSION_HOP_TABLE[mission]:
        return [[], [HopView("old", H.COMPLETED, False, (T.COMPLETED,)), HopView("x", H.CANCELLED)]]
    found = []
    for hop in sorted(MISSION_HOP_TABLE[mission]):
        if hop is H.FAILED:
            failed_from = H.EXECUTING if mission is M.FAILED else H.READY_FOR_IMPLEMENTATION
            found.append([hop_in(hop, failed_from=failed_from)])
        else:
            found.append([HopView("old", H.CANCELLED), hop_in(hop)])
    return found


@pytest.mark.parametrize("mission", list(M))
def test_a_mission_in_line_with_its_hops_derives_its_own_state(mission: MissionStatus) -> None:
    for hops in consistent_hops(mission):
        if mission is not M.PROPOSED:
            assert mission_hop_problems("m", mission, hops) == [], hops
        assert derive_mission_status(mission, hops) is mission, hops


@pytest.mark.parametrize(
    ("mission", "hop", "expected"),
    [
        (M.APPROVED, hop_in(H.PLAN_PROPOSED), M.BUILDING_HOP),  # a hop was proposed
        (M.BUILDING_HOP, hop_in(H.READY_FOR_EXECUTION), M.HOP_READY),  # its implementation approved
        (M.HOP_READY, hop_in(H.EXECUTING), M.EXECUTING_HOP),  # started
        (M.EXECUTING_HOP, hop_in(H.COMPLETED), M.APPROVED),  # done, another hop follows
        (M.EXECUTING_HOP, hop_in(H.COMPLETED, final=True), M.COMPLETED),  # the final hop done
        (M.EXECUTING_HOP, hop_in(H.FAILED, failed_from=H.EXECUTING), M.FAILED),
        (M.FAILED, hop_in(H.EXECUTING), M.EXECUTING_HOP),  # retried
        (M.BUILDING_HOP, hop_in(H.FAILED, failed_from=H.READY_FOR_IMPLEMENTATION), M.BUILDING_HOP),
        (M.BUILDING_HOP, HopView("h", H.CANCELLED), M.APPROVED),  # a rejected hop plan
        (M.HOP_READY, HopView("h", H.CANCELLED), M.APPROVED),  # a cancelled hop
        (M.PROPOSED, hop_in(H.PLAN_PROPOSED), M.PROPOSED),  # the mission's own acts decide these
        (M.CANCELLED, hop_in(H.EXECUTING), M.CANCELLED),
        (M.COMPLETED, hop_in(H.EXECUTING), M.COMPLETED),
    ],
)
def test_the_mission_follows_its_hop(mission: MissionStatus, hop: HopView, expected: MissionStatus) -> None:
    assert derive_mission_status(mission, [hop]) is expected


@pytest.mark.parametrize(
    ("hop", "steps", "failed_from", "expected"),
    [
        (H.EXECUTING, (T.EXECUTING, T.COMPLETED), None, H.EXECUTING),
        (H.EXECUTING, (T.COMPLETED, T.COMPLETED, T.CANCELLED), None, H.COMPLETED),
        (H.EXECUTING, (T.EXECUTING, T.FAILED), None, H.FAILED),
        (H.FAILED, (T.EXECUTING, T.COMPLETED), H.EXECUTING, H.EXECUTING),  # its failed step retried
        (H.FAILED, (T.EXECUTING, T.FAILED), H.EXECUTING, H.FAILED),
        (H.FAILED, (), H.READY_FOR_IMPLEMENTATION, H.FAILED),  # only retryHop brings it back
        (H.IMPLEMENTATION_PROPOSED, (T.READY_TO_CONFIGURE, T.FAILED), None, H.IMPLEMENTATION_PROPOSED),
        (H.READY_FOR_EXECUTION, (T.READY_TO_EXECUTE,), None, H.READY_FOR_EXECUTION),
    ],
)
def test_a_hop_in_execution_follows_its_live_tool_steps(
    hop: HopStatus, steps: tuple[ToolStepStatus, ...], failed_from: HopStatus | None, expected: HopStatus
) -> None:
    assert derive_hop_status(HopView("h", hop, False, steps, failed_from)) is expected


def test_a_hop_with_steps_its_table_allows_keeps_its_state_unless_in_execution() -> None:
    for hop, allowed in HOP_STEP_TABLE.items():
        for steps in itertools.chain.from_iterable(
            itertools.combinations(sorted(allowed), n) for n in range(1, len(allowed) + 1)
        ):
            derived = derive_hop_status(HopView("h", hop, False, steps, H.EXECUTING))
            if hop in (H.EXECUTING, H.FAILED):
                assert derived in (H.EXECUTING, H.COMPLETED, H.FAILED)
            else:
                assert derived is hop, (hop, steps)
