"""Failure handling (seed 002 §3): categories, retries with back-off, onFailure, governance escalation."""

from __future__ import annotations

from datetime import timedelta

from server.services.workflows.claims import ClaimOutcome
from tests.services.workflow_helpers import WorkflowFlight, no_retry, step, wf

EXPONENTIAL = {"maxRetries": 3, "backoff": "exponential", "initialDelay": "1s", "maxDelay": "60s"}


async def test_a_transient_error_is_retried_after_the_back_off_with_attempt_and_error_visible(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(wf(step("fetch", retryPolicy=EXPONENTIAL)))
    delays = []
    for attempt in (1, 2, 3):
        claimed = await workflows.claim_step()
        assert claimed.attempt == attempt
        await workflows.fail(claimed.id, "transient", f"rate limited #{attempt}")
        row = (await workflows.wf_steps(workflow_id))["fetch"]
        assert (row.status, row.attempt, row.last_error, row.last_error_category) == (
            "pending",
            attempt,
            f"rate limited #{attempt}",
            "transient",
        )
        assert row.next_attempt_at is not None
        delays.append((row.next_attempt_at - workflows.clock.now()).total_seconds())
        assert (await workflows.claim()).outcome is ClaimOutcome.NONE  # still backing off
        workflows.clock.advance(row.next_attempt_at - workflows.clock.now())
    assert delays == [1, 2, 4]
    last = await workflows.claim_step()
    await workflows.fail(last.id, "transient", "still rate limited")  # the 4th attempt: no retries left
    row = (await workflows.wf_steps(workflow_id))["fetch"]
    assert (row.status, row.attempt) == ("failed", 4)
    assert (await workflows.workflow(workflow_id)).status == "failed"
    transitions = await workflows.transitions(workflow_id, "workflow_step")
    assert transitions == [("pending", "running"), ("running", "pending")] * 3 + [
        ("pending", "running"),
        ("running", "failed"),
    ]
    scheduled = await workflows.events(root_id=workflow_id, kind="workflow_step_retry_scheduled")
    assert [(e.data["attempt"], e.data["delaySeconds"]) for e in scheduled] == [(2, 1.0), (3, 2.0), (4, 4.0)]


async def test_a_step_without_a_policy_gets_the_seeds_default_retries(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(1)
    claimed = await workflows.claim_step()
    await workflows.fail(claimed.id, "transient", "flaky")
    row = (await workflows.wf_steps(workflow_id))["s1"]
    assert row.status == "pending"
    assert row.next_attempt_at == workflows.clock.now() + timedelta(seconds=1)


async def test_the_timer_announces_a_retry_once_its_back_off_is_over(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("s", retryPolicy={**EXPONENTIAL, "initialDelay": "10s"})))
    await workflows.fail((await workflows.claim_step()).id, "transient")
    workflows.clock.advance(timedelta(seconds=9))
    assert (await workflows.timers()).retries_due == []
    workflows.clock.advance(timedelta(seconds=1))
    step_id = (await workflows.wf_steps(workflow_id))["s"].id
    assert (await workflows.timers()).retries_due == [step_id]
    assert (await workflows.timers()).retries_due == []  # announced once
    [due] = await workflows.events(root_id=workflow_id, kind="workflow_step_retry_due")
    assert due.data == {"stepName": "s", "attempt": 2}
    assert (await workflows.claim_step()).attempt == 2


async def test_agent_and_external_errors_retry_only_when_the_policy_opts_in(
    workflows: WorkflowFlight,
) -> None:
    opted = {**EXPONENTIAL, "retryOn": ["external"]}
    workflow_id = await workflows.running(
        wf(step("plain", onFailure="skip"), step("opted", retryPolicy=opted, onFailure="skip"))
    )
    plain, opted_step = await workflows.claim_step(), await workflows.claim_step()
    await workflows.fail(plain.id, "external", "API down")
    await workflows.fail(opted_step.id, "external", "API down")
    assert await workflows.step_states(workflow_id) == {"plain": "skipped", "opted": "pending"}


async def test_skip_lets_the_steps_after_it_run(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("a", onFailure="skip"), step("b", "a")))
    await workflows.fail((await workflows.claim_step()).id, "agent_error", "bad output")
    assert (await workflows.claim_step()).name == "b"
    a = (await workflows.wf_steps(workflow_id))["a"]
    assert (a.status, a.last_error_category, a.last_error) == ("skipped", "agent_error", "bad output")


async def test_abort_fails_the_workflow_and_cancels_running_steps(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("a", **no_retry()), step("b"), step("c", "a")))
    a, b = await workflows.claim_step(), await workflows.claim_step()
    seq = await workflows.last_seq()
    await workflows.fail(a.id, "validation", "schema mismatch")
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("failed", "failed")
    assert row.failure_reason == 'step "a" failed (validation): schema mismatch'
    assert await workflows.step_states(workflow_id) == {"a": "failed", "b": "failed", "c": "pending"}
    assert await workflows.kinds(workflow_id, after=seq) == [
        "workflow_step_failed",
        "workflow_step_transitioned",  # a: running -> failed
        "workflow_step_transitioned",  # b: cancelled
        "workflow_transitioned",  # executing -> failed
    ]
    assert (await workflows.wf_steps(workflow_id))["b"].id == b.id


async def test_a_governance_error_blocks_the_workflow_and_escalates(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("publish"), step("other")))
    publish, other = await workflows.claim_step(), await workflows.claim_step()
    await workflows.fail(publish.id, "governance", "policy forbids publishing PII")
    row = (await workflows.wf_steps(workflow_id))["publish"]
    assert (row.status, row.blocked_on, row.last_error_category) == ("running", "governance", "governance")
    assert (await workflows.workflow(workflow_id)).status == "blocked"
    [escalation] = await workflows.events(root_id=workflow_id, kind="workflow_escalated")
    assert escalation.data == {"stepName": "publish", "message": "policy forbids publishing PII"}
    # While blocked nothing new is handed out, but running steps still report.
    await workflows.complete(other.id)
    assert (await workflows.claim()).outcome is ClaimOutcome.NONE
    # The reviewer overrides the block: the step goes back to the workers.
    await workflows.approve(publish.id, "reviewed: no PII after all")
    assert (await workflows.workflow(workflow_id)).status == "executing"
    again = await workflows.claim_step()
    assert (again.name, again.attempt) == ("publish", 2)
    await workflows.complete(again.id)
    assert (await workflows.workflow(workflow_id)).outcome == "succeeded"


async def test_rejecting_an_escalation_fails_the_step_and_applies_on_failure(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(wf(step("publish", onFailure="skip"), step("after", "publish")))
    await workflows.fail((await workflows.claim_step()).id, "governance", "needs legal review")
    await workflows.reject((await workflows.wf_steps(workflow_id))["publish"].id, "legal says no")
    row = (await workflows.wf_steps(workflow_id))["publish"]
    assert (row.status, row.last_error) == ("skipped", "rejected by a reviewer: legal says no")
    assert (await workflows.workflow(workflow_id)).status == "executing"
    assert (await workflows.claim_step()).name == "after"
