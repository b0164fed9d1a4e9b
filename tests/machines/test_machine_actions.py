"""Actions as data (issue 11 item 1): each machine names what may happen from which state and what it
walks; a path the table does not hold is refused when the machine is defined."""

from __future__ import annotations

from enum import StrEnum

import pytest

from server.machines.errors import InvalidMachine, InvalidTransition
from server.machines.machine import Action, Machine
from server.machines.mission import ASSET_MACHINE, HOP_MACHINE, MISSION_MACHINE, TOOL_STEP_MACHINE


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
