"""transitions.require and transitions.allowed: a machine's action checked against a row's state and the
columns its guards read."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from server.errors import ErrorCode, ServiceError
from server.machines.plan import PLAN_MACHINE
from server.machines.workflow import WORKFLOW_STEP_MACHINE
from server.services.transitions import allowed, require


def test_require_and_allowed_read_the_rows_state_and_guarded_columns() -> None:
    row = SimpleNamespace(id="s1", status="running", blocked_on="governance")
    assert allowed(WORKFLOW_STEP_MACHINE, row, "override")
    assert not allowed(WORKFLOW_STEP_MACHINE, row, "approve")
    with pytest.raises(ServiceError) as caught:
        require(WORKFLOW_STEP_MACHINE, row, "complete", "stepId")
    problem = caught.value.problems[0]
    assert (problem.code, problem.entity, problem.from_state, problem.to_state, problem.field) == (
        ErrorCode.INVALID_TRANSITION,
        "workflow_step",
        "running",
        "completed",
        ["stepId"],
    )
    plan = SimpleNamespace(id="p1", status="completed")
    with pytest.raises(
        ServiceError, match="plan p1 is completed: a terminal state; it cannot change any more"
    ):
        require(PLAN_MACHINE, plan, "work", "planId")
