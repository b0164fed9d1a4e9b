"""The workflow timer (seed 002 §3.4) on both databases, driven by the fake clock; never sleeping."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.errors import ErrorCode
from server.loops.workflow_timers import TIMER
from server.services.runtime import Runtime
from server.services.workflows import reports as workflow_reports
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.processes import until
from tests.services.workflow_helpers import WorkflowFlight, step, wf

RETRYING = {
    "maxRetries": 5,
    "backoff": "constant",
    "initialDelay": "1s",
    "retryOn": ["transient", "external"],
}


@pytest.fixture
def workflows(runtime: Runtime, principal: Principal, clock: FakeClock) -> WorkflowFlight:
    return WorkflowFlight(runtime, principal, clock)


async def test_a_step_timeout_fails_the_step_without_retry_and_applies_on_failure(
    workflows: WorkflowFlight, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(
        wf(step("slow", timeout="5m", onFailure="skip", retryPolicy=RETRYING), step("next", "slow"))
    )
    claimed = await workflows.claim_step()
    assert claimed.timeout_at == clock.now() + timedelta(minutes=5)
    clock.advance(timedelta(minutes=4, seconds=59))
    assert (await workflows.timers()).steps_timed_out == []
    clock.advance(timedelta(seconds=1))
    assert (await workflows.timers()).steps_timed_out == [claimed.id]
    row = (await workflows.wf_steps(workflow_id))["slow"]
    assert (row.status, row.attempt, row.last_error_category) == ("skipped", 1, "timeout")
    assert row.last_error == "the step timed out after 5m"
    [event] = await workflows.events(root_id=workflow_id, kind="workflow_step_timed_out")
    assert event.actor == TIMER
    assert (await workflows.claim_step()).name == "next"
    assert (await workflows.timers()).steps_timed_out == []


async def test_a_step_timeout_with_abort_fails_the_workflow(
    workflows: WorkflowFlight, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(wf(step("slow", timeout="1m")))
    await workflows.claim_step()
    clock.advance(timedelta(minutes=2))
    await workflows.timers()
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("failed", "failed")
    assert row.failure_reason == 'step "slow" failed (timeout): the step timed out after 1m'


async def test_a_late_report_after_a_timeout_is_refused(workflows: WorkflowFlight, clock: FakeClock) -> None:
    await workflows.running(wf(step("slow", timeout="1m", onFailure="skip"), step("other")))
    slow = await workflows.claim_step()
    clock.advance(timedelta(minutes=2))
    await workflows.timers()
    error = await workflows.refused(
        lambda tx: workflow_reports.complete_workflow_step(tx, slow.id, "worker"),
        ErrorCode.INVALID_TRANSITION,
    )
    assert error.problems[0].from_state == "skipped"


async def test_the_workflow_timeout_counts_blocked_time_and_follows_the_failure_policy(
    workflows: WorkflowFlight, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(
        wf(
            step("a"),
            step("gate", "a", approval=True),
            timeout="30m",
            failurePolicy="compensate",
            compensation=[{"step": "a", "action": "undo a", "agent": "janitor"}],
        )
    )
    assert (await workflows.workflow(workflow_id)).timeout_at == clock.now() + timedelta(minutes=30)
    clock.advance(timedelta(minutes=10))
    await workflows.run_named(workflow_id, "a")
    assert (await workflows.workflow(workflow_id)).status == "blocked"
    clock.advance(timedelta(minutes=20))  # 20 minutes waiting for a reviewer: 30 in all
    done = await workflows.timers()
    assert done.workflows_timed_out == [workflow_id]
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.failure_reason) == ("compensating", "the workflow timed out after 30m")
    # blocked -> compensating has no edge: the table is walked, never widened.
    assert (await workflows.transitions(workflow_id))[-2:] == [
        ("blocked", "executing"),
        ("executing", "compensating"),
    ]
    gate = (await workflows.wf_steps(workflow_id))["gate"]
    assert (gate.status, gate.last_error) == ("failed", "cancelled: the workflow is compensating")
    assert [c.step_name for c in await workflows.compensations(workflow_id)] == ["a"]
    [event] = await workflows.events(root_id=workflow_id, kind="workflow_timed_out")
    assert event.data == {"timeoutSeconds": 1800.0, "failurePolicy": "compensate", "wasBlocked": True}
    clock.advance(timedelta(hours=1))
    assert (await workflows.timers()).workflows_timed_out == []  # compensation has no deadline


async def test_the_workflow_timeout_overrides_a_later_step_timeout(
    workflows: WorkflowFlight, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(wf(step("long", timeout="1h", onFailure="skip"), timeout="10m"))
    await workflows.claim_step()
    clock.advance(timedelta(hours=2))  # both deadlines passed: the workflow's decides
    done = await workflows.timers()
    assert (done.workflows_timed_out, done.steps_timed_out) == ([workflow_id], [])
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("failed", "failed")


async def test_a_blocked_step_that_times_out_fails_the_workflow(
    workflows: WorkflowFlight, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(wf(step("gate", approval=True, timeout="1h", onFailure="skip")))
    assert (await workflows.workflow(workflow_id)).status == "blocked"
    clock.advance(timedelta(hours=1))
    gate_id = (await workflows.wf_steps(workflow_id))["gate"].id
    assert (await workflows.timers()).steps_timed_out == [gate_id]
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("failed", "failed")
    assert (await workflows.transitions(workflow_id))[-1] == ("blocked", "failed")
    gate = (await workflows.wf_steps(workflow_id))["gate"]
    assert (gate.status, gate.last_error_category) == ("failed", "timeout")


async def test_a_blocked_gate_that_times_out_under_compensate_compensates_like_a_workflow_timeout(
    workflows: WorkflowFlight, clock: FakeClock
) -> None:
    # Seed 002 §1 enters failed only when failurePolicy != compensate; the gate's timeout is the
    # workflow's failure here, so the workflow's policy decides, as for the workflow's own timeout.
    workflow_id = await workflows.running(
        wf(
            step("a"),
            step("gate", "a", approval=True, timeout="1h", onFailure="skip"),
            failurePolicy="compensate",
            compensation=[{"step": "a", "action": "undo a", "agent": "janitor"}],
        )
    )
    await workflows.run_named(workflow_id, "a")
    assert (await workflows.workflow(workflow_id)).status == "blocked"
    clock.advance(timedelta(hours=1))
    gate_id = (await workflows.wf_steps(workflow_id))["gate"].id

    assert (await workflows.timers()).steps_timed_out == [gate_id]

    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("compensating", None)
    assert row.failure_reason == 'step "gate" timed out while the workflow was blocked'
    # blocked -> compensating has no edge: the table is walked, never widened.
    assert (await workflows.transitions(workflow_id))[-2:] == [
        ("blocked", "executing"),
        ("executing", "compensating"),
    ]
    gate = (await workflows.wf_steps(workflow_id))["gate"]
    assert (gate.status, gate.last_error_category) == ("failed", "timeout")
    assert [c.step_name for c in await workflows.compensations(workflow_id)] == ["a"]


async def test_with_two_instances_every_timer_fires_once(
    workflows: WorkflowFlight, runtime: Runtime, clock: FakeClock
) -> None:
    timed = [
        await workflows.running(wf(step("s", timeout="1m", onFailure="skip"), step("t", "s")))
        for _ in range(3)
    ]
    for _ in timed:
        await workflows.claim_step()
    whole = await workflows.running(wf(step("x"), timeout="1m"))
    retrying = await workflows.running(wf(step("r", retryPolicy={**RETRYING, "initialDelay": "30s"})))
    await workflows.fail((await workflows.claim_step(workflow_id=retrying)).id, "transient")
    clock.advance(timedelta(minutes=2))
    passes = await workflows.timers_on_two_instances()
    assert sum(len(p.steps_timed_out) for p in passes) == 3
    assert sum(len(p.workflows_timed_out) for p in passes) == 1
    assert sum(len(p.retries_due) for p in passes) == 1
    assert len(await workflows.events(kind="workflow_step_timed_out")) == 3
    assert len(await workflows.events(kind="workflow_timed_out")) == 1
    assert len(await workflows.events(kind="workflow_step_retry_due")) == 1
    assert (await workflows.workflow(whole)).status == "failed"
    states = [await workflows.step_states(w) for w in timed]
    assert [s["s"] for s in states] == ["skipped"] * 3


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, workflow_timer_interval_seconds=0.05)


async def test_the_server_runs_the_timer_loop_on_its_own(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    definition = {"name": "t", "steps": [{"name": "slow", "timeout": "1m", "onFailure": "SKIP"}]}
    created = (await client.execute(ops.CREATE, {"input": definition}))["createWorkflow"]
    workflow_id = created["workflow"]["id"]
    await client.execute(ops.START, {"id": workflow_id})
    await client.execute(ops.CLAIM, {"agent": "w"})
    live_server.clock.advance(timedelta(minutes=1))

    async def finished() -> bool:
        return (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]["outcome"] is not None

    # Only the loop's interval (50 ms) is waited for, never the timeout itself; bounded by a deadline.
    await until(finished, 20, "the server's timer loop timing the step out")
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    assert (workflow["status"], workflow["outcome"]) == ("COMPLETED", "SUCCEEDED")
    assert ops.steps_by_name(workflow)["slow"]["status"] == "SKIPPED"
