"""The one lock helper for every aggregate root, on both databases."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import update

from server.auth import Principal, Role
from server.db.models import PlanStep
from server.errors import ServiceError
from server.services import aggregates
from server.services.runtime import Runtime, unit_of_work
from tests.services.helpers import Flight

ROOTS = [aggregates.PLAN, aggregates.WORKFLOW, aggregates.MISSION, aggregates.SKILL_EXECUTION]
CHILDREN = [
    aggregates.PLAN_STEP,
    aggregates.WORKFLOW_STEP,
    aggregates.COMPENSATION,
    aggregates.HOP,
    aggregates.TOOL_STEP,
    aggregates.ASSET,
]


async def refusal(runtime: Runtime, principal: Principal, lock: Any) -> tuple[str, str, list[str] | None]:
    with pytest.raises(ServiceError) as raised:
        async with unit_of_work(runtime, principal) as tx:
            await lock(tx)
    [problem] = raised.value.problems
    return problem.code.value, problem.message, problem.field


@pytest.mark.parametrize("root", ROOTS, ids=lambda r: r.entity)
async def test_an_unknown_or_malformed_root_id_is_refused_on_its_argument(
    runtime: Runtime, principal: Principal, root: aggregates.Root[Any]
) -> None:
    missing = str(uuid.uuid4())
    code, message, field = await refusal(
        runtime, principal, lambda tx: aggregates.lock_root(tx, root, missing)
    )
    assert (code, message, field) == ("NOT_FOUND", f"{root.entity} {missing} not found", [root.argument])
    code, _, field = await refusal(runtime, principal, lambda tx: aggregates.lock_root(tx, root, "x", "id"))
    assert (code, field) == ("VALIDATION_FAILED", ["id"])


@pytest.mark.parametrize("child", CHILDREN, ids=lambda c: c.entity.replace(" ", "_") + "_of_" + c.root.entity)
async def test_an_unknown_child_is_not_found_under_its_own_name(
    runtime: Runtime, principal: Principal, child: aggregates.Child[Any, Any]
) -> None:
    missing = str(uuid.uuid4())
    code, message, field = await refusal(
        runtime, principal, lambda tx: aggregates.lock_child(tx, child, missing, "someId")
    )
    assert (code, message, field) == ("NOT_FOUND", f"{child.entity} {missing} not found", ["someId"])


async def test_a_child_and_its_root_are_read_as_they_are_now_and_only_in_their_tenant(
    flight: Flight, runtime: Runtime, principal: Principal
) -> None:
    created = await flight.create(2)
    step_id = created.steps[0].id
    async with unit_of_work(runtime, principal) as tx:
        plan, step = await aggregates.lock_child(tx, aggregates.PLAN_STEP, step_id, "stepId")
        assert (plan.id, step.id, step.status) == (created.plan.id, step_id, "pending")
        # Changed behind the session's back: the next lock reads the row afresh.
        change = update(PlanStep).where(PlanStep.id == step_id).values(instructions="new")
        await tx.session.execute(change.execution_options(synchronize_session=False))
        assert step.instructions != "new"
        _, again = await aggregates.lock_child(tx, aggregates.PLAN_STEP, step_id, "stepId")
        assert again.instructions == "new"
    stranger = Principal("another-tenant", Role.ADMIN, "someone")
    code, _, field = await refusal(
        runtime, stranger, lambda tx: aggregates.lock_child(tx, aggregates.PLAN_STEP, step_id, "stepId")
    )
    assert (code, field) == ("NOT_FOUND", ["stepId"])
    code, _, _ = await refusal(
        runtime, stranger, lambda tx: aggregates.lock_root(tx, aggregates.PLAN, created.plan.id)
    )
    assert code == "NOT_FOUND"
