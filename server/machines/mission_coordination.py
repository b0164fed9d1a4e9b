"""Seed 004's coordination tables (mission <-> hop, hop <-> tool step) as pure checks.

A mission has hops over time; the seed's table speaks of the hop *in progress*: the one hop that is
neither COMPLETED nor CANCELLED (completed hops are the mission's past, cancelled ones were rejected
or given up). A COMPLETED mission is judged by its final hop instead. Likewise a hop's tool steps are
its *live* steps, those not CANCELLED: a rejected implementation's cancelled steps are history.

Where the seed's tables are silent, the rows below are our decisions (docs/decisions/0002-missions.md):
the seed's own transitions can reach these combinations, so the tables must admit them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .mission import HopStatus, MissionStatus, ToolStepStatus

M, H, T = MissionStatus, HopStatus, ToolStepStatus

# Mission state -> states its hop in progress may be in; empty: no hop may be in progress.
# Seed 004's rows, plus ours (marked) for the states its table does not list.
MISSION_HOP_TABLE: Mapping[MissionStatus, frozenset[HopStatus]] = {
    M.PROPOSED: frozenset(),  # ours
    M.APPROVED: frozenset(),
    M.BUILDING_HOP: frozenset(
        {
            H.PLAN_PROPOSED,
            H.READY_FOR_IMPLEMENTATION,
            H.IMPLEMENTATION_PROPOSED,
            H.FAILED,  # ours: the seed's READY_FOR_IMPLEMENTATION -> FAILED has no mission edge with it
        }
    ),
    M.HOP_READY: frozenset({H.READY_FOR_EXECUTION}),
    M.EXECUTING_HOP: frozenset({H.EXECUTING}),
    M.COMPLETED: frozenset({H.COMPLETED}),  # the final hop, done
    M.FAILED: frozenset({H.FAILED}),  # ours
    M.CANCELLED: frozenset(),  # ours
}

# Hop state -> states its live tool steps may be in; empty: no live steps. Seed 004's rows plus ours.
HOP_STEP_TABLE: Mapping[HopStatus, frozenset[ToolStepStatus]] = {
    H.PLAN_PROPOSED: frozenset(),
    H.READY_FOR_IMPLEMENTATION: frozenset(),
    H.IMPLEMENTATION_PROPOSED: frozenset(
        {
            T.PROPOSED,
            T.READY_TO_CONFIGURE,
            T.READY_TO_EXECUTE,
            T.FAILED,  # ours: the seed's READY_TO_CONFIGURE -> FAILED happens here; it waits for a retry
        }
    ),
    H.READY_FOR_EXECUTION: frozenset({T.READY_TO_EXECUTE}),
    H.EXECUTING: frozenset({T.EXECUTING, T.COMPLETED}),
    H.COMPLETED: frozenset({T.COMPLETED}),
    # ours: a hop failed in execution keeps its running and finished steps beside the failed one(s) ...
    H.FAILED: frozenset({T.EXECUTING, T.COMPLETED, T.FAILED}),
    # ... and a cancelled hop only the steps that had already completed
    H.CANCELLED: frozenset({T.COMPLETED}),
}

# Hops that must have at least one live tool step.
HOPS_WITH_STEPS = frozenset({H.IMPLEMENTATION_PROPOSED, H.READY_FOR_EXECUTION, H.EXECUTING, H.COMPLETED})
# Missions whose table row needs a hop (in progress, or the final one when COMPLETED).
MISSIONS_WITH_A_HOP = frozenset({M.BUILDING_HOP, M.HOP_READY, M.EXECUTING_HOP, M.COMPLETED, M.FAILED})
INACTIVE_HOP = frozenset({H.COMPLETED, H.CANCELLED})


@dataclass(frozen=True)
class HopView:
    id: str
    status: HopStatus
    is_final: bool = False
    steps: Sequence[ToolStepStatus] = field(default_factory=tuple)
    failed_from: HopStatus | None = None  # the state a FAILED hop failed from


# The mission state its hop in progress implies: the mission <-> hop table read the other way. A hop
# FAILED in execution fails the mission; one whose implementation failed leaves it BUILDING_HOP.
MISSION_OF_HOP: Mapping[HopStatus, MissionStatus] = {
    H.PLAN_PROPOSED: M.BUILDING_HOP,
    H.READY_FOR_IMPLEMENTATION: M.BUILDING_HOP,
    H.IMPLEMENTATION_PROPOSED: M.BUILDING_HOP,
    H.READY_FOR_EXECUTION: M.HOP_READY,
    H.EXECUTING: M.EXECUTING_HOP,
    H.FAILED: M.FAILED,
}
# Missions whose state their own acts decide, whatever their hops: not yet approved, or finished.
MISSIONS_NOT_DERIVED = frozenset({M.PROPOSED, M.COMPLETED, M.CANCELLED})


def derive_hop_status(hop: HopView) -> HopStatus:
    """The hop state its live tool steps imply, for a hop in execution (any other keeps its own).

    A hop EXECUTING completes when every live step has, and fails when one fails; a hop that failed
    in execution runs again once none of its live steps is FAILED (its failed ones were retried).
    """
    live = live_steps(hop.steps)
    if hop.status is H.EXECUTING and live:
        if T.FAILED in live:
            return H.FAILED
        if all(s is T.COMPLETED for s in live):
            return H.COMPLETED
    if hop.status is H.FAILED and hop.failed_from is H.EXECUTING and live and T.FAILED not in live:
        return H.EXECUTING
    return hop.status


def derive_mission_status(mission: MissionStatus, hops: Sequence[HopView]) -> MissionStatus:
    """The mission state its hops imply (seed 004's mission <-> hop table, read from the hop side).

    A completed final hop completes the mission; otherwise the hop in progress decides
    (``MISSION_OF_HOP``); with none in progress an approved mission waits for its next hop (APPROVED).
    PROPOSED and the final states are left to the mission's own acts.
    """
    if mission in MISSIONS_NOT_DERIVED:
        return mission
    if any(h.is_final and h.status is H.COMPLETED for h in hops):
        return M.COMPLETED
    active = [h for h in hops if h.status not in INACTIVE_HOP]
    if not active:
        return M.APPROVED
    hop = active[-1]
    if hop.status is H.FAILED and hop.failed_from is not H.EXECUTING:
        return M.BUILDING_HOP
    return MISSION_OF_HOP[hop.status]


def admits(hop: HopStatus, step: ToolStepStatus) -> bool:
    """Whether a hop in state ``hop`` may have a live tool step in state ``step`` (the hop <-> tool step
    table): a hop enters READY_FOR_EXECUTION only when every live step is one it admits."""
    return step in HOP_STEP_TABLE[hop]


def live_steps(steps: Sequence[ToolStepStatus]) -> list[ToolStepStatus]:
    return [s for s in steps if s is not T.CANCELLED]


def hop_step_problems(hop: HopView) -> list[str]:
    """Every way the hop's live tool steps break the hop <-> tool step table; empty when none."""
    live = live_steps(hop.steps)
    allowed = HOP_STEP_TABLE[hop.status]
    problems = []
    if hop.status in HOPS_WITH_STEPS and not live:
        problems.append(f"hop {hop.id} is {hop.status} without tool steps")
    wrong = sorted({s for s in live if s not in allowed})
    if wrong:
        expected = ", ".join(sorted(allowed)) or "no tool steps"
        problems.append(
            f"hop {hop.id} is {hop.status} with tool steps {', '.join(wrong)} (allowed: {expected})"
        )
    if hop.status is H.FAILED and live and T.FAILED not in live:
        problems.append(f"hop {hop.id} is FAILED in execution without a failed tool step")
    return problems


def mission_hop_problems(mission_id: str, mission: MissionStatus, hops: Sequence[HopView]) -> list[str]:
    """Every way the mission's hops break the mission <-> hop table; empty when none."""
    problems = []
    active = [h for h in hops if h.status not in INACTIVE_HOP]
    finished_final = [h for h in hops if h.is_final and h.status is H.COMPLETED]
    if len(active) > 1:
        problems.append(f"mission {mission_id} has {len(active)} hops in progress (at most one)")
    if finished_final and mission is not M.COMPLETED:
        problems.append(f"mission {mission_id} is {mission} although its final hop completed")
    relevant = finished_final if mission is M.COMPLETED else active
    if mission is M.COMPLETED and active:
        problems.append(f"mission {mission_id} is COMPLETED with a hop in progress")
    allowed = MISSION_HOP_TABLE[mission]
    if mission in MISSIONS_WITH_A_HOP and not relevant:
        what = "a completed final hop" if mission is M.COMPLETED else "a hop in progress"
        problems.append(f"mission {mission_id} is {mission} without {what}")
    for hop in relevant:
        if hop.status not in allowed:
            expected = ", ".join(sorted(allowed)) or "no hop in progress"
            problems.append(
                f"mission {mission_id} is {mission} with hop {hop.id} {hop.status} (allowed: {expected})"
            )
    return problems


def coordination_problems(mission_id: str, mission: MissionStatus, hops: Sequence[HopView]) -> list[str]:
    """Both tables, for one mission and all of its hops and their tool steps."""
    problems = mission_hop_problems(mission_id, mission, hops)
    for hop in hops:
        problems += hop_step_problems(hop)
    return problems
