"""claimWorkflowStep: workers pull work (seed 002 §5; DESIGN.md "agents pull").

A claim hands out one step whose dependencies are all completed or skipped (whose back-off is over,
and whose ``agent``, if it names one, is the caller), or, in a compensating workflow, the next
compensation if the caller is the agent it names. The workflow row is locked and its steps read after
the lock, so under any number of concurrent claims every step goes to exactly one worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import BindParameter, CompoundSelect, Select, bindparam, func, or_, select

from ...db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ...errors import ErrorCode, ServiceError, fail
from ...events.workflow_kinds import WorkflowEvent
from ...limits import MAX_BATCH_STEPS
from ...machines.workflow import (
    COMPENSATION_MACHINE,
    WORKFLOW_MACHINE,
    CompensationStatus,
    WorkflowStatus,
    WorkflowStepStatus,
)
from ...machines.workflow_policy import dependencies_met
from ..acting import check_acting_agent
from ..runtime import Tx
from ..transitions import allowed
from .progress import satisfied_names
from .reports import Completion, StepReport, complete_workflow_steps
from .rows import (
    compensation_act,
    load_compensations,
    lock_workflow,
    record_step_event,
    step_act,
    steps_by_id,
)


class ClaimOutcome(StrEnum):
    STEP = "step"
    COMPENSATION = "compensation"
    NONE = "none"


class ClaimWait(StrEnum):
    """Why a claim handed out nothing."""

    NOTHING_READY = "nothing_ready"
    BACKING_OFF = "backing_off"
    WAITING_AT_GATE = "waiting_at_gate"
    WORKFLOW_QUEUED = "workflow_queued"
    WORKFLOW_NOT_EXECUTING = "workflow_not_executing"


@dataclass
class Claim:
    outcome: ClaimOutcome
    workflow: Workflow | None = None
    step: WorkflowStep | None = None
    compensation: WorkflowCompensation | None = None
    reason: ClaimWait | None = None  # NONE only: why
    retry_at: datetime | None = None  # NONE only: the earliest moment a claim may succeed, when known


async def claim_work(tx: Tx, agent: str, workflow_id: str | None = None) -> Claim:
    return (await claim_many(tx, agent, workflow_id, 1))[0]


async def claim_many(
    tx: Tx, agent: str, workflow_id: str | None, max_steps: int, held: Workflow | None = None
) -> list[Claim]:
    """Up to ``max_steps`` steps in one transaction, each claimed as ``claim_work`` claims one (its own
    attempt, its own events), from the first workflow that has any, then the next; or one
    compensation (they run one at a time); or one NONE saying why nothing was handed out.

    A batch only saves round trips: every step in it is locked, checked and recorded exactly as a
    single claim would be. ``held``: a workflow this transaction locked already
    (its row is current under the lock), not read again.
    """

    async def locked(wid: str) -> Workflow:
        return held if held is not None and held.id == wid else await lock_workflow(tx, wid)

    check_acting_agent(tx.principal, agent)
    if not 1 <= max_steps <= MAX_BATCH_STEPS:
        raise fail(
            ErrorCode.VALIDATION_FAILED,
            f"maxSteps must be between 1 and {MAX_BATCH_STEPS}, not {max_steps}",
            ["maxSteps"],
        )
    if workflow_id is not None:
        workflow = await locked(workflow_id)
        return await _claim_in(tx, workflow, agent, max_steps) or [await _nothing_in(tx, workflow, agent)]
    claimed: list[Claim] = []
    for candidate in await _candidates(tx, agent):
        workflow = await locked(candidate)
        if claimed and not allowed(WORKFLOW_MACHINE, workflow, "hand_out_step"):
            continue  # steps already in hand: a compensation (handed out alone) waits for the next call
        claimed += await _claim_in(tx, workflow, agent, max_steps - len(claimed))
        if len(claimed) >= max_steps or (claimed and claimed[-1].outcome is ClaimOutcome.COMPENSATION):
            break
    return claimed or [await _nothing_anywhere(tx, agent)]


async def complete_then_claim(
    tx: Tx, agent: str, completions: list[Completion], workflow_id: str | None, max_steps: int
) -> tuple[list[StepReport | ServiceError], list[Claim] | None]:
    """A worker's completions, then its next claim, in one transaction.

    The completions are ``complete_workflow_steps``': one workflow's run of them, each checked and
    answered on its own. When that run was the last of them, the claim follows in the same
    transaction, so it sees their dependents ready; otherwise the claim is None and the caller sends
    the rest in the next transaction. A claim refused as a whole raises, and the run's completions
    roll back with it: the caller completes them alone and reports the refusal.
    """
    done = await complete_workflow_steps(tx, agent, completions) if completions else []
    if len(done) < len(completions):
        return done, None
    held = next((d.workflow for d in done if isinstance(d, StepReport)), None)
    return done, await claim_many(tx, agent, workflow_id, max_steps, held)


def _backoff_ends(tx: Tx, agent: str) -> Select[datetime | None]:
    """When the first of ``agent``'s steps waiting out a retry back-off may run (their dependencies were
    met before their first attempt, so the back-off is all they wait for), in executing workflows."""
    return (
        select(func.min(WorkflowStep.next_attempt_at))
        .join(Workflow, WorkflowStep.workflow_id == Workflow.id)
        .where(
            Workflow.tenant_id == tx.tenant_id,
            Workflow.status == WorkflowStatus.EXECUTING.value,
            WorkflowStep.status == WorkflowStepStatus.PENDING.value,
            WorkflowStep.next_attempt_at > tx.now,
            or_(WorkflowStep.agent.is_(None), WorkflowStep.agent == agent),
        )
    )


async def _nothing_in(tx: Tx, workflow: Workflow, agent: str) -> Claim:
    """NONE from one workflow, with why and, when it is known, when to ask again."""
    status = WorkflowStatus(workflow.status)
    if status is WorkflowStatus.EXECUTING:
        retry_at = await tx.session.scalar(_backoff_ends(tx, agent).where(Workflow.id == workflow.id))
        if retry_at is not None:
            return Claim(ClaimOutcome.NONE, workflow, reason=ClaimWait.BACKING_OFF, retry_at=retry_at)
        return Claim(ClaimOutcome.NONE, workflow, reason=ClaimWait.NOTHING_READY)
    reason = {
        WorkflowStatus.BLOCKED: ClaimWait.WAITING_AT_GATE,
        WorkflowStatus.QUEUED: ClaimWait.WORKFLOW_QUEUED,
        WorkflowStatus.COMPENSATING: ClaimWait.NOTHING_READY,
    }.get(status, ClaimWait.WORKFLOW_NOT_EXECUTING)
    return Claim(ClaimOutcome.NONE, workflow, reason=reason)


async def _nothing_anywhere(tx: Tx, agent: str) -> Claim:
    """NONE from every workflow of the tenant: a back-off ending beats a queue, which beats a gate."""
    retry_at = await tx.session.scalar(_backoff_ends(tx, agent))
    if retry_at is not None:
        return Claim(ClaimOutcome.NONE, reason=ClaimWait.BACKING_OFF, retry_at=retry_at)
    statuses = set(
        (
            await tx.session.scalars(
                select(Workflow.status)
                .where(
                    Workflow.tenant_id == tx.tenant_id,
                    Workflow.status.in_([WorkflowStatus.QUEUED.value, WorkflowStatus.BLOCKED.value]),
                )
                .distinct()
            )
        ).all()
    )
    if WorkflowStatus.QUEUED.value in statuses:
        return Claim(ClaimOutcome.NONE, reason=ClaimWait.WORKFLOW_QUEUED)
    if WorkflowStatus.BLOCKED.value in statuses:
        return Claim(ClaimOutcome.NONE, reason=ClaimWait.WAITING_AT_GATE)
    return Claim(ClaimOutcome.NONE, reason=ClaimWait.NOTHING_READY)


async def _candidates(tx: Tx, agent: str) -> list[str]:
    """Workflows that may have work for ``agent``, oldest first (at most the tenant's slots are active).

    A hint only: each is locked and checked exactly afterwards. The order is fixed, so two claimers
    lock workflows in the same order and never deadlock.
    """
    params = {"tenant": tx.tenant_id, "agent": agent, "now": tx.now}
    rows = (await tx.session.execute(_CANDIDATE_WORKFLOWS, params)).all()
    return [wid for wid, _ in sorted(set(rows), key=lambda r: (r[1], r[0]))]


def _candidate_workflows() -> CompoundSelect[str, datetime | None]:
    """``_candidates``' query, built once (its parameters: tenant, agent, now)."""
    # EXISTS, not a join: a join read every pending step of every executing workflow per claim (a
    # 1,000-step workflow: 1,000 rows); the probe stops at the first, found by the
    # (workflow_id, status, position) index.
    agent: BindParameter[str] = bindparam("agent")
    now: BindParameter[datetime] = bindparam("now")
    claimable = (
        select(WorkflowStep.id)
        .where(
            WorkflowStep.workflow_id == Workflow.id,
            WorkflowStep.status == WorkflowStepStatus.PENDING.value,
            WorkflowStep.approval.is_(False),
            or_(WorkflowStep.agent.is_(None), WorkflowStep.agent == agent),
            or_(WorkflowStep.next_attempt_at.is_(None), WorkflowStep.next_attempt_at <= now),
        )
        .exists()
    )
    steps = select(Workflow.id, Workflow.started_at).where(
        Workflow.tenant_id == bindparam("tenant"),
        Workflow.status == WorkflowStatus.EXECUTING.value,
        claimable,
    )
    compensations = (
        select(Workflow.id, Workflow.started_at)
        .join(WorkflowCompensation, WorkflowCompensation.workflow_id == Workflow.id)
        .where(
            Workflow.tenant_id == bindparam("tenant"),
            Workflow.status == WorkflowStatus.COMPENSATING.value,
            WorkflowCompensation.status == CompensationStatus.PENDING.value,
            WorkflowCompensation.agent == agent,
        )
    )
    return steps.union(compensations)


_CANDIDATE_WORKFLOWS = _candidate_workflows()


async def _claim_in(tx: Tx, workflow: Workflow, agent: str, limit: int) -> list[Claim]:
    """Up to ``limit`` steps of the (locked) workflow, or its next compensation; [] when neither."""
    if allowed(WORKFLOW_MACHINE, workflow, "hand_out_step"):
        claims = []
        # Only the chosen steps are loaded whole, in one read: reading every step's row per claim cost
        # O(steps). The workflow is locked: its steps cannot go away.
        for step in await _load_steps(tx, await claimable_steps(tx, workflow.id, agent, limit)):
            # Written through (Tx.write), as step_act writes the state: the unit of work's flush of
            # a changed step cost more than the UPDATE itself.
            tx.write(step, attempt=step.attempt + 1, claimed_by=agent)
            step_act(tx, workflow, step, "claim", agent=agent, attempt=step.attempt)
            record_step_event(
                tx,
                workflow,
                step,
                WorkflowEvent.STEP_CLAIMED,
                {"agent": agent, "attempt": step.attempt, "stepName": step.name},
            )
            claims.append(Claim(ClaimOutcome.STEP, workflow, step))
        return claims
    if allowed(WORKFLOW_MACHINE, workflow, "hand_out_compensation"):
        compensation = next_compensation(await load_compensations(tx, workflow.id))
        if (
            compensation is None
            or compensation.agent != agent
            or not allowed(COMPENSATION_MACHINE, compensation, "claim")  # one runs at a time
        ):
            return []
        compensation_act(tx, workflow, compensation, "claim", agent=agent)
        return [Claim(ClaimOutcome.COMPENSATION, workflow, compensation=compensation)]
    return []


_BATCH = 64  # the most claimable candidates read at a time, in definition order
_FIRST_BATCH = 8  # the first read: for independent steps it decides (each row's depends_on is JSON)

# Built once, with every value a parameter: building it on every claim cost more than running it
# .
_CANDIDATES = (
    select(WorkflowStep.id, WorkflowStep.position, WorkflowStep.depends_on)
    .where(
        WorkflowStep.workflow_id == bindparam("workflow_id"),
        WorkflowStep.position > bindparam("after"),
        WorkflowStep.status == WorkflowStepStatus.PENDING.value,
        WorkflowStep.approval.is_(False),
        or_(WorkflowStep.agent.is_(None), WorkflowStep.agent == bindparam("agent")),
        or_(WorkflowStep.next_attempt_at.is_(None), WorkflowStep.next_attempt_at <= bindparam("now")),
    )
    .order_by(WorkflowStep.position)
    .limit(bindparam("batch"))
)


async def _load_steps(tx: Tx, step_ids: list[str]) -> list[WorkflowStep]:
    """The steps, whole and as they are now, in the order given: one read for a batch."""
    by_id = await steps_by_id(tx, step_ids)
    return [by_id[i] for i in step_ids]


async def claimable_steps(tx: Tx, workflow_id: str, agent: str, limit: int) -> list[str]:
    """The first ``limit`` steps, in definition order, that ``agent`` may claim now: pending, not a
    gate, its ``agent`` the caller or nobody, its back-off over, and every dependency completed or
    skipped (``machines.workflow_policy.ready_steps``' rule). Call with the workflow locked.

    Reads the pending candidates a batch at a time and only the dependencies they name, not every
    step: for independent steps the first, small batch decides, however large the workflow; later
    batches are larger, so a long run of waiting steps costs few reads.
    """
    found: list[str] = []
    after = -1
    batch = max(_FIRST_BATCH, limit)
    while len(found) < limit:
        params = {"workflow_id": workflow_id, "after": after, "agent": agent, "now": tx.now, "batch": batch}
        rows = (await tx.session.execute(_CANDIDATES, params)).all()
        if not rows:
            break
        met = await satisfied_names(tx, workflow_id, {d for _, _, deps in rows for d in deps})
        found += [str(step_id) for step_id, _, deps in rows if dependencies_met(deps, met)][
            : limit - len(found)
        ]
        if len(rows) < batch:
            break  # that was the last of them
        after = rows[-1][1]
        batch = max(_BATCH, limit)
    return found


def next_compensation(compensations: list[WorkflowCompensation]) -> WorkflowCompensation | None:
    """The first compensation not yet completed: one at a time, in order (seed §4.2)."""
    return next((c for c in compensations if c.status != CompensationStatus.COMPLETED), None)
