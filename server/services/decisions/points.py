"""Where each kind of decision point lives: the events that open and answer it, whether it still
waits, and how its default outcome is applied through the domain's own service.

A default goes through exactly the service a person's answer goes through (the same checks, the same
transition path, the same events), only as the timer's principal and with the deadline as the reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ...events.kinds import AuditEvent
from ...events.log import PendingEvent
from ...events.mission_kinds import MissionEvent
from ...events.workflow_kinds import WorkflowEvent
from ...machines.decision import DecisionKind, Outcome
from ...machines.mission import (
    ASSET_MACHINE,
    HOP_MACHINE,
    MISSION_MACHINE,
    AssetStatus,
    HopStatus,
    MissionStatus,
)
from ...machines.plan import PLAN_MACHINE, STEP_MACHINE, PlanStatus, StepStatus
from ...machines.workflow import WORKFLOW_MACHINE, WORKFLOW_STEP_MACHINE, WorkflowStatus
from ..aggregates import ASSET, HOP, MISSION, PLAN_STEP, WORKFLOW_STEP, lock_child, lock_root
from ..missions import assets, implementation, proposals
from ..plans.inputs import Decision as PlanDecision
from ..plans.review import submit_user_decision
from ..runtime import Tx
from ..transitions import allowed
from ..workflows.review import approve_workflow_step, reject_workflow_step

K = DecisionKind
Apply = Callable[[Tx, str, str], Awaitable[Any]]  # (tx, subject id, reason)


@dataclass(frozen=True)
class Answer:
    """An event that answers the decision: its kind, the subject's states when they matter."""

    kind: str
    to_state: str | None
    outcome: str
    from_state: str | None = None


@dataclass(frozen=True)
class Point:
    kind: DecisionKind
    subject: str  # the entity type of what it is about (in events)
    root: str
    opens: Callable[[PendingEvent], bool]
    # Events that end it without an answer (the subject left its waiting state some other way).
    leaves: Callable[[PendingEvent], bool]
    answers: tuple[Answer, ...]
    waiting: Callable[[Tx, str], Awaitable[bool]]
    defaults: dict[Outcome, Apply]
    # For a point whose answer is told by an event's data rather than its kind.
    reads: Callable[[PendingEvent], str | None] | None = None

    def answer(self, event: PendingEvent) -> str | None:
        if self.reads is not None:
            return self.reads(event)
        for a in self.answers:
            if event.kind != a.kind or a.to_state not in (None, event.to_state):
                continue
            if a.from_state is None or event.from_state == a.from_state:
                return a.outcome
        return None


def _enters(entity: str, state: str) -> Callable[[PendingEvent], bool]:
    """Opened by any event of ``entity`` that leaves it in ``state`` (its creation or a transition)."""
    return lambda e: e.entity_type == entity and e.to_state == state and e.from_state != state


def _exits(entity: str, state: str) -> Callable[[PendingEvent], bool]:
    return lambda e: e.entity_type == entity and e.from_state == state and e.to_state != state


def _plan_answer(event: PendingEvent) -> str | None:
    """submitUserDecision's audit event names the decision (a failed plan's steps fail without one)."""
    if event.kind == AuditEvent.USER_REVIEWED and event.data.get("action") == "decision_submitted":
        return str(event.data["decision"])
    return None


def _moved(entity: str, from_state: str, to_state: str, outcome: str) -> Answer:
    return Answer(f"{entity}_transitioned", to_state, outcome, from_state)


# --- whether the subject still waits (its machine lets the reviewer's act start), under its root's lock --


async def _step_waits(tx: Tx, step_id: str) -> bool:
    plan, step = await lock_child(tx, PLAN_STEP, step_id, "subjectId")
    return allowed(PLAN_MACHINE, plan, "work") and allowed(STEP_MACHINE, step, "approve")


async def _gate_waits(tx: Tx, step_id: str) -> bool:
    workflow, step = await lock_child(tx, WORKFLOW_STEP, step_id, "subjectId")
    running = allowed(WORKFLOW_MACHINE, workflow, "settle")
    return running and allowed(WORKFLOW_STEP_MACHINE, step, "approve")


async def _mission_waits(tx: Tx, mission_id: str) -> bool:
    mission = await lock_root(tx, MISSION, mission_id, "subjectId")
    return allowed(MISSION_MACHINE, mission, "approve")


def _hop_waits(action: str) -> Callable[[Tx, str], Awaitable[bool]]:
    async def waits(tx: Tx, hop_id: str) -> bool:
        _, hop = await lock_child(tx, HOP, hop_id, "subjectId")
        return allowed(HOP_MACHINE, hop, action)

    return waits


async def _asset_waits(tx: Tx, asset_id: str) -> bool:
    _, asset = await lock_child(tx, ASSET, asset_id, "subjectId")
    return allowed(ASSET_MACHINE, asset, "accept", now=tx.now)  # past its TTL, the expiry timer takes it


# --- the defaults, each the service a reviewer's answer calls ------------------------------------------


def _plan_decision(decision: PlanDecision) -> Apply:
    async def apply(tx: Tx, step_id: str, reason: str) -> Any:
        feedback = reason if decision is PlanDecision.REJECT else None
        return await submit_user_decision(tx, step_id, decision, feedback)

    return apply


async def _approve_gate(tx: Tx, step_id: str, reason: str) -> Any:
    return await approve_workflow_step(tx, step_id, reason)


