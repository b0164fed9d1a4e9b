"""A hop's implementation: proposing its tool steps, selecting and configuring their tools, and the
person's approval or rejection (seed 004, hop READY_FOR_IMPLEMENTATION -> READY_FOR_EXECUTION)."""

from __future__ import annotations

import uuid
from typing import Any

from ...db.mission_models import Hop, Mission, Tool, ToolStep
from ...errors import ErrorCode, Problem, ServiceError
from ...events.mission_kinds import MissionEvent
from ...machines.mission import HOP_MACHINE, TOOL_STEP_MACHINE, HopStatus
from ...machines.mission import ToolStepStatus as T
from ...machines.mission_coordination import HOP_STEP_TABLE, admits
from ..runtime import Tx
from ..transitions import require
from ..validation import Problems, check_json_size, check_text
from .inputs import NewToolStep
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
from .tools import check_parameters, tool_named

H = HopStatus


def _check_new_steps(tx: Tx, steps: list[NewToolStep], problems: Problems) -> None:
    limit = tx.settings.max_text_bytes
    if not steps:
        problems.add("an implementation needs at least one tool step", ["toolSteps"])
    elif len(steps) > tx.settings.max_steps:
        problems.add(f"an implementation may have at most {tx.settings.max_steps} tool steps", ["toolSteps"])
    for i, step in enumerate(steps):
        path = ["toolSteps", str(i)]
        problems.check(check_text, step.name, [*path, "name"], limit, required=True, short=True)
        problems.check(check_text, step.description, [*path, "description"], limit)
        problems.check(check_json_size, step.parameters, [*path, "parameters"], tx.settings.max_result_bytes)
        if step.parameters is not None and not step.tool_name:
            problems.add("parameters are configured for a selected tool: name toolName", [*path, "toolName"])


def _select(tx: Tx, mission: Mission, step: ToolStep, tool: Tool, field: str) -> None:
    act(tx, TOOL_STEP_MACHINE, step, "select_tool", mission, field, toolName=tool.name)
    step.tool_id = tool.id
    step.tool_name = tool.name
    record(tx, MissionEvent.TOOL_SELECTED, step, mission, toolId=tool.id, toolName=tool.name)


def _configure(tx: Tx, mission: Mission, step: ToolStep, parameters: dict[str, Any], field: str) -> None:
    act(tx, TOOL_STEP_MACHINE, step, "configure", mission, field)
    step.parameters = parameters
    record(tx, MissionEvent.TOOL_STEP_CONFIGURED, step, mission, parameters=parameters)


async def propose_hop_implementation(tx: Tx, hop_id: str, new_steps: list[NewToolStep]) -> MissionResult:
    problems = Problems()
    _check_new_steps(tx, new_steps, problems)
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    # Every input problem at once: the steps' own and those of the tools they name.
    tools: dict[int, Tool] = {}
    for i, new in enumerate(new_steps):
        if not new.tool_name:
            continue
        path = ["toolSteps", str(i)]
        try:
            tools[i] = await tool_named(tx, new.tool_name, [*path, "toolName"])
        except ServiceError as exc:
            problems.items.extend(exc.problems)
            continue
        if new.parameters is not None:
            await check_parameters(tx, tools[i], new.parameters, [*path, "parameters"], problems)
    problems.raise_if_any()
    earlier = await steps_of_hop(tx, hop.id)  # a rejected implementation's steps stay, cancelled
    first = max((s.position for s in earlier), default=0) + 1
    act(tx, HOP_MACHINE, hop, "propose_implementation", mission, "hopId")
    steps = [
        ToolStep(
            id=str(uuid.uuid4()),
            tenant_id=tx.tenant_id,
            mission_id=mission.id,
            hop_id=hop.id,
            position=first + i,
            name=new.name,
            description=new.description,
            status=T.PROPOSED.value,
            created_at=tx.now,
            updated_at=tx.now,
        )
        for i, new in enumerate(new_steps)
    ]
    tx.session.add_all(steps)
    record(tx, MissionEvent.HOP_IMPLEMENTATION_PROPOSED, hop, mission, toolStepIds=[s.id for s in steps])
    for i, (step, new) in enumerate(zip(steps, new_steps, strict=True)):
        if i in tools:
            _select(tx, mission, step, tools[i], "hopId")
            if new.parameters is not None:
                _configure(tx, mission, step, new.parameters, "hopId")
    await settle_mission(tx, mission, "hopId", hop)
    return MissionResult(mission, hop=hop, tool_steps=steps)


