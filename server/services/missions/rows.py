"""Loading and locking a mission's rows, moving them through their machines, and the coordination check.

The mission is the aggregate root: every mission-domain mutation locks its row first (FOR UPDATE on
PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the database), and re-reads the hop, tool step or
asset it acts on after the lock. Every act that touches hops, tool steps or the mission ends with the one
``settle_mission`` step: the touched hop follows its tool steps and the mission its hops (pure
derivations in machines/mission_coordination.py, as plans follow their steps), then seed 004's
coordination tables are checked on the result; a violation refuses the whole mutation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import select

from ...db.mission_models import Asset, Hop, Mission, ToolStep
from ...errors import ErrorCode, Problem, ServiceError
from ...machines.machine import Machine
from ...machines.mission import (
    HOP_MACHINE,
    MISSION_MACHINE,
    HopStatus,
    MissionStatus,
    ToolStepStatus,
)
from ...machines.mission_coordination import (
    HopView,
    coordination_problems,
    derive_hop_status,
    derive_mission_status,
)
from ..aggregates import ASSET, HOP, MISSION, TOOL_STEP, lock_child, lock_root
from ..runtime import Tx
from ..transitions import apply, enter
from ..validation import check_text

ROOT = "mission"
Child = TypeVar("Child", Hop, ToolStep, Asset)
S = TypeVar("S", bound=StrEnum)


@dataclass
class MissionResult:
    """What a mission-domain mutation changed; the API maps it onto its payloads."""

    mission: Mission
    hop: Hop | None = None
    tool_step: ToolStep | None = None
    asset: Asset | None = None
    tool_steps: list[ToolStep] = field(default_factory=list)


async def lock_mission(tx: Tx, mission_id: str, field: str = "missionId") -> Mission:
    """The mission row, locked for this transaction (``aggregates.lock_root``)."""
    return await lock_root(tx, MISSION, mission_id, field)


async def lock_mission_of(tx: Tx, model: type[Child], row_id: str, field: str) -> tuple[Mission, Child]:
    """The mission of a hop, tool step or asset (locked), then that row as it is under the lock."""
    child: Any = {Hop: HOP, ToolStep: TOOL_STEP, Asset: ASSET}[model]
    found: tuple[Mission, Child] = await lock_child(tx, child, row_id, field)
    return found


async def hops_of(tx: Tx, mission_id: str) -> list[Hop]:
    rows = await tx.session.scalars(select(Hop).where(Hop.mission_id == mission_id).order_by(Hop.sequence))
    return list(rows.all())


async def steps_of_hop(tx: Tx, hop_id: str) -> list[ToolStep]:
    rows = await tx.session.scalars(
        select(ToolStep).where(ToolStep.hop_id == hop_id).order_by(ToolStep.position)
    )
    return list(rows.all())


def live(steps: list[ToolStep]) -> list[ToolStep]:
    """The steps of the hop's current implementation (cancelled ones are history)."""
    return [s for s in steps if s.status != ToolStepStatus.CANCELLED]


def check_reason(tx: Tx, reason: str, field: str = "reason") -> None:
    check_text(reason, [field], tx.settings.max_text_bytes, required=True)


def move(
    tx: Tx, machine: Machine[S], row: Any, to: S, mission: Mission, reason: str | None = None, **data: Any
) -> None:
    """One transition of a mission-domain row to ``to``, stamped as its machine says (``enter``)."""
    enter(tx, machine, row, to, root_type=ROOT, root_id=mission.id, reason=reason, data=data)


def act(
    tx: Tx,
    machine: Machine[S],
    row: Any,
    name: str,
    mission: Mission,
    field: str,
    reason: str | None = None,
    **data: Any,
) -> None:
    """The machine's action ``name`` on a mission-domain row (``apply``): checked, walked, stamped."""
    apply(tx, machine, row, name, root_type=ROOT, root_id=mission.id, field=field, reason=reason, data=data)


def record(tx: Tx, kind: str, row: Any, mission: Mission, **data: Any) -> None:
    """A mission-domain event (kinds in events/mission_kinds.py) about ``row``."""
    entity = {Mission: "mission", Hop: "hop", ToolStep: "tool_step", Asset: "asset"}[type(row)]
    tx.events.record(
        kind, entity_type=entity, entity_id=row.id, root_type=ROOT, root_id=mission.id, data=data
    )


async def settle_mission(
    tx: Tx,
    mission: Mission,
    field: str,
    hop: Hop | None = None,
    reason: str | None = None,
    hop_data: dict[str, Any] | None = None,
    **data: Any,
) -> None:
    """The one settle step of every mission-domain act: parents follow their children.

    An act moves what it acts on (and cascades down, as cancelling does); then ``hop``, the hop it
    touched, follows its live tool steps (``derive_hop_status``) and the mission follows its hops
    (``derive_mission_status``), through the table (never widened). ``reason`` and ``data`` say why, on
    every transition this records; ``hop_data`` only on the hop's. Last, seed 004's coordination tables
    are checked on the result: a violation refuses the whole act (nothing is written).
    """
    hops = await hops_of(tx, mission.id)
    steps = await tx.session.scalars(select(ToolStep).where(ToolStep.mission_id == mission.id))
    by_hop: dict[str, list[ToolStepStatus]] = {h.id: [] for h in hops}
    for step in steps:
        by_hop[step.hop_id].append(ToolStepStatus(step.status))

    def view(h: Hop) -> HopView:
        failed_from = HopStatus(h.failed_from) if h.failed_from else None
        return HopView(h.id, HopStatus(h.status), h.is_final, tuple(by_hop[h.id]), failed_from)

    if hop is not None:
        derived_hop = derive_hop_status(view(hop))
        if derived_hop != hop.status:
            move(tx, HOP_MACHINE, hop, derived_hop, mission, reason, **(hop_data or {}), **data)
    current = MissionStatus(mission.status)
    derived = derive_mission_status(current, [view(h) for h in hops])
    if derived is not current:
        if hop is not None:
            data["hopId"] = hop.id
            if hop.status == HopStatus.COMPLETED:
                data["finalHop"] = hop.is_final
        for state in MISSION_MACHINE.route(current, derived, via=MissionStatus.EXECUTING_HOP):
            move(tx, MISSION_MACHINE, mission, state, mission, reason, **data)
    problems = coordination_problems(mission.id, MissionStatus(mission.status), [view(h) for h in hops])
    if problems:
        raise ServiceError(
            [
                Problem(
                    ErrorCode.INVALID_TRANSITION,
                    f"seed 004's coordination rules refuse this: {p}",
                    [field],
                    entity="mission",
                    from_state=mission.status,
                )
                for p in problems
            ]
        )
