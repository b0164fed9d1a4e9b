"""Proposing, approving, rejecting and cancelling missions, and proposing and deciding hop plans."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select

from ...db.mission_models import Hop, Mission, ToolStep
from ...events.mission_kinds import MissionEvent
from ...machines.mission import (
    HOP_MACHINE,
    MISSION_MACHINE,
    TOOL_STEP_MACHINE,
    HopStatus,
    MissionStatus,
)
from ..runtime import Tx
from ..transitions import allowed, require
from ..validation import Problems, check_text
from .inputs import NewHop, NewMission
from .rows import (
    MissionResult,
    act,
    check_reason,
    hops_of,
    lock_mission,
    lock_mission_of,
    record,
    settle_mission,
    steps_of_hop,
)

M, H = MissionStatus, HopStatus


async def propose_mission(tx: Tx, new: NewMission) -> MissionResult:
    limit = tx.settings.max_text_bytes
    problems = Problems()
    problems.check(check_text, new.title, ["title"], limit, required=True, short=True)
    problems.check(check_text, new.goal, ["goal"], limit, required=True)
    problems.raise_if_any()
    mission = Mission(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        title=new.title,
        goal=new.goal,
        status=M.PROPOSED.value,
        created_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(mission)
    tx.events.record(
        MissionEvent.MISSION_PROPOSED,
        entity_type="mission",
        entity_id=mission.id,
        root_type="mission",
        root_id=mission.id,
        to_state=mission.status,
        data={"title": new.title},
    )
    return MissionResult(mission)


async def approve_mission(tx: Tx, mission_id: str) -> MissionResult:
    mission = await lock_mission(tx, mission_id)
    act(tx, MISSION_MACHINE, mission, "approve", mission, "missionId")
    await settle_mission(tx, mission, "missionId")
    return MissionResult(mission)


async def reject_mission(tx: Tx, mission_id: str, reason: str) -> MissionResult:
    """A rejected proposal is CANCELLED with the reason (DESIGN.md: no REJECTED state)."""
    check_reason(tx, reason)
    mission = await lock_mission(tx, mission_id)
    act(tx, MISSION_MACHINE, mission, "reject", mission, "missionId", reason, action="rejected")
    record(tx, MissionEvent.MISSION_REJECTED, mission, mission, reason=reason)
    await settle_mission(tx, mission, "missionId")
    return MissionResult(mission)


async def cancel_mission(tx: Tx, mission_id: str, reason: str) -> MissionResult:
    """CANCELLED, with its hop in progress and that hop's unfinished tool steps, in one transaction."""
    check_reason(tx, reason)
    mission = await lock_mission(tx, mission_id)
    require(MISSION_MACHINE, mission, "cancel", "missionId")
    cancelled_hops, cancelled_steps = [], []
    for hop in await hops_of(tx, mission.id):
        if not allowed(HOP_MACHINE, hop, "cancel"):
            continue  # completed or cancelled already: not in progress
        steps = await _cancel_with_steps(tx, mission, hop, reason, cause="mission")
        cancelled_steps += [s.id for s in steps]
        cancelled_hops.append(hop.id)
    act(tx, MISSION_MACHINE, mission, "cancel", mission, "missionId", reason)
    record(
        tx,
        MissionEvent.MISSION_CANCELLED,
        mission,
        mission,
        reason=reason,
        cancelledHopIds=cancelled_hops,
        cancelledToolStepIds=cancelled_steps,
    )
    await settle_mission(tx, mission, "missionId")
    return MissionResult(mission)


async def cancel_hop(tx: Tx, hop_id: str, reason: str) -> MissionResult:
    """The person gives up the hop in progress: CANCELLED with its unfinished tool steps, and the mission
    APPROVED again for another hop, as after a rejected hop plan (docs/decisions/0002-missions.md)."""
    check_reason(tx, reason)
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    require(HOP_MACHINE, hop, "cancel", "hopId")
    steps = await _cancel_with_steps(tx, mission, hop, reason, action="hop_cancelled")
    # The mission returns to APPROVED: BUILDING_HOP and EXECUTING_HOP have an edge there; HOP_READY and
    # FAILED have none, and the settle walks the table through EXECUTING_HOP rather than widen it.
    await settle_mission(tx, mission, "hopId", hop, reason, action="hop_cancelled")
    cancelled = [s.id for s in steps]
    record(tx, MissionEvent.HOP_CANCELLED, hop, mission, reason=reason, cancelledToolStepIds=cancelled)
    return MissionResult(mission, hop=hop, tool_steps=steps)


async def _cancel_with_steps(tx: Tx, mission: Mission, hop: Hop, reason: str, **data: str) -> list[ToolStep]:
    """The hop CANCELLED with its live tool steps that have not completed; completed ones are kept."""
    cancelled = [s for s in await steps_of_hop(tx, hop.id) if allowed(TOOL_STEP_MACHINE, s, "cancel")]
    for step in cancelled:
        act(tx, TOOL_STEP_MACHINE, step, "cancel", mission, "hopId", reason, **data)
    act(tx, HOP_MACHINE, hop, "cancel", mission, "hopId", reason, **data)
    return cancelled


async def propose_hop(tx: Tx, new: NewHop) -> MissionResult:
    limit = tx.settings.max_text_bytes
    problems = Problems()
    problems.check(check_text, new.name, ["name"], limit, required=True, short=True)
    problems.check(check_text, new.plan, ["plan"], limit, required=True)
    problems.raise_if_any()
    mission = await lock_mission(tx, new.mission_id)
    require(MISSION_MACHINE, mission, "build_hop", "missionId")
    count = await tx.session.scalar(select(func.count()).select_from(Hop).where(Hop.mission_id == mission.id))
    hop = Hop(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        mission_id=mission.id,
        sequence=int(count or 0) + 1,
        name=new.name,
        plan=new.plan,
        is_final=new.is_final,
        status=H.PLAN_PROPOSED.value,
        created_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(hop)
    await settle_mission(tx, mission, "missionId", hop)  # APPROVED -> BUILDING_HOP
    tx.events.record(
        MissionEvent.HOP_PROPOSED,
        entity_type="hop",
        entity_id=hop.id,
        root_type="mission",
        root_id=mission.id,
        to_state=hop.status,
        data={"name": hop.name, "sequence": hop.sequence, "isFinal": hop.is_final},
    )
    return MissionResult(mission, hop=hop)


async def approve_hop_plan(tx: Tx, hop_id: str) -> MissionResult:
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    act(tx, HOP_MACHINE, hop, "approve_plan", mission, "hopId")
    await settle_mission(tx, mission, "hopId", hop)
    return MissionResult(mission, hop=hop)


async def reject_hop_plan(tx: Tx, hop_id: str, reason: str) -> MissionResult:
    """The hop is CANCELLED and the mission returns to APPROVED, ready for another hop (DESIGN.md)."""
    check_reason(tx, reason)
    mission, hop = await lock_mission_of(tx, Hop, hop_id, "hopId")
    act(tx, HOP_MACHINE, hop, "reject_plan", mission, "hopId", reason, action="plan_rejected")
    await settle_mission(tx, mission, "hopId", hop, reason, action="plan_rejected")  # back to APPROVED
    record(tx, MissionEvent.HOP_PLAN_REJECTED, hop, mission, reason=reason)
    return MissionResult(mission, hop=hop)