async def select_tool(tx: Tx, tool_step_id: str, tool_name: str) -> MissionResult:
    mission, step = await lock_mission_of(tx, ToolStep, tool_step_id, "toolStepId")
    require(TOOL_STEP_MACHINE, step, "select_tool", "toolStepId")
    tool = await tool_named(tx, tool_name, ["toolName"])
    _select(tx, mission, step, tool, "toolStepId")
    await settle_mission(tx, mission, "toolStepId")
    return MissionResult(mission, tool_step=step)


async def configure_tool_step(tx: Tx, tool_step_id: str, parameters: Any) -> MissionResult:
    """READY_TO_EXECUTE only with parameters that satisfy the tool's schema; otherwise nothing changes."""
    check_json_size(parameters, ["parameters"], tx.settings.max_result_bytes)
    mission, step = await lock_mission_of(tx, ToolStep, tool_step_id, "toolStepId")
    require(TOOL_STEP_MACHINE, step, "configure", "toolStepId")
    tool = await tx.session.get(Tool, step.tool_id)
    assert tool is not None  # READY_TO_CONFIGURE is entered only by selecting a tool
    problems = Problems()
    await check_parameters(tx, tool, parameters, ["parameters"], problems)
    problems.raise_if_any()
    _configure(tx, mission, step, parameters, "toolStepId")
    await settle_mission(tx, mission, "toolStepId")
    return MissionResult(mission, tool_step=step)


async def approve_hop_implementation(tx: Tx, hop_id: str) -> MissionResult:
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    require(HOP_MACHINE, hop, "approve_implementation", "hopId")
    steps = live(await steps_of_hop(tx, hop.id))
    unready = [s for s in steps if not admits(HopStatus.READY_FOR_EXECUTION, T(s.status))]
    if unready:
        ready = " or ".join(sorted(HOP_STEP_TABLE[HopStatus.READY_FOR_EXECUTION]))
        raise ServiceError(
            [
                Problem(
                    ErrorCode.INVALID_TRANSITION,
                    f"tool step {s.id} ({s.name}) is {s.status}; every tool step must be {ready} "
                    "before the implementation is approved",
                    ["hopId"],
                    entity="tool_step",
                    from_state=s.status,
                    to_state=ready,
                )
                for s in unready
            ]
        )
    act(tx, HOP_MACHINE, hop, "approve_implementation", mission, "hopId")
    await settle_mission(tx, mission, "hopId", hop)
    return MissionResult(mission, hop=hop, tool_steps=steps)


async def reject_hop_implementation(tx: Tx, hop_id: str, reason: str) -> MissionResult:
    """Back to READY_FOR_IMPLEMENTATION, its tool steps cancelled (DESIGN.md)."""
    check_reason(tx, reason)
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    require(HOP_MACHINE, hop, "reject_implementation", "hopId")
    why = "implementation_rejected"
    steps = live(await steps_of_hop(tx, hop.id))
    for step in steps:
        act(tx, TOOL_STEP_MACHINE, step, "cancel", mission, "hopId", reason, cause=why)
    act(tx, HOP_MACHINE, hop, "reject_implementation", mission, "hopId", reason, action=why)
    record(tx, MissionEvent.HOP_IMPLEMENTATION_REJECTED, hop, mission, reason=reason)
    await settle_mission(tx, mission, "hopId", hop)
    return MissionResult(mission, hop=hop, tool_steps=steps)


async def fail_hop_implementation(tx: Tx, hop_id: str, reason: str) -> MissionResult:
    """The seed's READY_FOR_IMPLEMENTATION -> FAILED: the agent cannot implement the hop."""
    check_reason(tx, reason)
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    act(tx, HOP_MACHINE, hop, "fail_implementation", mission, "hopId", reason)
    record(tx, MissionEvent.HOP_FAILED, hop, mission, reason=reason)
    await settle_mission(tx, mission, "hopId", hop)
    return MissionResult(mission, hop=hop)
