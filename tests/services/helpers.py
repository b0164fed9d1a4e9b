"""A small driver for the plan services: every call runs in its own unit of work and is checked.

``Flight.call`` asserts, for every mutation, that each status change of a plan, step or skill execution
is explained by exactly one ``<entity>_transitioned`` event per edge (a chain from the old state to the
new one, every edge in the machine's table) and that the tenant's ``seq`` stays 1..N without gaps.
``Flight.refused`` asserts that a failing mutation leaves every table exactly as it was.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Self, TypeVar

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.auth import Principal, Role
from server.clock import FakeClock
from server.db.decision_models import Decision as DecisionRow
from server.db.models import Base, Event, PlanStep, ResearchPlan, SkillExecution, TenantCounter
from server.errors import ErrorCode, ServiceError, from_invalid_transition
from server.machines.branching import BranchAction, BranchingCondition, BranchOp
from server.machines.errors import InvalidTransition
from server.machines.machine import Machine
from server.machines.plan import PlanStatus
from server.machines.registry import MACHINES as REGISTERED
from server.services import skills
from server.services.plans import create as plan_create
from server.services.plans import execution as plan_execution
from server.services.plans import modify as plan_modify
from server.services.plans import review as plan_review
from server.services.plans import rows as plan_rows
from server.services.plans.create import CreatedPlan
from server.services.plans.execution import NextStep, SubmittedResult
from server.services.plans.inputs import (
    Decision,
    ModifyAction,
    NewPlan,
    NewStep,
    PlanModification,
    StepResult,
)
from server.services.plans.modify import Modified
from server.services.plans.review import Reviewed
from server.services.runtime import Runtime, Tx, unit_of_work

OTHER_TENANT = Principal("tenant-b", Role.ADMIN, "other-admin")
MACHINES: dict[str, Machine[Any]] = {m.entity: m for _, m in REGISTERED}

T = TypeVar("T")
StateKey = tuple[str, str]


def steps_of(n: int, prefix: str = "step") -> list[NewStep]:
    return [NewStep("search", f"{prefix} {i + 1}", title=f"{prefix} {i + 1}") for i in range(n)]


def when(
    after: int,
    field: str,
    op: str,
    value: Any,
    action: str = "skip_to",
    target: int | None = None,
) -> BranchingCondition:
    return BranchingCondition(after, field, BranchOp(op), value, BranchAction(action), target)


def problem_codes(exc: ServiceError) -> list[ErrorCode]:
    return [p.code for p in exc.problems]


# (entity type as events name it, model) of every row with a status; other domains' drivers add theirs.
STATEFUL: tuple[tuple[str, Any], ...] = (
    ("plan", ResearchPlan),
    ("step", PlanStep),
    ("skill_execution", SkillExecution),
    ("decision", DecisionRow),
)


async def tenant_states(
    session: AsyncSession, tenant_id: str, stateful: Sequence[tuple[str, Any]] = STATEFUL
) -> dict[StateKey, str]:
    """Every stateful row of the tenant, keyed by (entity type as events name it, id)."""
    states: dict[StateKey, str] = {}
    for entity, model in stateful:
        rows = await session.execute(select(model.id, model.status).where(model.tenant_id == tenant_id))
        states.update({(entity, rid): status for rid, status in rows.all()})
    return states


async def table_snapshot(session: AsyncSession) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a stable order: equal snapshots mean nothing was written."""
    snapshot: dict[str, list[tuple[Any, ...]]] = {}
    for table in Base.metadata.sorted_tables:
        rows = (await session.execute(select(table))).all()
        snapshot[table.name] = sorted((tuple(r) for r in rows), key=repr)
    return snapshot


