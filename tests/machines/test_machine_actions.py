"""Actions as data: each machine names what may happen from which state and what it
walks; a path the table does not hold is refused when the machine is defined."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum

import pytest

from server.machines.errors import InvalidMachine, InvalidTransition
from server.machines.machine import Action, Deadline, Guard, Machine
from server.machines.mission import ASSET_MACHINE, HOP_MACHINE, MISSION_MACHINE, TOOL_STEP_MACHINE
from server.machines.plan import PLAN_MACHINE, STEP_MACHINE, StepStatus
from server.machines.registry import MACHINES
from server.machines.workflow import (
    COMPENSATION_MACHINE,
    WORKFLOW_MACHINE,
    WORKFLOW_STEP_MACHINE,
    WorkflowStatus,
    WorkflowStepStatus,
)


class Job(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


TABLE = {
    Job.PENDING: frozenset({Job.RUNNING}),
    Job.RUNNING: frozenset({Job.DONE, Job.FAILED}),
    Job.FAILED: frozenset({Job.RUNNING}),
    Job.DONE: frozenset[Job](),
}


def job_machine(*actions: Action[Job]) -> Machine[Job]:
    return Machine(
        entity="job",
        initial=Job.PENDING,
        transitions=TABLE,
        final=frozenset({Job.DONE}),
        actions=actions,
        failure=Job.FAILED,
        retry_targets={Job.RUNNING: Job.RUNNING},
    )


FAIL = Action(
    "fail", frozenset({Job.PENDING, Job.RUNNING}), "only open jobs fail", Job.FAILED, via=Job.RUNNING
)
RETRY = Action("retry", frozenset({Job.FAILED}), "only a failed job is retried")


def test_an_action_walks_through_via_where_the_table_has_no_direct_edge() -> None:
    machine = job_machine(FAIL, RETRY)
    assert machine.path("fail", Job.PENDING) == [Job.RUNNING, Job.FAILED]
    assert machine.path("fail", Job.RUNNING) == [Job.FAILED]


def test_a_retry_returns_to_the_state_the_row_failed_from() -> None:
    machine = job_machine(FAIL, RETRY)
    assert machine.path("retry", Job.FAILED, failed_from=Job.RUNNING) == [Job.RUNNING]


def test_an_action_from_a_state_it_may_not_start_from_names_entity_action_and_state() -> None:
    machine = job_machine(FAIL, RETRY)
    with pytest.raises(InvalidTransition) as caught:
        machine.path("fail", Job.DONE, entity_id="j1")
    error = caught.value
    assert (error.entity, error.action, error.from_state, error.to_state) == ("job", "fail", "done", "failed")
    assert str(error) == "job j1 is done: only open jobs fail"
    with pytest.raises(InvalidTransition) as caught:
        machine.path("retry", Job.FAILED, failed_from=None, entity_id="j1")  # nothing to return to
    assert (caught.value.action, caught.value.to_state) == ("retry", None)


def test_an_action_whose_path_is_not_in_the_table_is_refused_when_defined() -> None:
    skip = Action("finish", frozenset({Job.PENDING}), "-", Job.DONE)  # pending -> done: no such edge
    with pytest.raises(InvalidMachine, match="finish from pending to done is not in the table"):
        job_machine(skip)
    with pytest.raises(InvalidMachine, match="declared twice"):
        job_machine(FAIL, FAIL)


@pytest.mark.parametrize("machine", [MISSION_MACHINE, HOP_MACHINE, TOOL_STEP_MACHINE, ASSET_MACHINE])
def test_every_mission_domain_machine_declares_its_actions(machine: Machine[StrEnum]) -> None:
    assert machine.actions
    for action in machine.actions:
        assert action.sources <= set(machine.states)
        assert machine.action(action.name) is action


# --- guards, internal actions, "already there" (the workflow and plan actions use them) -------------

WAITING = Guard("blocked_on", frozenset({None}), "it waits for {value}")
PING = Action("ping", frozenset({Job.RUNNING}), "only a running job pings", Job.RUNNING, internal=True)
FINISH = Action(
    "finish", frozenset({Job.RUNNING}), "only a running job finishes", Job.DONE, guards=(WAITING,)
)
RUN = Action("run", frozenset({Job.PENDING, Job.RUNNING}), "only an open job runs", Job.RUNNING)


def test_a_guard_refuses_by_another_column_and_names_its_value() -> None:
    machine = job_machine(FINISH)
    assert machine.path("finish", Job.RUNNING, facts={"blocked_on": None}) == [Job.DONE]
    with pytest.raises(InvalidTransition) as caught:
        machine.path("finish", Job.RUNNING, entity_id="j1", facts={"blocked_on": "a reviewer"})
    error = caught.value
    assert (error.action, error.from_state, error.to_state) == ("finish", "running", "done")
    assert str(error) == "job j1 is running: it waits for a reviewer"
    # The state is checked first: its refusal wins over the guard's.
    with pytest.raises(InvalidTransition, match="only a running job finishes"):
        machine.path("finish", Job.PENDING, facts={"blocked_on": "a reviewer"})
    assert not machine.allows("finish", Job.RUNNING, facts={"blocked_on": "x"})
    assert machine.allows("finish", Job.RUNNING, facts={"blocked_on": None})


def test_an_internal_action_checks_and_walks_nothing() -> None:
    machine = job_machine(PING)
    assert machine.path("ping", Job.RUNNING) == []
    with pytest.raises(InvalidTransition) as caught:
        machine.path("ping", Job.PENDING)
    assert (caught.value.action, caught.value.to_state) == ("ping", "running")
    with pytest.raises(InvalidMachine, match="walks no via"):
        job_machine(Action("ping", frozenset({Job.RUNNING}), "-", internal=True, via=Job.RUNNING))


def test_an_action_from_its_own_target_walks_nothing() -> None:
    machine = job_machine(RUN)  # running -> running is no edge: the row is there already
    assert machine.path("run", Job.PENDING) == [Job.RUNNING]
    assert machine.path("run", Job.RUNNING) == []


# --- every registered machine's actions ----------------------------------------------------------------

ACTIONS = [(m, a) for _, m in MACHINES for a in m.actions]


def _ids(item: tuple[Machine[StrEnum], Action[StrEnum]]) -> str:
    return f"{item[0].entity}.{item[1].name}"


def _facts(action: Action[StrEnum]) -> dict[str, object]:
    """Column values every guard of ``action`` accepts (a deadline, judged without a clock, any)."""
    return {g.column: next(iter(g.allowed)) if isinstance(g, Guard) else None for g in action.guards}


@pytest.mark.parametrize("item", ACTIONS, ids=[_ids(i) for i in ACTIONS])
def test_every_action_walks_table_edges_from_every_start_state_and_refuses_elsewhere(
    item: tuple[Machine[StrEnum], Action[StrEnum]],
) -> None:
    machine, action = item
    assert action.sources
    assert action.sources <= set(machine.states)
    for state in machine.states:
        failed_froms = (
            list(machine.retry_targets) if action.target is None and not action.internal else [None]
        )
        for failed_from in failed_froms:
            if state not in action.sources:
                with pytest.raises(InvalidTransition) as caught:
                    machine.path(action.name, state, failed_from, "x", _facts(action))
                error = caught.value
                assert (error.entity, error.action, error.from_state) == (machine.entity, action.name, state)
                continue
            path = machine.path(action.name, state, failed_from, "x", _facts(action))
            assert all(machine.can(a, b) for a, b in zip([state, *path], path, strict=False))
            if action.internal:
                assert path == []
            else:
                end = action.target
                if end is None:
                    assert failed_from is not None
                    end = machine.retry_targets[failed_from]
                assert (path[-1] if path else state) == end


# Typed from the services' rules, not derived from the machines: action -> (start
# states, target, internal).
WS = WorkflowStepStatus
WORKFLOW_STEP_ACTIONS = {
    "claim": ({"pending"}, "running", False),
    "open_gate": ({"pending"}, "running", False),
    "heartbeat": ({"running"}, "running", True),
    "complete": ({"running"}, "completed", False),
    "report_failure": ({"running"}, "failed", True),
    "approve": ({"running"}, "completed", False),
    "override": ({"running"}, "pending", False),
    "reject": ({"running"}, "failed", True),
    "time_out": ({"running"}, None, True),
    "retry": ({"running"}, "pending", False),
    "escalate": ({"running"}, None, True),
    "skip": ({"running"}, "skipped", False),
    "fail": ({"running"}, "failed", False),
}
RUNNING_WORKFLOW = {"executing", "blocked"}
WORKFLOW_ACTIONS = {
    "start": ({"idle"}, "queued", False),
    "promote": ({"queued"}, "executing", False),
    "settle": (RUNNING_WORKFLOW, None, True),
    "block": (RUNNING_WORKFLOW, "blocked", False),
    "resume": (RUNNING_WORKFLOW, "executing", False),
    "complete": (RUNNING_WORKFLOW, "completed", False),
    "fail": (RUNNING_WORKFLOW, "failed", False),
    "compensate": (RUNNING_WORKFLOW, "compensating", False),
    "time_out": (RUNNING_WORKFLOW, None, True),
    "cancel": (RUNNING_WORKFLOW, None, True),
    "rerun": ({"completed", "failed"}, None, True),
    "hand_out_step": ({"executing"}, None, True),
    "hand_out_compensation": ({"compensating"}, None, True),
    "roll_back": ({"compensating"}, "completed", False),
    "abandon_rollback": ({"compensating"}, "failed", False),
}
OPEN_PLAN = {"planning", "executing", "awaiting_review", "stalled"}
PLAN_ACTIONS = {
    "work": (OPEN_PLAN, None, True),
    "modify": ({"planning", "executing"}, None, True),
    "run": ({"planning", "stalled"}, "executing", False),
    "pause_for_review": ({"executing"}, "awaiting_review", False),
    "end_review": ({"awaiting_review"}, "executing", False),
    "stall": ({"executing"}, "stalled", False),
    "fail": (OPEN_PLAN, "failed", False),
}
PLAN_STEP_ACTIONS = {
    "submit_result": ({"pending", "in_progress"}, "completed", False),
    "request_review": ({"in_progress"}, "awaiting_input", False),
    "approve": ({"awaiting_input"}, "completed", False),
    "reject": ({"awaiting_input"}, "failed", False),
    "modify": ({"awaiting_input"}, "in_progress", False),
    "skip": ({"awaiting_input"}, "skipped", False),
    "fail": ({"pending", "in_progress"}, "failed", False),
    "start": ({"pending"}, "in_progress", False),
    "retry": ({"failed"}, "pending", False),
    "remove": ({"pending"}, None, True),
    "skip_by_branch": ({"pending"}, "skipped", False),
    "fail_with_plan": ({"pending", "in_progress", "awaiting_input"}, "failed", False),
}
COMPENSATION_ACTIONS = {
    "claim": ({"pending"}, "running", False),
    "complete": ({"running"}, "completed", False),
    "fail": ({"running"}, "failed", False),
}
DECLARED = [
    (WORKFLOW_STEP_MACHINE, WORKFLOW_STEP_ACTIONS),
    (WORKFLOW_MACHINE, WORKFLOW_ACTIONS),
    (COMPENSATION_MACHINE, COMPENSATION_ACTIONS),
    (PLAN_MACHINE, PLAN_ACTIONS),
    (STEP_MACHINE, PLAN_STEP_ACTIONS),
]


@pytest.mark.parametrize(("machine", "expected"), DECLARED, ids=[m.entity for m, _ in DECLARED])
def test_workflow_and_plan_machines_declare_exactly_these_actions(
    machine: Machine[StrEnum], expected: dict[str, tuple[set[str], str | None, bool]]
) -> None:
    declared = {
        a.name: ({s.value for s in a.sources}, a.target.value if a.target else None, a.internal)
        for a in machine.actions
    }
    assert declared == expected


def test_a_workers_report_on_a_step_that_waits_for_a_reviewer_is_refused_with_its_block() -> None:
    for report in ("heartbeat", "complete", "report_failure"):
        assert WORKFLOW_STEP_MACHINE.allows(report, WS.RUNNING, facts={"blocked_on": None})
        with pytest.raises(InvalidTransition) as caught:
            WORKFLOW_STEP_MACHINE.path(report, WS.RUNNING, entity_id="s1", facts={"blocked_on": "approval"})
        assert (
            str(caught.value)
            == "workflow_step s1 is running: it waits for a reviewer (approval), not for its agent"
        )
        with pytest.raises(InvalidTransition, match="only a running step takes a worker's report"):
            WORKFLOW_STEP_MACHINE.path(report, WS.PENDING, facts={"blocked_on": None})


@pytest.mark.parametrize(
    ("blocked_on", "decisions"),
    [(None, set()), ("approval", {"approve", "reject"}), ("governance", {"override", "reject"})],
)
def test_a_reviewer_decides_only_a_step_that_waits_for_one_and_as_its_block_says(
    blocked_on: str | None, decisions: set[str]
) -> None:
    allowed = {
        d
        for d in ("approve", "override", "reject")
        if WORKFLOW_STEP_MACHINE.allows(d, WS.RUNNING, facts={"blocked_on": blocked_on})
    }
    assert allowed == decisions
    for decision in ("approve", "override", "reject"):
        assert not WORKFLOW_STEP_MACHINE.allows(decision, WS.PENDING, facts={"blocked_on": blocked_on})


def test_entering_a_state_clears_and_stamps_what_the_machines_say() -> None:
    # A plan step's retry starts afresh; every workflow step move ends its back-off and deadline.
    assert STEP_MACHINE.clears == {StepStatus.PENDING: ("started_at", "completed_at", "failure_reason")}
    for state in WS:
        assert {"next_attempt_at", "timeout_at"} <= set(WORKFLOW_STEP_MACHINE.clears[state])
        assert ("blocked_on" in WORKFLOW_STEP_MACHINE.clears[state]) is (state is not WS.RUNNING)
    assert WORKFLOW_MACHINE.stamps[WorkflowStatus.QUEUED] == ("queued_at",)
    assert {
        s for s, cols in WORKFLOW_MACHINE.stamps.items() if "completed_at" in cols
    } == WORKFLOW_MACHINE.final


# --- deadlines: a guard on a time column, judged at the transaction's time ---------------------------

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SECOND = timedelta(seconds=1)


@pytest.mark.parametrize(
    ("expires_at", "live", "due"),
    [(None, True, False), (NOW + SECOND, True, False), (NOW, False, True), (NOW - SECOND, False, True)],
)
def test_an_asset_is_live_until_its_ttl_runs_out_and_only_then_due(
    expires_at: datetime | None, live: bool, due: bool
) -> None:
    facts = {"expires_at": expires_at}
    for action in ("accept", "reject"):
        assert ASSET_MACHINE.allows(action, ASSET_MACHINE.initial, facts=facts, now=NOW) is live
    assert ASSET_MACHINE.allows("expire", ASSET_MACHINE.initial, facts=facts, now=NOW) is due


def test_every_asset_act_but_expiry_refuses_past_the_ttl_and_names_expired() -> None:
    """The expiry rule is one guard on every act the asset takes (the timer's expire has its converse)."""
    for action in ASSET_MACHINE.actions:
        if action.name == "expire":
            continue
        start = next(iter(action.sources))
        failed_from = next(iter(ASSET_MACHINE.retry_targets)) if action.target is None else None
        with pytest.raises(InvalidTransition) as caught:
            ASSET_MACHINE.path(action.name, start, failed_from, "a", {"expires_at": NOW}, NOW)
        assert caught.value.to_state == "EXPIRED"
        assert (
            str(caught.value)
            == f"asset a is {start}: its TTL ran out at {NOW.isoformat()}; it is about to expire"
        )


def test_a_deadline_without_a_clock_refuses_nothing_and_wants_a_time() -> None:
    due = Deadline("at", True, "not yet")
    assert due.refuses(None) is None
    assert due.refuses(None, NOW) == "not yet"
    with pytest.raises(TypeError):
        due.refuses("2026-01-01", NOW)


def test_a_workflow_step_action_walks_at_most_one_edge() -> None:
    """step_act notes ``dependents`` on the action's target: every step action enters at most that one
    state (no ``via``, no retry target to choose)."""
    for action in WORKFLOW_STEP_MACHINE.actions:
        assert action.via is None
        assert action.internal or action.target is not None


def test_the_first_executing_starts_the_workflow_and_its_deadline() -> None:
    class Row:
        started_at: datetime | None = None
        timeout_seconds: float | None = 60.0

    row = Row()
    entering = WORKFLOW_MACHINE.computed[WorkflowStatus.EXECUTING]
    assert entering(row, NOW) == {"started_at": NOW, "timeout_at": NOW + timedelta(seconds=60)}
    row.started_at = NOW - SECOND  # resumed after a block: its start and deadline stand
    assert entering(row, NOW) == {}
