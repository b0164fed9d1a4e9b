"""A driver for the workflow services, checked like ``Flight``: every state change explained by events.

Definitions are written as the YAML's documents (``wf(step("a"), step("b", "a"))``), since the typed
input becomes exactly such a document.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.db.engine import Database
from server.db.models import Event
from server.db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from server.loops.workflow_timers import TimerPass, run_workflow_timers
from server.machines.retry import ErrorCategory
from server.services.runtime import Runtime
from server.services.workflows import claims as workflow_claims
from server.services.workflows import compensation as workflow_compensation
from server.services.workflows import create as workflow_create
from server.services.workflows import reports as workflow_reports
from server.services.workflows import review as workflow_review
from server.services.workflows.claims import Claim, ClaimOutcome
from server.services.workflows.compensation import CompensationReport
from server.services.workflows.create import CreatedWorkflow
from server.services.workflows.reports import StepReport
from tests.services.helpers import STATEFUL, Flight

# Seed 002 §4.3's example, verbatim: the steps and compensation of its spec.
SEED_4_3_SPEC = """
  steps:
    - name: create-account      # Mutates: creates user record
      onFailure: compensate
    - name: provision-workspace  # Mutates: allocates resources
      onFailure: compensate
    - name: setup-analytics      # Mutates: creates tracking config
      onFailure: compensate
    - name: send-welcome         # Side effect: sends email
      onFailure: skip            # Can't unsend email, so skip

  compensation:
    - step: setup-analytics
      action: "Remove analytics configuration"
      agent: data-pipeline
    - step: provision-workspace
      action: "Delete workspace and release resources"
      agent: product-analyst
    - step: create-account
      action: "Deactivate account (soft delete)"
      agent: growth-optimizer
"""


def seed_4_3_yaml(extra_spec: str = "") -> str:
    """§4.3's example as a whole document (named "onboarding"), with ``extra_spec`` lines added to spec."""
    return "metadata:\n  name: onboarding\nspec:\n" + extra_spec + SEED_4_3_SPEC


def step(name: str, *depends_on: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **fields}
    if depends_on:
        out["dependsOn"] = list(depends_on)
    return out


def wf(*steps: dict[str, Any], name: str = "wf", **spec: Any) -> dict[str, Any]:
    return {"name": name, "steps": list(steps), **spec}


def no_retry(**kw: Any) -> dict[str, Any]:
    return {"retryPolicy": {"maxRetries": 0, "backoff": "constant", "initialDelay": "1s"}, **kw}


