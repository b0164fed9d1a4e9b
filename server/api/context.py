"""Per-request context: who is calling, the runtime, and the request's data loaders."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from strawberry.dataloader import DataLoader

from ..auth import Principal
from ..db.decision_models import Decision
from ..db.models import BranchingConditionRow, PlanStep
from ..db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ..services.decisions.due import open_decisions_about
from ..services.plans import queries as plan_queries
from ..services.runtime import Runtime
from ..services.workflows import queries as workflow_queries
from .missions.loaders import MissionLoaders


@dataclass
class Loaders:
    runtime: Runtime
    steps: DataLoader[str, list[PlanStep]] = field(init=False)
    # A step's actions are open only while its plan's are (PlanStep.availableActions).
    plan_statuses: DataLoader[str, str | None] = field(init=False)
    conditions: DataLoader[str, list[BranchingConditionRow]] = field(init=False)
    workflow_steps: DataLoader[str, list[WorkflowStep]] = field(init=False)
    workflow_compensations: DataLoader[str, list[WorkflowCompensation]] = field(init=False)
    # Keyed by (tenant, workflow id): a WebSocket's tenant is only known after connection_init.
    workflows: DataLoader[tuple[str, str], Workflow | None] = field(init=False)
    workflow_definitions: DataLoader[str, dict[str, Any] | None] = field(init=False)
    # Keyed by (tenant, subject id): the open decision about a review's step, gate or proposal.
    open_decisions: DataLoader[tuple[str, str], Decision | None] = field(init=False)

    def __post_init__(self) -> None:
        self.steps = DataLoader(load_fn=self._load_steps, cache=False)
        self.plan_statuses = DataLoader(load_fn=self._load_plan_statuses, cache=False)
        self.conditions = DataLoader(load_fn=self._load_conditions, cache=False)
        self.workflow_steps = DataLoader(load_fn=self._load_workflow_steps, cache=False)
        self.workflow_compensations = DataLoader(load_fn=self._load_compensations, cache=False)
        self.workflows = DataLoader(load_fn=self._load_workflows, cache=False)
        self.workflow_definitions = DataLoader(load_fn=self._load_definitions, cache=False)
        self.open_decisions = DataLoader(load_fn=self._load_open_decisions, cache=False)

    async def _load_steps(self, plan_ids: list[str]) -> list[list[PlanStep]]:
        async with self.runtime.db.reader() as session:
            return await plan_queries.steps_by_plan(session, plan_ids)

    async def _load_plan_statuses(self, plan_ids: list[str]) -> list[str | None]:
        async with self.runtime.db.reader() as session:
            return await plan_queries.plan_statuses(session, plan_ids)

    async def _load_conditions(self, plan_ids: list[str]) -> list[list[BranchingConditionRow]]:
        async with self.runtime.db.reader() as session:
            return await plan_queries.conditions_by_plan(session, plan_ids)

    async def _load_workflow_steps(self, workflow_ids: list[str]) -> list[list[WorkflowStep]]:
        async with self.runtime.db.reader() as session:
            return await workflow_queries.steps_by_workflow(session, workflow_ids)

    async def _load_compensations(self, workflow_ids: list[str]) -> list[list[WorkflowCompensation]]:
        async with self.runtime.db.reader() as session:
            return await workflow_queries.compensations_by_workflow(session, workflow_ids)

    async def _load_workflows(self, keys: list[tuple[str, str]]) -> list[Workflow | None]:
        async with self.runtime.db.reader() as session:
            return await workflow_queries.workflows_by_id(session, keys)

    async def _load_definitions(self, workflow_ids: list[str]) -> list[dict[str, Any] | None]:
        async with self.runtime.db.reader() as session:
            return await workflow_queries.definitions_by_id(session, workflow_ids)

    async def _load_open_decisions(self, keys: list[tuple[str, str]]) -> list[Decision | None]:
        async with self.runtime.db.reader() as session:
            return await open_decisions_about(session, keys)


@dataclass
class Context:
    runtime: Runtime
    principal: Principal
    request: Any = None
    response: Any = None
    connection_params: dict[str, Any] | None = None
    # The key a WebSocket authenticated with in connection_init: its connection is closed once revoked.
    api_key: str | None = None

    # The loaders are built on first use: most requests (a mutation with its payload) use none, and
    # building eight DataLoaders for every request was a measurable part of it.
    @cached_property
    def loaders(self) -> Loaders:
        return Loaders(self.runtime)

    @cached_property
    def missions(self) -> MissionLoaders:
        return MissionLoaders(self.runtime)


def make_context(
    runtime: Runtime, principal: Principal, request: Any = None, response: Any = None
) -> Context:
    return Context(runtime, principal, request, response)
