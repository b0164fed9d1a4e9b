"""Keeping the decisions table in step with the domains, from the transaction's own events.

``track_decisions`` runs last in every unit of work (before the events are written): it reads what
the transaction recorded, opens a decision for every decision point entered, and closes the open
decision of every one answered (decided), or left some other way or under a root that ended
(withdrawn). The domains' services stay as they are: a decision point is wherever its events say.
Most transactions record nothing any point looks at, and cost one pass over their events.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, or_, select

from ...db.decision_models import Decision, DecisionPolicy
from ...db.driver_rows import Rows, loaded_columns
from ...db.workflow_models import Workflow
from ...events.decision_kinds import ENTITY, DecisionEvent
from ...machines.decision import (
    DECISION_MACHINE,
    OPEN_STATUSES,
    DecisionKind,
    DecisionStatus,
    Outcome,
    Terms,
    due_at,
)
from ..runtime import Tx
from ..transitions import apply
from .points import BY_SUBJECT, POINTS, ROOT_ENDS, Point

ANY_KIND = "*"


Key = tuple[str, str]  # (subject id, decision kind): a hop has two decision points


@dataclass
class _Changes:
    opened: dict[Key, tuple[Point, str]] = field(default_factory=dict)  # -> (point, root id)
    answered: dict[Key, str] = field(default_factory=dict)  # -> outcome
    left: set[Key] = field(default_factory=set)
    ended_roots: set[str] = field(default_factory=set)

    def close(self, key: Key, outcome: str | None) -> None:
        if self.opened.pop(key, None) is not None:
            return  # opened and ended in this transaction: never written
        if outcome is not None:
            self.answered[key] = outcome
        elif key not in self.answered:
            self.left.add(key)


def _read(tx: Tx) -> _Changes:
    changes = _Changes()
    for event in list(tx.events.events):
        ends = ROOT_ENDS.get(event.entity_type)
        if ends is not None and event.to_state in ends and event.kind.endswith("_transitioned"):
            changes.ended_roots.add(event.entity_id)
            for key, (_, root_id) in list(changes.opened.items()):
                if root_id == event.entity_id:
                    del changes.opened[key]
        for point in BY_SUBJECT.get(event.entity_type, ()):
            key = (event.entity_id, point.kind.value)
            outcome = point.answer(event)
            if outcome is not None:
                changes.close(key, outcome)
            elif point.leaves(event):
                changes.close(key, None)
            if point.opens(event):
                changes.opened[key] = (point, event.root_id)
    return changes


async def track_decisions(tx: Tx) -> None:
    changes = _read(tx)
    if changes.answered or changes.left or changes.ended_roots:
        await _close(tx, changes)
    for (subject, _), (point, root_id) in changes.opened.items():
        await open_decision(tx, point, subject, root_id)


# The most common close: a root (a plan, a workflow, a mission) ended and nothing else was answered or
# left in the transaction. Built once and read on the driver (``driver_rows.Rows``); the general case
# is built per call, its IN lists as long as the transaction's subjects and roots.
_OPEN_UNDER_ROOT = Rows(
    select(*loaded_columns(Decision)).where(
        Decision.tenant_id == bindparam("tenant"),
        or_(*(Decision.status == s.value for s in OPEN_STATUSES)),
        Decision.root_id == bindparam("root"),
    ),
    Decision,
)


async def _open_decisions(tx: Tx, subjects: set[str], roots: set[str]) -> list[Decision]:
    if not subjects and len(roots) == 1:
        params = {"tenant": tx.tenant_id, "root": next(iter(roots))}
        return [row[0] for row in await _OPEN_UNDER_ROOT.all(tx.session, params)]
    query = select(Decision).where(
        Decision.tenant_id == tx.tenant_id,
        Decision.status.in_([s.value for s in OPEN_STATUSES]),
        or_(Decision.subject_id.in_(subjects), Decision.root_id.in_(roots)),
    )
    return list((await tx.session.scalars(query)).all())


async def _close(tx: Tx, changes: _Changes) -> None:
    subjects = {subject for subject, _ in (*changes.answered, *changes.left)}
    for decision in await _open_decisions(tx, subjects, changes.ended_roots):
        key = (decision.subject_id, decision.kind)
        outcome = changes.answered.get(key)
        if (
            key not in changes.answered
            and key not in changes.left
            and decision.root_id not in changes.ended_roots
        ):
            continue  # another point about the same subject (a hop's plan, its implementation)
        if outcome is not None:
            decided(tx, decision, outcome)
        else:
            withdraw(tx, decision, "it ended without an answer")


def record(tx: Tx, decision: Decision, kind: DecisionEvent, **data: Any) -> None:
    tx.events.record(
        kind,
        entity_type=ENTITY,
        entity_id=decision.id,
        root_type=decision.root_type,
        root_id=decision.root_id,
        data={"kind": decision.kind, "subjectType": decision.subject_type, "subjectId": decision.subject_id}
        | data,
    )


def act(tx: Tx, decision: Decision, action: str, reason: str | None = None, **data: Any) -> None:
    """DECISION_MACHINE's action ``action`` on the decision: checked, walked, stamped and recorded."""
    apply(
        tx,
        DECISION_MACHINE,
        decision,
        action,
        root_type=decision.root_type,
        root_id=decision.root_id,
        field="decisionId",
        reason=reason,
        data=data or None,
    )


