"""GraphQL types of decision points: deadlines, default outcomes, assignees, escalation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.types import Info

from ...db.decision_models import Decision, DecisionPolicy
from ...machines.decision import DecisionKind, DecisionStatus, Outcome, Terms
from ...services.decisions.policies import Scope
from ..descriptions import described_enum
from ..node import Node
from ..rows import from_row

DecisionKindEnum = described_enum(
    DecisionKind,
    "DecisionKind",
    "What a decision point is about.",
    {
        DecisionKind.PLAN_REVIEW: "A plan step AWAITING_INPUT (requestUserReview; submitUserDecision "
        "answers it).",
        DecisionKind.WORKFLOW_GATE: "A workflow approval gate (approveWorkflowStep / rejectWorkflowStep).",
        DecisionKind.MISSION_APPROVAL: "A PROPOSED mission (approveMission / rejectMission).",
        DecisionKind.HOP_PLAN: "A hop's PLAN_PROPOSED (approveHopPlan / rejectHopPlan).",
        DecisionKind.HOP_IMPLEMENTATION: "A hop's IMPLEMENTATION_PROPOSED (approveHopImplementation / "
        "rejectHopImplementation).",
        DecisionKind.ASSET_ACCEPTANCE: "A PROPOSED asset (acceptAsset / rejectAsset).",
    },
)
OutcomeEnum = described_enum(
    Outcome,
    "DecisionOutcome",
    "What the decision timer answers when a deadline passes unanswered; each kind allows its own.",
    {
        Outcome.APPROVE: "Approve (every kind).",
        Outcome.REJECT: "Reject, with the deadline as the reason (every kind).",
        Outcome.SKIP: "Skip the step (planReview only).",
    },
)
DecisionStatusEnum = described_enum(
    DecisionStatus,
    "DecisionStatus",
    "Where a decision is in its life.",
    {
        DecisionStatus.OPEN: "Waiting for an answer.",
        DecisionStatus.ESCALATED: "Waiting, past its escalation time: re-assigned to the escalation role.",
        DecisionStatus.DECIDED: "Final: answered by a person (see `outcome`).",
        DecisionStatus.DEFAULTED: "Final: the deadline passed and the timer applied the default outcome.",
        DecisionStatus.WITHDRAWN: "Final: what it was about ended some other way (cancelled, expired, "
        "the workflow gate's own timeout).",
    },
)
ScopeEnum = described_enum(
    Scope,
    "DecisionScope",
    "Where decision defaults apply: a decision takes its request's own terms, then its plan's, "
    "mission's or workflow definition's, then its tenant's.",
    {
        Scope.TENANT: "Every decision of the tenant (admin keys). scopeId is ignored.",
        Scope.PLAN: "The reviews of one research plan (scopeId: the plan's id).",
        Scope.MISSION: "The approvals and acceptances of one mission (scopeId: the mission's id).",
        Scope.WORKFLOW_DEFINITION: "The approval gates of workflows of one definition (scopeId: the "
        "workflow's name).",
    },
)


@strawberry.input(
    description="A deadline with its default outcome (both or neither), an assignee, and an escalation "
    "(time and role, both or neither, before the deadline). Times are seconds after the decision opens."
)
class DecisionTermsInput:
    deadline_seconds: float | None = strawberry.field(
        default=None, description="Seconds after the request when the default outcome applies."
    )
    default_outcome: Outcome | None = strawberry.field(
        default=None, description="Applied at the deadline, as the system, through the domain's own path."
    )
    assignee: str | None = strawberry.field(
        default=None, description="Who should answer: user:<key name> or role:<agent|reviewer|viewer|admin>."
    )
    escalate_after_seconds: float | None = strawberry.field(
        default=None, description="Seconds after the request when it is re-assigned to escalationRole."
    )
    escalation_role: str | None = strawberry.field(
        default=None, description="The role it is re-assigned to: agent, reviewer, viewer or admin."
    )

    def terms(self) -> Terms:
        return Terms(
            self.deadline_seconds,
            self.default_outcome,
            self.assignee,
            self.escalate_after_seconds,
            self.escalation_role,
        )


@strawberry.type(
    name="Decision", description="A decision point: what waits for a person, who, and until when."
)
class DecisionType(Node):
    kind: DecisionKind = strawberry.field(description="What it is about.")
    status: DecisionStatus = strawberry.field(description="Open, escalated, or how it ended.")
    subject_type: str = strawberry.field(
        description="The entity type it is about (step, workflow_step, ...)."
    )
    subject_id: strawberry.ID = strawberry.field(description="The step, gate, mission, hop or asset's id.")
    root_type: str = strawberry.field(description="Its root: plan, workflow or mission.")
    root_id: strawberry.ID = strawberry.field(description="The root's id.")
    assignee: str | None = strawberry.field(description="user:<name> or role:<role>; null: anyone who may.")
    default_outcome: Outcome | None = strawberry.field(description="Applied at the deadline, if any.")
    deadline_at: datetime | None = strawberry.field(description="When the default outcome applies.")
    escalate_at: datetime | None = strawberry.field(description="When it escalates (if not yet).")
    escalation_role: str | None = strawberry.field(description="The role it escalates to.")
    escalated_at: datetime | None = strawberry.field(description="When it escalated; null if it has not.")
    outcome: str | None = strawberry.field(
        description="How it ended: the default applied, or the answer (approve, reject, skip, modify)."
    )
    status_reason: str | None = strawberry.field(description="Why it is in its status, when there is a why.")
    created_at: datetime = strawberry.field(description="When it opened (the request).")
    closed_at: datetime | None = strawberry.field(description="When it ended.")

    @staticmethod
    def from_row(row: Decision) -> DecisionType:
        return from_row(DecisionType, row)


@strawberry.type(name="DecisionPolicy", description="The defaults new decisions of a scope start with.")
class DecisionPolicyType:
    scope: Scope = strawberry.field(description="Where it applies.")
    scope_id: str = strawberry.field(description="The tenant, plan or mission id, or workflow name.")
    kind: DecisionKind | None = strawberry.field(description="The kind it is for; null: every kind.")
    deadline_seconds: float | None = strawberry.field(description="Seconds to the deadline.")
    default_outcome: Outcome | None = strawberry.field(description="The default outcome.")
    assignee: str | None = strawberry.field(description="The assignee.")
    escalate_after_seconds: float | None = strawberry.field(description="Seconds to the escalation.")
    escalation_role: str | None = strawberry.field(description="The escalation role.")
    updated_at: datetime = strawberry.field(description="When it was last set.")

    @staticmethod
    def from_row(row: DecisionPolicy) -> DecisionPolicyType:
        return from_row(
            DecisionPolicyType,
            row,
            scope=Scope(row.scope_type),
            kind=DecisionKind(row.kind) if row.kind != "*" else None,
        )


OPEN_DECISION = (
    "The decision that waits on it now (its deadline, default, assignee and escalation); null when none "
    "does (a governance escalation has none)."
)


async def open_decision(info: Info[Any, Any], subject_id: str) -> DecisionType | None:
    """The open decision about ``subject_id``: one query for every item of a page (a data loader)."""
    row = await info.context.loaders.open_decisions.load((info.context.principal.tenant_id, subject_id))
    return DecisionType.from_row(row) if row is not None else None