def assert_transitions_explain_changes(
    before: Mapping[StateKey, str], after: Mapping[StateKey, str], events: Sequence[Event]
) -> None:
    chains: dict[StateKey, list[tuple[str | None, str | None]]] = defaultdict(list)
    for e in events:
        if e.kind.endswith("_transitioned"):
            assert e.kind == f"{e.entity_type}_transitioned", e.kind
            chains[(e.entity_type, e.entity_id)].append((e.from_state, e.to_state))
    for key in before.keys() | after.keys() | chains.keys():
        old, new, chain = before.get(key), after.get(key), chains.get(key, [])
        if old is None or new is None:
            assert not chain, f"{key} was created or removed, yet has transitions {chain}"
            continue
        if not chain:
            assert old == new, f"{key} went {old} -> {new} without a transition event"
            continue
        assert chain[0][0] == old, f"{key}: first event starts at {chain[0][0]}, the row was {old}"
        assert chain[-1][1] == new, f"{key}: last event ends at {chain[-1][1]}, the row is {new}"
        for (_, to_a), (from_b, _) in itertools.pairwise(chain):
            assert to_a == from_b, f"{key}: broken chain {chain}"
        machine = MACHINES[key[0]]
        for a, b in chain:
            assert a is not None
            assert b is not None
            assert machine.can(type(machine.initial)(a), type(machine.initial)(b)), f"{key}: {a} -> {b}"


