"""Workers on the services, both databases: claims that explain themselves, keys bound to agents,
heartbeat timeouts (fake clock, never sleeping)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from server.clock import FakeClock
from server.machines.retry import ErrorCategory
from server.services.runtime import Runtime
from server.services.workflows import claims as workflow_claims
from server.services.workflows import compensation as workflow_compensation
from server.services.workflows import create as workflow_create
from server.services.workflows import reports as workflow_reports
from server.services.workflows.claims import ClaimOutcome, ClaimWait
from tests.services.workflow_helpers import WorkflowFlight, seed_4_3_yaml, step, wf

RETRY_TWICE = {"maxRetries": 2, "backoff": "constant", "initialDelay": "10s"}


# -- a NONE claim says why, and when to come back --


async def test_a_none_claim_in_one_workflow_says_why(workflows: WorkflowFlight) -> None:
    idle = (await workflows.create_workflow(1)).workflow.id
    claim = await workflows.claim("w", idle)
    assert (claim.outcome, claim.reason, claim.retry_at) == (
        ClaimOutcome.NONE,
        ClaimWait.WORKFLOW_NOT_EXECUTING,
        None,
    )
    running = await workflows.running(wf(step("a"), step("b", "a")))
    await workflows.claim_step("w", running)
    claim = await workflows.claim("w", running)
    assert (claim.reason, claim.retry_at) == (ClaimWait.NOTHING_READY, None)


async def test_a_step_backing_off_gives_its_retry_time(workflows: WorkflowFlight) -> None:
    running = await workflows.running(wf(step("flaky", retryPolicy=RETRY_TWICE)))
    claimed = await workflows.claim_step("w", running)
    await workflows.fail(claimed.id, "transient", agent="w")
    due = workflows.clock.now() + timedelta(seconds=10)
    for workflow_id in (running, None):
        claim = await workflows.claim("w", workflow_id)
        assert (claim.outcome, claim.reason) == (ClaimOutcome.NONE, ClaimWait.BACKING_OFF)
        assert claim.retry_at == due
    # A step naming another agent is not this agent's reason to come back.
    other = await workflows.running(wf(step("theirs", agent="x", retryPolicy=RETRY_TWICE)))
    await workflows.fail((await workflows.claim_step("x", other)).id, "transient", agent="x")
    assert (await workflows.claim("w", other)).reason is ClaimWait.NOTHING_READY
    workflows.clock.advance(timedelta(seconds=10))
    assert (await workflows.claim("w")).outcome is ClaimOutcome.STEP


async def test_a_gate_and_a_queue_are_named(workflows: WorkflowFlight, settings_slots: None) -> None:
    gated = await workflows.running(wf(step("gate", approval=True)))
    assert (await workflows.workflow(gated)).status == "blocked"
    assert (await workflows.claim("w", gated)).reason is ClaimWait.WAITING_AT_GATE
    assert (await workflows.claim("w")).reason is ClaimWait.WAITING_AT_GATE
    queued = await workflows.running(1)  # the tenant's only slot is taken by the gated workflow
    assert (await workflows.workflow(queued)).status == "queued"
    assert (await workflows.claim("w", queued)).reason is ClaimWait.WORKFLOW_QUEUED
    assert (await workflows.claim("w")).reason is ClaimWait.WORKFLOW_QUEUED


@pytest.fixture
def settings_slots(runtime: Runtime) -> None:
    runtime.settings = runtime.settings.model_copy(update={"workflow_slots_per_tenant": 1})


# -- a key names the agents it acts as --


async def test_a_key_bound_to_agents_may_not_claim_or_report_as_another(workflows: WorkflowFlight) -> None:
    bound = workflows.as_(replace(workflows.principal, agents=frozenset({"alice", "bob"})))
    await workflows.running(wf(step("a"), step("b")))
    error = await bound.refused(lambda tx: workflow_claims.claim_work(tx, "mallory"))
    assert [(p.code, p.field) for p in error.problems] == [("FORBIDDEN", ["agent"])]
    claimed = await bound.claim_step("alice")
    theirs = await workflows.claim_step("mallory")  # an unbound key (or dev mode) is unchanged
    for report in (
        lambda tx: workflow_reports.complete_workflow_step(tx, theirs.id, "mallory"),
        lambda tx: workflow_reports.heartbeat_workflow_step(tx, theirs.id, "mallory"),
        lambda tx: workflow_reports.fail_workflow_step(tx, theirs.id, "mallory", ErrorCategory.EXTERNAL, "x"),
    ):
        error = await bound.refused(report)
        assert [(p.code, p.field) for p in error.problems] == [("FORBIDDEN", ["agent"])]
    await bound.complete(claimed.id, "alice")
    assert (await workflows.wf_steps(claimed.workflow_id))["b"].status == "running"


async def test_a_bound_key_reports_compensations_only_as_its_agents(workflows: WorkflowFlight) -> None:
    created = await workflows.create_yaml(seed_4_3_yaml())
    workflow_id = created.workflow.id
    await workflows.start_workflow(workflow_id)
    await workflows.run_named(workflow_id, "create-account")
    failing = await workflows.claim_step("worker", workflow_id)
    await workflows.fail(failing.id, "validation")
    assert (await workflows.workflow(workflow_id)).status == "compensating"
    growth = workflows.as_(replace(workflows.principal, agents=frozenset({"growth-optimizer"})))
    wrong = workflows.as_(replace(workflows.principal, agents=frozenset({"data-pipeline"})))
    error = await wrong.refused(lambda tx: workflow_claims.claim_work(tx, "growth-optimizer"))
    assert [p.code for p in error.problems] == ["FORBIDDEN"]
    claim = await growth.claim("growth-optimizer")
    assert claim.outcome is ClaimOutcome.COMPENSATION
    assert claim.compensation is not None
    comp_id = claim.compensation.id
    error = await wrong.refused(
        lambda tx: workflow_compensation.complete_compensation(tx, comp_id, "growth-optimizer")
    )
    assert [p.code for p in error.problems] == ["FORBIDDEN"]
    await growth.complete_compensation(comp_id, "growth-optimizer")
    assert (await workflows.workflow(workflow_id)).outcome == "rolled_back"


# -- heartbeat timeouts --


async def test_heartbeats_keep_a_step_alive_and_silence_times_it_out_then_retries(
    workflows: WorkflowFlight,
) -> None:
    doc = wf(step("long", timeout="1h", heartbeatTimeout="30s", retryPolicy=RETRY_TWICE))
    workflow_id = await workflows.running(doc)
    claimed = await workflows.claim_step("w1")
    assert claimed.timeout_at == workflows.clock.now() + timedelta(seconds=30)
    for _ in range(4):  # two minutes of heartbeats every 25 s: never timed out
        workflows.clock.advance(timedelta(seconds=25))
        report = await workflows.call(
            lambda tx: workflow_reports.heartbeat_workflow_step(tx, claimed.id, "w1", 1, {"done": 0.5})
        )
        assert report.step.timeout_at == workflows.clock.now() + timedelta(seconds=30)
        assert (await workflows.timers()).steps_timed_out == []
    assert (await workflows.wf_steps(workflow_id))["long"].progress == {"done": 0.5}
    workflows.clock.advance(timedelta(seconds=29))
    assert (await workflows.timers()).steps_timed_out == []
    workflows.clock.advance(timedelta(seconds=1))
    assert (await workflows.timers()).steps_timed_out == [claimed.id]
    row = (await workflows.wf_steps(workflow_id))["long"]
    assert (row.status, row.last_error_category, row.progress) == ("pending", "timeout", {"done": 0.5})
    assert "no heartbeat from w1 for 30s" in (row.last_error or "")
    timed_out = await workflows.events(kind="workflow_step_timed_out")
    assert [e.data.get("heartbeatTimeoutSeconds") for e in timed_out] == [30.0]
    failed = await workflows.events(kind="workflow_step_failed")
    assert [(e.data["category"], e.data["action"]) for e in failed] == [("timeout", "retry")]
    # The late worker is told the step is no longer its own; another worker takes the retry.
    error = await workflows.refused(lambda tx: workflow_reports.complete_workflow_step(tx, claimed.id, "w1"))
    assert [p.code for p in error.problems] == ["INVALID_TRANSITION"]
    assert (await workflows.claim("w2")).reason is ClaimWait.BACKING_OFF
    workflows.clock.advance(timedelta(seconds=10))
    retried = await workflows.claim_step("w2")
    assert (retried.id, retried.attempt, retried.progress) == (claimed.id, 2, None)


async def test_a_heartbeat_timeout_past_the_retries_applies_on_failure(workflows: WorkflowFlight) -> None:
    no_retries = {"maxRetries": 0, "backoff": "constant", "initialDelay": "1s"}
    doc = wf(step("a", heartbeatTimeout="10s", onFailure="skip", retryPolicy=no_retries), step("b", "a"))
    workflow_id = await workflows.running(doc)
    await workflows.claim_step("w1")
    workflows.clock.advance(timedelta(seconds=10))
    await workflows.timers()
    assert await workflows.step_states(workflow_id) == {"a": "skipped", "b": "pending"}


async def test_the_own_timeout_still_wins_and_is_never_retried(workflows: WorkflowFlight) -> None:
    doc = wf(step("a", timeout="1m", heartbeatTimeout="45s", onFailure="abort", retryPolicy=RETRY_TWICE))
    workflow_id = await workflows.running(doc)
    claimed = await workflows.claim_step("w1")
    workflows.clock.advance(timedelta(seconds=40))
    report = await workflows.heartbeat(claimed.id, "w1")
    started = claimed.started_at
    assert started is not None
    assert report.step.timeout_at == started + timedelta(minutes=1)  # capped by the step's own timeout
    workflows.clock.advance(timedelta(seconds=20))
    await workflows.timers()
    assert (await workflows.workflow(workflow_id)).status == "failed"
    assert "timed out after 1m" in ((await workflows.wf_steps(workflow_id))["a"].last_error or "")


async def test_an_escalated_step_owes_no_heartbeats(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("a", heartbeatTimeout="10s")))
    claimed = await workflows.claim_step("w1")
    await workflows.fail(claimed.id, "governance", agent="w1")
    workflows.clock.advance(timedelta(minutes=5))
    assert (await workflows.timers()).steps_timed_out == []
    assert (await workflows.workflow(workflow_id)).status == "blocked"


async def test_the_progress_payload_is_bounded(workflows: WorkflowFlight) -> None:
    await workflows.running(wf(step("a", heartbeatTimeout="10s")))
    claimed = await workflows.claim_step("w1")
    big = {"log": "x" * 5000}
    error = await workflows.refused(
        lambda tx: workflow_reports.heartbeat_workflow_step(tx, claimed.id, "w1", None, big)
    )
    assert [(p.code, p.field) for p in error.problems] == [("VALIDATION_FAILED", ["progress"])]


async def test_heartbeat_timeout_is_defined_in_yaml_and_refused_on_gates(workflows: WorkflowFlight) -> None:
    created = await workflows.create_yaml(
        "steps:\n  - name: a\n    heartbeatTimeout: 2m\n    timeout: 1h\n", name="hb"
    )
    assert created.steps[0].heartbeat_timeout_seconds == 120
    assert created.workflow.definition["spec"]["steps"][0]["heartbeatTimeout"] == "2m"
    error = await workflows.refused(
        lambda tx: workflow_create.create_workflow(tx, wf(step("g", approval=True, heartbeatTimeout="1m")))
    )
    assert [p.field for p in error.problems] == [["steps", "0", "heartbeatTimeout"]]


async def test_with_two_instances_a_heartbeat_timeout_fires_once(
    workflows: WorkflowFlight, runtime: Runtime, clock: FakeClock
) -> None:
    ids = []
    for _ in range(3):
        await workflows.running(wf(step("s", heartbeatTimeout="10s", retryPolicy=RETRY_TWICE)))
        ids.append((await workflows.claim_step("w")).id)
    clock.advance(timedelta(seconds=10))
    passes = await workflows.timers_on_two_instances()
    assert sorted(s for p in passes for s in p.steps_timed_out) == sorted(ids)
    assert len(await workflows.events(kind="workflow_step_timed_out")) == 3
    assert len(await workflows.events(kind="workflow_step_retry_scheduled")) == 3
