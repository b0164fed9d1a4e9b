"""Setting the defaults decisions start with (per tenant, plan or mission, workflow definition), and
changing the terms of one open decision (a request's own deadline, assignee, escalation)."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import select

from ...auth import Role
from ...db.decision_models import Decision, DecisionPolicy
from ...errors import invalid, not_found
from ...events.decision_kinds import DecisionEvent
from ...limits import SHORT_TEXT
from ...machines.decision import DECISION_MACHINE, DecisionKind, Terms, term_problems
from ..aggregates import MISSION, PLAN, lock_root
from ..runtime import Tx
from ..transitions import require
from ..validation import Problems, check_text, parse_id
from .book import ANY_KIND, apply_terms, describe, record
from .deadlines import ROOTS

# A deadline or escalation further out than this is refused (a year: longer is not a deadline).
MAX_SECONDS = 366 * 24 * 3600.0


class Scope(StrEnum):
    TENANT = "tenant"
    PLAN = "plan"
    MISSION = "mission"
    WORKFLOW_DEFINITION = "workflow_definition"


# The kinds a scope's decisions can be.
SCOPE_KINDS: dict[Scope, frozenset[DecisionKind]] = {
    Scope.TENANT: frozenset(DecisionKind),
    Scope.PLAN: frozenset({DecisionKind.PLAN_REVIEW}),
    Scope.MISSION: frozenset(
        {
            DecisionKind.MISSION_APPROVAL,
            DecisionKind.HOP_PLAN,
            DecisionKind.HOP_IMPLEMENTATION,
            DecisionKind.ASSET_ACCEPTANCE,
        }
    ),
    Scope.WORKFLOW_DEFINITION: frozenset({DecisionKind.WORKFLOW_GATE}),
}


def check_assignee(value: str | None, field: list[str], tx: Tx) -> None:
    """``user:<key name>`` or ``role:<role>``."""
    if value is None:
        return
    check_text(value, field, SHORT_TEXT)
    kind, _, name = value.partition(":")
    if kind == "role" and name in {r.value for r in Role}:
        return
    if kind == "user" and name.strip():
        return
    raise invalid(f"{'.'.join(field)} must be user:<name> or role:<{'|'.join(r.value for r in Role)}>", field)


def check_terms(tx: Tx, terms: Terms, kinds: frozenset[DecisionKind]) -> None:
    problems = Problems()
    for name, value in (
        ("deadlineSeconds", terms.deadline_seconds),
        ("escalateAfterSeconds", terms.escalate_after_seconds),
    ):
        if value is not None and (not math.isfinite(value) or value > MAX_SECONDS):
            problems.add(f"{name} must be a finite number of seconds up to {MAX_SECONDS:.0f}", [name])
    problems.check(check_assignee, terms.assignee, ["assignee"], tx)
    if terms.escalation_role is not None and terms.escalation_role not in {r.value for r in Role}:
        problems.add(f"escalationRole must be one of {', '.join(r.value for r in Role)}", ["escalationRole"])
    for field, message in term_problems(terms, kinds):
        problems.add(message, [field])
    problems.raise_if_any()


@dataclass(frozen=True)
class PolicyKey:
    scope: Scope
    scope_id: str
    kind: DecisionKind | None  # None: every kind of the scope


async def _check_scope(tx: Tx, key: PolicyKey) -> str:
    """The scope id in its stored form; NOT_FOUND for a plan or mission outside the tenant."""
    if key.scope is Scope.TENANT:
        return tx.tenant_id
    if key.scope is Scope.WORKFLOW_DEFINITION:
        check_text(key.scope_id, ["scopeId"], SHORT_TEXT, required=True)
        return key.scope_id
    scope_id = parse_id(key.scope_id, "scopeId")
    if key.scope is Scope.PLAN:
        return (await lock_root(tx, PLAN, scope_id, "scopeId")).id
    return (await lock_root(tx, MISSION, scope_id, "scopeId")).id


def _kinds(key: PolicyKey) -> frozenset[DecisionKind]:
    kinds = SCOPE_KINDS[key.scope]
    if key.kind is not None and key.kind not in kinds:
        raise invalid(f"a {key.scope.value} has no {key.kind.value} decisions", ["kind"])
    return frozenset({key.kind}) if key.kind is not None else kinds


async def _find(tx: Tx, key: PolicyKey, scope_id: str) -> DecisionPolicy | None:
    return await tx.session.scalar(
        select(DecisionPolicy).where(
            DecisionPolicy.tenant_id == tx.tenant_id,
            DecisionPolicy.scope_type == key.scope.value,
            DecisionPolicy.scope_id == scope_id,
            DecisionPolicy.kind == (key.kind.value if key.kind else ANY_KIND),
        )
    )


async def set_policy(tx: Tx, key: PolicyKey, terms: Terms) -> DecisionPolicy:
    """Create or replace the scope's defaults for new decisions (open ones keep theirs)."""
    kinds = _kinds(key)
    check_terms(tx, terms, kinds)
    scope_id = await _check_scope(tx, key)
    policy = await _find(tx, key, scope_id)
    if policy is None:
        policy = DecisionPolicy(
            id=str(uuid.uuid4()),
            tenant_id=tx.tenant_id,
            scope_type=key.scope.value,
            scope_id=scope_id,
            kind=key.kind.value if key.kind else ANY_KIND,
        )
        tx.session.add(policy)
    policy.deadline_seconds = terms.deadline_seconds
    policy.default_outcome = terms.default_outcome.value if terms.default_outcome else None
    policy.assignee = terms.assignee
    policy.escalate_after_seconds = terms.escalate_after_seconds
    policy.escalation_role = terms.escalation_role
    policy.updated_at = tx.now
    await tx.session.flush()
    return policy


async def remove_policy(tx: Tx, key: PolicyKey) -> bool:
    _kinds(key)
    scope_id = await _check_scope(tx, key)
    policy = await _find(tx, key, scope_id)
    if policy is None:
        return False
    await tx.session.delete(policy)
    return True


async def set_decision_terms(tx: Tx, decision_id: str, terms: Terms) -> Decision:
    """Give one open decision its own deadline, default, assignee and escalation (timed from when it
    opened), replacing what it started with. An escalated decision keeps its escalation."""
    found = await tx.session.get(Decision, parse_id(decision_id, "decisionId"))
    if found is None or found.tenant_id != tx.tenant_id:
        raise not_found("decision", decision_id, ["decisionId"])
    check_terms(tx, terms, frozenset({DecisionKind(found.kind)}))
    await lock_root(tx, ROOTS[found.root_type], found.root_id, "decisionId")
    decision = await tx.session.get(Decision, found.id, populate_existing=True)
    assert decision is not None
    require(DECISION_MACHINE, decision, "change_terms", "decisionId")
    apply_terms(decision, terms)
    decision.updated_at = tx.now
    record(tx, decision, DecisionEvent.TERMS_CHANGED, **describe(decision))
    return decision


def request_terms(tx: Tx, subject_id: str, kind: DecisionKind, terms: Terms) -> None:
    """A request's own terms (``requestUserReview(decision: ...)``): checked now, given to the decision
    the transaction opens for ``subject_id``."""
    check_terms(tx, terms, frozenset({kind}))
    tx.decision_terms[parse_id(subject_id, "stepId")] = terms
