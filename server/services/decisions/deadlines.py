"""What the decision timer does: escalate decisions past their escalation time, apply the default of
those past their deadline.

``due_decisions`` is one indexed read per deadline for the candidates. ``act_on_decision`` then runs
in a transaction of its own: it locks the decision's root (plan, workflow, mission) — the lock every
answer to it takes too — re-reads the decision under it and acts only if it is still open and still
due, so with several instances each deadline is applied once and each escalation happens once.
The default goes through the domain's own service (``points.py``): the same checks, transitions and
events as a person's answer, attributed to the timer's principal, with the deadline as the reason.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.decision_models import Decision
from ...events.decision_kinds import DecisionEvent
from ...machines.decision import DECISION_MACHINE, OPEN_STATUSES, DecisionKind, DecisionStatus, Outcome
from ..aggregates import MISSION, PLAN, WORKFLOW, Root, lock_root
from ..runtime import Tx
from ..transitions import allowed
from .book import act, record, withdraw
from .points import POINTS

ROOTS: dict[str, Root[object]] = {"plan": PLAN, "workflow": WORKFLOW, "mission": MISSION}  # type: ignore[dict-item]
DUE_BATCH = 500


def past_deadline_query(now: datetime) -> Select[str, str, datetime | None]:
    """Open or escalated decisions past their deadline: the (status, deadline_at) index. Unordered
    (two statuses would need a sort); ``due_decisions`` orders what it reads."""
    return (
        select(Decision.tenant_id, Decision.id, Decision.deadline_at)
        .where(Decision.status.in_([s.value for s in OPEN_STATUSES]), Decision.deadline_at <= now)
        .limit(DUE_BATCH)
    )


def past_escalation_query(now: datetime) -> Select[str, str, datetime | None]:
    """Open decisions (never escalated) past their escalation time: the (status, escalate_at) index."""
    return (
        select(Decision.tenant_id, Decision.id, Decision.escalate_at)
        .where(Decision.status == DecisionStatus.OPEN.value, Decision.escalate_at <= now)
        .order_by(Decision.escalate_at)
        .limit(DUE_BATCH)
    )


async def due_decisions(session: AsyncSession, now: datetime) -> list[tuple[str, str]]:
    """(tenant, decision) of open decisions past their deadline or (not yet escalated) their
    escalation time, the earliest due first, each once."""
    rows = [
        *(await session.execute(past_deadline_query(now))).all(),
        *(await session.execute(past_escalation_query(now))).all(),
    ]
    seen: dict[tuple[str, str], datetime] = {}
    for tenant, decision_id, at in rows:
        if at is None:
            continue
        seen[(tenant, decision_id)] = min(at, seen.get((tenant, decision_id), at))
    return sorted(seen, key=lambda pair: (seen[pair], pair))


async def act_on_decision(tx: Tx, decision_id: str) -> str | None:
    """Escalate the decision, apply its default, or withdraw it when its subject no longer waits:
    what was done ("escalated", "defaulted", "withdrawn"), or None when nothing was due any more."""
    found = await tx.session.get(Decision, decision_id)
    if found is None or found.tenant_id != tx.tenant_id:
        return None
    await lock_root(tx, ROOTS[found.root_type], found.root_id, "decisionId")
    decision = await tx.session.get(Decision, decision_id, populate_existing=True)
    if decision is None or not allowed(DECISION_MACHINE, decision, "act_on_time"):
        return None  # answered, or another instance got there first
    point = POINTS[DecisionKind(decision.kind)]
    if not await point.waiting(tx, decision.subject_id):
        withdraw(tx, decision, "it no longer waits for an answer")
        return "withdrawn"
    if decision.deadline_at is not None and decision.deadline_at <= tx.now and decision.default_outcome:
        await _apply_default(tx, decision, Outcome(decision.default_outcome))
        return "defaulted"
    escalation = decision.escalate_at
    if escalation is not None and escalation <= tx.now and allowed(DECISION_MACHINE, decision, "escalate"):
        escalate(tx, decision)
        return "escalated"
    return None


async def _apply_default(tx: Tx, decision: Decision, outcome: Outcome) -> None:
    assert decision.deadline_at is not None
    due = decision.deadline_at.isoformat()
    reason = f"no answer by the deadline ({due}): default {outcome.value} applied"
    decision.outcome = outcome.value
    act(tx, decision, "default", reason)
    record(tx, decision, DecisionEvent.DEADLINE_APPLIED, outcome=outcome.value, reason=reason)
    # Written before the domain acts, so the answer it records finds this decision closed already.
    await tx.session.flush()
    await POINTS[DecisionKind(decision.kind)].defaults[outcome](tx, decision.subject_id, reason)


def escalate(tx: Tx, decision: Decision) -> None:
    previous = decision.assignee
    decision.assignee = f"role:{decision.escalation_role}"
    act(tx, decision, "escalate", "no answer by the escalation time")
    record(tx, decision, DecisionEvent.ESCALATED, previousAssignee=previous, assignee=decision.assignee)
