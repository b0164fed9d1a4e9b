"""Running a hop: start it, tool steps complete or fail, retries.

Each act moves what it acts on; hop and mission follow in the same transaction (DESIGN.md) through
``settle_mission``: the last tool step completing completes the hop and moves the mission to APPROVED
or, for the final hop, COMPLETED; a tool step failing in execution fails the hop and the mission;
retrying the last failed step of a failed hop (or the hop itself) returns hop and mission to executing.
"""

from __future__ import annotations

from typing import Any

from ...db.mission_models import Hop, ToolStep
from ...events.mission_kinds import MissionEvent
from ...machines.mission import (
    HOP_MACHINE,
    TOOL_STEP_MACHINE,
    HopStatus,
    MissionStatus,
)
from ..runtime import Tx
from ..transitions import allowed, require
from ..validation import check_json_size
from .rows import (
    MissionResult,
    act,
    check_reason,
    live,
    lock_mission_of,
    record,
    settle_mission,
    steps_of_hop,
)

H, M = HopStatus, MissionStatus


async def start_hop(tx: Tx, hop_id: str) -> MissionResult:
    """The person starts the hop: hop and every tool step EXECUTING, the mission EXECUTING_HOP."""
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    act(tx, HOP_MACHINE, hop, "start", mission, "hopId")
    steps = live(await steps_of_hop(tx, hop.id))
    for step in steps:
        act(tx, TOOL_STEP_MACHINE, step, "start", mission, "hopId")
    await settle_mission(tx, mission, "hopId", hop)
    return MissionResult(mission, hop=hop, tool_steps=steps)


async def complete_tool_step(tx: Tx, tool_step_id: str, result: Any = None) -> MissionResult:
    check_json_size(result, ["result"], tx.settings.max_result_bytes)
    mission, step = await lock_mission_of(tx, ToolStep, tool_step_id, "toolStepId")
    act(tx, TOOL_STEP_MACHINE, step, "complete", mission, "toolStepId")
    step.result = result
    record(tx, MissionEvent.TOOL_STEP_COMPLETED, step, mission, hasResult=result is not None)
    hop = await _hop_of(tx, step)
    await settle_mission(tx, mission, "toolStepId", hop)
    return MissionResult(mission, hop=hop, tool_step=step)


async def fail_tool_step(tx: Tx, tool_step_id: str, reason: str) -> MissionResult:
    """FAILED from EXECUTING (fails the hop and the mission) or from READY_TO_CONFIGURE (the hop's
    implementation waits for a retry of the step or a rejection)."""
    check_reason(tx, reason)
    mission, step = await lock_mission_of(tx, ToolStep, tool_step_id, "toolStepId")
    act(tx, TOOL_STEP_MACHINE, step, "fail", mission, "toolStepId", reason)
    record(tx, MissionEvent.TOOL_STEP_FAILED, step, mission, reason=reason)
    hop = await _hop_of(tx, step)
    cause = f"tool step {step.name} failed: {reason}"
    await settle_mission(tx, mission, "toolStepId", hop, cause, hop_data={"toolStepId": step.id})
    return MissionResult(mission, hop=hop, tool_step=step)


async def retry_tool_step(tx: Tx, tool_step_id: str) -> MissionResult:
    """Back to the state it failed from; the last failed step of a failed hop resumes hop and mission."""
    mission, step = await lock_mission_of(tx, ToolStep, tool_step_id, "toolStepId")
    act(tx, TOOL_STEP_MACHINE, step, "retry", mission, "toolStepId", action="retry")
    record(tx, MissionEvent.TOOL_STEP_RETRIED, step, mission, toState=step.status)
    hop = await _hop_of(tx, step)
    await settle_mission(tx, mission, "toolStepId", hop, action="retry")
    return MissionResult(mission, hop=hop, tool_step=step)


async def retry_hop(tx: Tx, hop_id: str) -> MissionResult:
    """A hop failed in execution runs again (its failed steps with it); one whose implementation
    failed is READY_FOR_IMPLEMENTATION again."""
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    require(HOP_MACHINE, hop, "retry", "hopId")
    retried = []
    for step in live(await steps_of_hop(tx, hop.id)):
        if allowed(TOOL_STEP_MACHINE, step, "retry_with_hop"):
            act(tx, TOOL_STEP_MACHINE, step, "retry_with_hop", mission, "hopId", action="retry", cause="hop")
            retried.append(step.id)
    act(tx, HOP_MACHINE, hop, "retry", mission, "hopId", action="retry")
    await settle_mission(tx, mission, "hopId", hop, action="retry")
    record(tx, MissionEvent.HOP_RETRIED, hop, mission, toState=hop.status, retriedToolStepIds=retried)
    return MissionResult(mission, hop=hop)


async def _hop_of(tx: Tx, step: ToolStep) -> Hop:
    hop = await tx.session.get(Hop, step.hop_id)
    assert hop is not None
    return hop