def decided(tx: Tx, decision: Decision, outcome: str) -> None:
    decision.outcome = outcome
    act(tx, decision, "decide")
    record(tx, decision, DecisionEvent.DECISION_MADE, outcome=outcome, by=tx.principal.name)


def withdraw(tx: Tx, decision: Decision, reason: str) -> None:
    act(tx, decision, "withdraw", reason)
    record(tx, decision, DecisionEvent.DECISION_WITHDRAWN, reason=reason)


async def _scope_ids(tx: Tx, point: Point, root_id: str) -> list[tuple[str, str]]:
    """(scope type, scope id) from the narrowest to the widest: the plan or mission, the workflow's
    definition (by name), the tenant."""
    scopes: list[tuple[str, str]] = []
    if point.root == "workflow":
        workflow = await tx.session.get(Workflow, root_id)
        if workflow is not None:
            scopes.append(("workflow_definition", workflow.name))
    else:
        scopes.append((point.root, root_id))
    scopes.append(("tenant", tx.tenant_id))
    return scopes


def policy_terms(policy: DecisionPolicy) -> Terms:
    return Terms(
        policy.deadline_seconds,
        Outcome(policy.default_outcome) if policy.default_outcome else None,
        policy.assignee,
        policy.escalate_after_seconds,
        policy.escalation_role,
    )


async def resolve_terms(tx: Tx, point: Point, subject: str, root_id: str) -> Terms:
    """The request's own terms over the plan's (mission's, workflow definition's) over the tenant's,
    each scope's terms for this kind over its terms for every kind."""
    scopes = await _scope_ids(tx, point, root_id)
    rows = (
        await tx.session.scalars(
            select(DecisionPolicy).where(
                DecisionPolicy.tenant_id == tx.tenant_id,
                or_(*((DecisionPolicy.scope_type == t) & (DecisionPolicy.scope_id == i) for t, i in scopes)),
                DecisionPolicy.kind.in_([point.kind.value, ANY_KIND]),
            )
        )
    ).all()
    found = {(p.scope_type, p.scope_id, p.kind): p for p in rows}
    terms: Terms = tx.decision_terms.get(subject, Terms())
    for scope_type, scope_id in scopes:
        for kind in (point.kind.value, ANY_KIND):
            policy = found.get((scope_type, scope_id, kind))
            if policy is not None:
                terms = terms.over(policy_terms(policy))
    return terms


async def open_decision(tx: Tx, point: Point, subject: str, root_id: str) -> Decision:
    terms = await resolve_terms(tx, point, subject, root_id)
    decision = Decision(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        kind=point.kind.value,
        status=DecisionStatus.OPEN.value,
        subject_type=point.subject,
        subject_id=subject,
        root_type=point.root,
        root_id=root_id,
        created_at=tx.now,
        updated_at=tx.now,
    )
    apply_terms(decision, terms)
    tx.session.add(decision)
    record(tx, decision, DecisionEvent.REVIEW_REQUESTED, **describe(decision))
    return decision


def apply_terms(decision: Decision, terms: Terms) -> None:
    """Set the decision's assignee, deadline and escalation from ``terms``, timed from its opening. A
    default outcome the kind does not allow (a tenant-wide skip, say) is left out, with its deadline."""
    allowed = POINTS[DecisionKind(decision.kind)].defaults
    usable = terms.default_outcome is not None and terms.default_outcome in allowed
    decision.default_outcome = terms.default_outcome.value if usable and terms.default_outcome else None
    decision.deadline_at = due_at(decision.created_at, terms.deadline_seconds) if usable else None
    if decision.escalated_at is None:  # an escalated decision stays with the escalation role
        decision.assignee = terms.assignee
        decision.escalate_at = due_at(decision.created_at, terms.escalate_after_seconds)
        decision.escalation_role = terms.escalation_role
        deadline, escalation = decision.deadline_at, decision.escalate_at
        if deadline is not None and escalation is not None and escalation >= deadline:
            decision.escalate_at = decision.escalation_role = None  # the deadline comes first


def describe(decision: Decision) -> dict[str, Any]:
    def iso(value: Any) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "assignee": decision.assignee,
        "deadlineAt": iso(decision.deadline_at),
        "defaultOutcome": decision.default_outcome,
        "escalateAt": iso(decision.escalate_at),
        "escalationRole": decision.escalation_role,
    }
