"""Decision points with deadlines: what a decision is, its life, and what it may default to.

A decision is one person's answer the engine waits for: a plan step's review (seed 003's
``requestUserReview``), a workflow approval gate (seed 002), a mission's approval, a hop's plan or
implementation approval, an asset's acceptance (seed 004). Each domain allows its own outcomes; a
deadline's default must be one of them. The decision's own life is the small machine below: it opens,
may be escalated (re-assigned to the escalation role), and ends decided by a person, defaulted by the
deadline timer, or withdrawn (the thing it was about ended some other way: cancelled, timed out).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from .machine import Action, Machine


class DecisionKind(StrEnum):
    PLAN_REVIEW = "plan_review"
    WORKFLOW_GATE = "workflow_gate"
    MISSION_APPROVAL = "mission_approval"
    HOP_PLAN = "hop_plan"
    HOP_IMPLEMENTATION = "hop_implementation"
    ASSET_ACCEPTANCE = "asset_acceptance"


class Outcome(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"
    SKIP = "skip"


class DecisionStatus(StrEnum):
    OPEN = "open"
    ESCALATED = "escalated"
    DECIDED = "decided"
    DEFAULTED = "defaulted"
    WITHDRAWN = "withdrawn"


K, D = DecisionKind, DecisionStatus
APPROVE, REJECT, SKIP = Outcome.APPROVE, Outcome.REJECT, Outcome.SKIP

# What each domain lets a deadline decide: the answers its reviewers have. A plan step may also be
# skipped (seed 000's awaiting_input -> skipped). There is no "fail" default: a workflow gate that
# nobody answers already fails its workflow when the step's own timeout passes (seed 002 §1), which
# is what happens where no default is given, and no other decision point has a fail answer.
ALLOWED_OUTCOMES: dict[DecisionKind, frozenset[Outcome]] = {
    K.PLAN_REVIEW: frozenset({APPROVE, REJECT, SKIP}),
    K.WORKFLOW_GATE: frozenset({APPROVE, REJECT}),
    K.MISSION_APPROVAL: frozenset({APPROVE, REJECT}),
    K.HOP_PLAN: frozenset({APPROVE, REJECT}),
    K.HOP_IMPLEMENTATION: frozenset({APPROVE, REJECT}),
    K.ASSET_ACCEPTANCE: frozenset({APPROVE, REJECT}),
}

OPEN_STATUSES = frozenset({D.OPEN, D.ESCALATED})

DECISION_MACHINE = Machine(
    entity="decision",
    initial=D.OPEN,
    transitions={
        D.OPEN: frozenset({D.ESCALATED, D.DECIDED, D.DEFAULTED, D.WITHDRAWN}),
        D.ESCALATED: frozenset({D.DECIDED, D.DEFAULTED, D.WITHDRAWN}),
        D.DECIDED: frozenset(),
        D.DEFAULTED: frozenset(),
        D.WITHDRAWN: frozenset(),
    },
    final=frozenset({D.DECIDED, D.DEFAULTED, D.WITHDRAWN}),
    description="A decision point's deadline and escalation; escalation happens at most once.",
    stamps={
        D.ESCALATED: ("escalated_at",),
        D.DECIDED: ("closed_at",),
        D.DEFAULTED: ("closed_at",),
        D.WITHDRAWN: ("closed_at",),
    },
    reason_column="status_reason",
    actions=(
        Action("decide", OPEN_STATUSES, "only an open decision is answered", target=D.DECIDED),
        Action("default", OPEN_STATUSES, "only an open decision takes its default", target=D.DEFAULTED),
        Action("withdraw", OPEN_STATUSES, "only an open decision is withdrawn", target=D.WITHDRAWN),
        Action(
            "escalate", frozenset({D.OPEN}), "a decision is escalated once, while open", target=D.ESCALATED
        ),
        # The timer's look at a decision, and new terms: check-only.
        Action("act_on_time", OPEN_STATUSES, "only an open decision has a deadline", internal=True),
        Action("change_terms", OPEN_STATUSES, "only an open decision takes new terms", internal=True),
    ),
)


def allowed_for(kinds: frozenset[DecisionKind]) -> frozenset[Outcome]:
    """The outcomes every one of ``kinds`` allows (a tenant-wide default must suit each kind it covers)."""
    allowed = frozenset(Outcome)
    for kind in kinds:
        allowed &= ALLOWED_OUTCOMES[kind]
    return allowed


@dataclass(frozen=True)
class Terms:
    """A deadline, its default outcome, an assignee and an escalation, each optional (None: not set).

    Times are seconds after the decision opens. Assignees are ``user:<key name>`` or ``role:<role>``.
    """

    deadline_seconds: float | None = None
    default_outcome: Outcome | None = None
    assignee: str | None = None
    escalate_after_seconds: float | None = None
    escalation_role: str | None = None

    def over(self, fallback: Terms) -> Terms:
        """These terms, each unset one taken from ``fallback`` (a request over its plan over its tenant).

        A deadline and its default travel together: a request that sets a deadline without a default
        does not borrow the tenant's default (and likewise escalation time and role).
        """
        deadline = (
            (self.deadline_seconds, self.default_outcome)
            if self.deadline_seconds is not None or self.default_outcome is not None
            else (fallback.deadline_seconds, fallback.default_outcome)
        )
        escalation = (
            (self.escalate_after_seconds, self.escalation_role)
            if self.escalate_after_seconds is not None or self.escalation_role is not None
            else (fallback.escalate_after_seconds, fallback.escalation_role)
        )
        return Terms(
            deadline[0],
            deadline[1],
            self.assignee if self.assignee is not None else fallback.assignee,
            escalation[0],
            escalation[1],
        )


def term_problems(terms: Terms, kinds: frozenset[DecisionKind]) -> list[tuple[str, str]]:
    """(field, message) for each rule the terms break; none when they are usable for ``kinds``."""
    problems: list[tuple[str, str]] = []
    if terms.default_outcome is not None:
        allowed = allowed_for(kinds)
        if terms.default_outcome not in allowed:
            names = ", ".join(sorted(o.value for o in allowed)) or "none"
            why = f"{terms.default_outcome.value} is not allowed here ({names})"
            problems.append(("defaultOutcome", why))
    if (terms.deadline_seconds is None) != (terms.default_outcome is None):
        problems.append(("defaultOutcome", "a deadline needs a default outcome, and a default a deadline"))
    for name, value in (
        ("deadlineSeconds", terms.deadline_seconds),
        ("escalateAfterSeconds", terms.escalate_after_seconds),
    ):
        if value is not None and not value > 0:
            problems.append((name, "must be more than 0 seconds"))
    if (terms.escalate_after_seconds is None) != (terms.escalation_role is None):
        problems.append(("escalationRole", "an escalation needs both a time and a role"))
    if (
        terms.escalate_after_seconds is not None
        and terms.deadline_seconds is not None
        and terms.escalate_after_seconds >= terms.deadline_seconds
    ):
        problems.append(("escalateAfterSeconds", "the escalation must come before the deadline"))
    return problems


def due_at(opened_at: datetime, seconds: float | None) -> datetime | None:
    return opened_at + timedelta(seconds=seconds) if seconds is not None else None