class WorkflowFlight(Flight):
    stateful = (
        *STATEFUL,
        ("workflow", Workflow),
        ("workflow_step", WorkflowStep),
        ("workflow_compensation", WorkflowCompensation),
    )

    # -- reads --

    async def workflow(self, workflow_id: str) -> Workflow:
        row = await self.read(lambda s: s.get(Workflow, workflow_id))
        assert row is not None
        return row

    async def wf_steps(self, workflow_id: str) -> dict[str, WorkflowStep]:
        async def load(s: AsyncSession) -> list[WorkflowStep]:
            q = (
                select(WorkflowStep)
                .where(WorkflowStep.workflow_id == workflow_id)
                .order_by(WorkflowStep.position)
            )
            return list((await s.scalars(q)).all())

        return {row.name: row for row in await self.read(load)}

    async def step_states(self, workflow_id: str) -> dict[str, str]:
        return {name: row.status for name, row in (await self.wf_steps(workflow_id)).items()}

    async def compensations(self, workflow_id: str) -> list[WorkflowCompensation]:
        async def load(s: AsyncSession) -> list[WorkflowCompensation]:
            q = (
                select(WorkflowCompensation)
                .where(WorkflowCompensation.workflow_id == workflow_id)
                .order_by(WorkflowCompensation.position)
            )
            return list((await s.scalars(q)).all())

        return await self.read(load)

    async def kinds(self, workflow_id: str, after: int = 0) -> list[str]:
        return [e.kind for e in await self.events(root_id=workflow_id) if e.seq > after]

    async def transitions(self, workflow_id: str, entity_type: str = "workflow") -> list[tuple[str, str]]:
        events: list[Event] = await self.events(root_id=workflow_id, kind=f"{entity_type}_transitioned")
        return [(e.from_state or "", e.to_state or "") for e in events]

    # -- the services --

    async def create_workflow(self, document: dict[str, Any] | int = 3, **kw: Any) -> CreatedWorkflow:
        if isinstance(document, int):
            document = wf(*[step(f"s{i + 1}") for i in range(document)])
        doc = document
        return await self.call(lambda tx: workflow_create.create_workflow(tx, doc, **kw))

    async def create_yaml(self, text: str, name: str | None = None) -> CreatedWorkflow:
        return await self.call(lambda tx: workflow_create.create_workflow_from_yaml(tx, text, name))

    async def start_workflow(self, workflow_id: str) -> Workflow:
        return await self.call(lambda tx: workflow_create.start_workflow(tx, workflow_id))

    async def running(self, document: dict[str, Any] | int = 3) -> str:
        """A created and started workflow (executing, with a free slot): its id."""
        created = await self.create_workflow(document)
        await self.start_workflow(created.workflow.id)
        return created.workflow.id

    async def claim(self, agent: str = "worker", workflow_id: str | None = None) -> Claim:
        return await self.call(lambda tx: workflow_claims.claim_work(tx, agent, workflow_id))

    async def claim_step(self, agent: str = "worker", workflow_id: str | None = None) -> WorkflowStep:
        claim = await self.claim(agent, workflow_id)
        assert claim.outcome is ClaimOutcome.STEP, claim.outcome
        assert claim.step is not None
        return claim.step

    async def complete(self, step_id: str, agent: str = "worker", output: Any = None) -> StepReport:
        return await self.call(lambda tx: workflow_reports.complete_workflow_step(tx, step_id, agent, output))

    async def fail(
        self, step_id: str, category: str = "validation", message: str = "it broke", agent: str = "worker"
    ) -> StepReport:
        cat = ErrorCategory(category)
        return await self.call(
            lambda tx: workflow_reports.fail_workflow_step(tx, step_id, agent, cat, message)
        )

    async def heartbeat(self, step_id: str, agent: str = "worker") -> StepReport:
        return await self.call(lambda tx: workflow_reports.heartbeat_workflow_step(tx, step_id, agent))

    async def approve(self, step_id: str, comment: str | None = None) -> StepReport:
        return await self.call(lambda tx: workflow_review.approve_workflow_step(tx, step_id, comment))

    async def reject(self, step_id: str, reason: str = "no") -> StepReport:
        return await self.call(lambda tx: workflow_review.reject_workflow_step(tx, step_id, reason))

    async def complete_compensation(self, compensation_id: str, agent: str) -> CompensationReport:
        return await self.call(
            lambda tx: workflow_compensation.complete_compensation(tx, compensation_id, agent)
        )

    async def fail_compensation(
        self, compensation_id: str, agent: str, message: str = "undo failed"
    ) -> CompensationReport:
        return await self.call(
            lambda tx: workflow_compensation.fail_compensation(tx, compensation_id, agent, message)
        )

    async def timers(self) -> TimerPass:
        return await self.checked(lambda: run_workflow_timers(self.runtime))

    async def timers_on_two_instances(self) -> list[TimerPass]:
        """Four timer passes at once on two runtimes sharing the database, each with its own connections,
        like two server processes."""
        runtime = self.runtime
        second = Runtime(
            db=Database(runtime.settings.database_url), clock=self.clock, settings=runtime.settings
        )
        try:
            return await self.checked(
                lambda: asyncio.gather(*(run_workflow_timers(r) for r in (runtime, second, runtime, second)))
            )
        finally:
            await second.db.dispose()

    # -- common set-ups --

    async def run_named(self, workflow_id: str, *names: str, agent: str = "worker") -> None:
        """Claim and complete the steps ``names``, in this order (each must be the next one claimable)."""
        for name in names:
            claimed = await self.claim_step(agent, workflow_id)
            assert claimed.name == name, (claimed.name, name)
            await self.complete(claimed.id, agent)