async def _approve_mission(tx: Tx, mission_id: str, _reason: str) -> Any:
    return await proposals.approve_mission(tx, mission_id)


async def _approve_hop_plan(tx: Tx, hop_id: str, _reason: str) -> Any:
    return await proposals.approve_hop_plan(tx, hop_id)


async def _approve_implementation(tx: Tx, hop_id: str, _reason: str) -> Any:
    return await implementation.approve_hop_implementation(tx, hop_id)


async def _accept_asset(tx: Tx, asset_id: str, _reason: str) -> Any:
    return await assets.accept_asset(tx, asset_id)


POINTS: dict[DecisionKind, Point] = {
    p.kind: p
    for p in (
        Point(
            K.PLAN_REVIEW,
            "step",
            "plan",
            opens=_enters("step", StepStatus.AWAITING_INPUT),
            leaves=_exits("step", StepStatus.AWAITING_INPUT),
            answers=(),
            reads=_plan_answer,
            waiting=_step_waits,
            defaults={
                Outcome.APPROVE: _plan_decision(PlanDecision.APPROVE),
                Outcome.REJECT: _plan_decision(PlanDecision.REJECT),
                Outcome.SKIP: _plan_decision(PlanDecision.SKIP),
            },
        ),
        Point(
            K.WORKFLOW_GATE,
            "workflow_step",
            "workflow",
            opens=lambda e: e.kind == WorkflowEvent.APPROVAL_REQUESTED,
            # The seed's gate timeout (the step's own) ends it; the workflow's end ends it too (ROOT_ENDS).
            leaves=lambda e: e.kind == WorkflowEvent.STEP_TIMED_OUT,
            answers=(
                Answer(WorkflowEvent.STEP_APPROVED, None, "approve"),
                Answer(WorkflowEvent.STEP_REJECTED, None, "reject"),
            ),
            waiting=_gate_waits,
            defaults={Outcome.APPROVE: _approve_gate, Outcome.REJECT: reject_workflow_step},
        ),
        Point(
            K.MISSION_APPROVAL,
            "mission",
            "mission",
            opens=_enters("mission", MissionStatus.PROPOSED),
            leaves=_exits("mission", MissionStatus.PROPOSED),
            answers=(
                _moved("mission", MissionStatus.PROPOSED, MissionStatus.APPROVED, "approve"),
                Answer(MissionEvent.MISSION_REJECTED, None, "reject"),
            ),
            waiting=_mission_waits,
            defaults={Outcome.APPROVE: _approve_mission, Outcome.REJECT: proposals.reject_mission},
        ),
        Point(
            K.HOP_PLAN,
            "hop",
            "mission",
            opens=_enters("hop", HopStatus.PLAN_PROPOSED),
            leaves=_exits("hop", HopStatus.PLAN_PROPOSED),
            answers=(
                _moved("hop", HopStatus.PLAN_PROPOSED, HopStatus.READY_FOR_IMPLEMENTATION, "approve"),
                Answer(MissionEvent.HOP_PLAN_REJECTED, None, "reject"),
            ),
            waiting=_hop_waits("approve_plan"),
            defaults={Outcome.APPROVE: _approve_hop_plan, Outcome.REJECT: proposals.reject_hop_plan},
        ),
        Point(
            K.HOP_IMPLEMENTATION,
            "hop",
            "mission",
            opens=_enters("hop", HopStatus.IMPLEMENTATION_PROPOSED),
            leaves=_exits("hop", HopStatus.IMPLEMENTATION_PROPOSED),
            answers=(
                _moved("hop", HopStatus.IMPLEMENTATION_PROPOSED, HopStatus.READY_FOR_EXECUTION, "approve"),
                Answer(MissionEvent.HOP_IMPLEMENTATION_REJECTED, None, "reject"),
            ),
            waiting=_hop_waits("approve_implementation"),
            defaults={
                Outcome.APPROVE: _approve_implementation,
                Outcome.REJECT: implementation.reject_hop_implementation,
            },
        ),
        Point(
            K.ASSET_ACCEPTANCE,
            "asset",
            "mission",
            opens=_enters("asset", AssetStatus.PROPOSED),
            leaves=_exits("asset", AssetStatus.PROPOSED),
            answers=(
                _moved("asset", AssetStatus.PROPOSED, AssetStatus.PENDING, "approve"),
                Answer(MissionEvent.ASSET_REJECTED, None, "reject"),
            ),
            waiting=_asset_waits,
            defaults={Outcome.APPROVE: _accept_asset, Outcome.REJECT: assets.reject_asset},
        ),
    )
}

# The points about each entity type: the book skips every other event at once.
BY_SUBJECT: dict[str, tuple[Point, ...]] = {
    subject: tuple(p for p in POINTS.values() if p.subject == subject)
    for subject in {p.subject for p in POINTS.values()}
}

# A root entering one of these ends every decision still open under it.
ROOT_ENDS: dict[str, frozenset[str]] = {
    "plan": frozenset({PlanStatus.COMPLETED, PlanStatus.FAILED}),
    "workflow": frozenset({WorkflowStatus.COMPLETED, WorkflowStatus.FAILED, WorkflowStatus.COMPENSATING}),
    "mission": frozenset({MissionStatus.COMPLETED, MissionStatus.CANCELLED}),
}