class Flight:
    """Drives the services as one principal; remembers nothing but what the database holds."""

    stateful: Sequence[tuple[str, Any]] = STATEFUL

    def __init__(self, runtime: Runtime, principal: Principal, clock: FakeClock) -> None:
        self.runtime = runtime
        self.principal = principal
        self.clock = clock

    @property
    def tenant_id(self) -> str:
        return self.principal.tenant_id

    def as_(self, principal: Principal) -> Self:
        return type(self)(self.runtime, principal, self.clock)

    # -- reads --

    async def read(self, fn: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async with self.runtime.db.reader() as session:
            return await fn(session)

    async def plan(self, plan_id: str) -> ResearchPlan:
        plan = await self.read(lambda s: s.get(ResearchPlan, plan_id))
        assert plan is not None
        return plan

    async def step(self, step_id: str) -> PlanStep:
        step = await self.read(lambda s: s.get(PlanStep, step_id))
        assert step is not None
        return step

    async def steps(self, plan_id: str) -> list[PlanStep]:
        async def load(s: AsyncSession) -> list[PlanStep]:
            q = select(PlanStep).where(PlanStep.plan_id == plan_id).order_by(PlanStep.step_order)
            return list((await s.scalars(q)).all())

        return await self.read(load)

    async def statuses(self, plan_id: str) -> list[str]:
        return [s.status for s in await self.steps(plan_id)]

    async def events(
        self, *, root_id: str | None = None, kind: str | None = None, after: int = 0
    ) -> list[Event]:
        async def load(s: AsyncSession) -> list[Event]:
            q = select(Event).where(Event.tenant_id == self.tenant_id, Event.seq > after).order_by(Event.seq)
            if root_id is not None:
                q = q.where(Event.root_id == root_id)
            if kind is not None:
                q = q.where(Event.kind == kind)
            return list((await s.scalars(q)).all())

        return await self.read(load)

    async def last_seq(self) -> int:
        events = await self.events()
        return events[-1].seq if events else 0

    async def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        return await self.read(table_snapshot)

    async def assert_seq_gap_free(self) -> None:
        seqs = [e.seq for e in await self.events()]
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        counter = await self.read(lambda s: s.get(TenantCounter, self.tenant_id))
        assert (counter.last_seq if counter else 0) == len(seqs)

    # -- checked writes --

    async def call(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``fn`` in one unit of work, then check the events it wrote against the rows it changed."""

        async def run() -> T:
            async with unit_of_work(self.runtime, self.principal) as tx:
                return await fn(tx)

        return await self.checked(run)

    async def checked(self, run: Callable[[], Awaitable[T]]) -> T:
        """Run ``run`` (any number of transactions), then check its events against the changed rows."""
        before = await self.read(lambda s: tenant_states(s, self.tenant_id, self.stateful))
        seq0 = await self.last_seq()
        result = await run()
        after = await self.read(lambda s: tenant_states(s, self.tenant_id, self.stateful))
        new_events = [e for e in await self.events() if e.seq > seq0]
        assert_transitions_explain_changes(before, after, new_events)
        await self.assert_seq_gap_free()
        return result

    async def refused(
        self, fn: Callable[[Tx], Awaitable[object]], code: ErrorCode | None = None
    ) -> ServiceError:
        """``fn`` fails (with ``code``) and every table is left exactly as it was.

        A service may let the machine's ``InvalidTransition`` escape for an edge the table lacks; it is
        returned as the ServiceError the API turns it into.
        """
        before = await self.snapshot()
        with pytest.raises((ServiceError, InvalidTransition)) as caught:
            async with unit_of_work(self.runtime, self.principal) as tx:
                await fn(tx)
        assert await self.snapshot() == before
        error = caught.value
        if isinstance(error, InvalidTransition):  # the API maps it the same way
            error = from_invalid_transition(error)
        if code is not None:
            assert set(problem_codes(error)) == {code}, error.problems
        return error

    # -- the services --

    async def create(
        self, steps: int | list[NewStep] = 3, question: str = "What is the question?", **kw: Any
    ) -> CreatedPlan:
        new = NewPlan(question, steps_of(steps) if isinstance(steps, int) else steps, **kw)
        return await self.call(lambda tx: plan_create.create_research_plan(tx, new))

    async def start(self, plan_id: str, session_id: str | None = None) -> NextStep:
        return await self.call(lambda tx: plan_execution.start_next_step(tx, plan_id, session_id))

    async def submit(self, step_id: str, summary: str = "done", **kw: Any) -> SubmittedResult:
        result = StepResult(step_id, summary, **kw)
        return await self.call(lambda tx: plan_execution.submit_step_result(tx, result))

    async def review(
        self, step_id: str, summary: str = "please look", questions: list[str] | None = None
    ) -> Reviewed:
        return await self.call(
            lambda tx: plan_review.request_user_review(tx, step_id, summary, questions or [])
        )

    async def decide(self, step_id: str, decision: Decision, feedback: str | None = None) -> Reviewed:
        return await self.call(lambda tx: plan_review.submit_user_decision(tx, step_id, decision, feedback))

    async def modify(self, plan_id: str, action: ModifyAction, **kw: Any) -> Modified:
        mod = PlanModification(plan_id, action, **kw)
        return await self.call(lambda tx: plan_modify.modify_plan(tx, mod))

    async def retry(self, step_id: str) -> Modified:
        return await self.call(lambda tx: plan_modify.retry_step(tx, step_id))

    async def fail_plan(self, plan_id: str, reason: str = "given up") -> ResearchPlan:
        return await self.call(lambda tx: plan_modify.fail_plan(tx, plan_id, reason))

    async def start_skill(
        self, session_id: str, name: str = "deep-research", media: str | None = None, how: str | None = None
    ) -> SkillExecution:
        return await self.call(lambda tx: skills.start_skill_execution(tx, session_id, name, media, how))

    async def complete_skill(self, skill_id: str) -> SkillExecution:
        return await self.call(lambda tx: skills.complete_skill_execution(tx, skill_id, "finished"))

    async def stall(self, plan_id: str) -> None:
        """Put an executing plan into ``stalled`` the way the (unwritten) stall loop would."""

        async def go(tx: Tx) -> None:
            plan = await plan_rows.lock_plan(tx, plan_id)
            plan_rows.move_plan(tx, plan, PlanStatus.STALLED)

        await self.call(go)

    # -- common set-ups --

    async def run_step(self, plan_id: str, **kw: Any) -> SubmittedResult:
        started = await self.start(plan_id)
        assert started.step is not None, started.outcome
        return await self.submit(started.step.id, **kw)

    async def awaiting_review(self, steps: int = 3) -> tuple[str, str]:
        """A plan paused for review on its first step: (plan id, step id)."""
        created = await self.create(steps)
        started = await self.start(created.plan.id)
        assert started.step is not None
        await self.review(started.step.id)
        return created.plan.id, started.step.id
