"""Workers pull work: dependencies, parallel branches, named agents, and real concurrent claims."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.db.engine import Database
from server.errors import ErrorCode
from server.limits import MAX_BATCH_STEPS
from server.services.runtime import Runtime, unit_of_work
from server.services.workflows import claims as workflow_claims
from server.services.workflows import reports as workflow_reports
from server.services.workflows.claims import Claim, ClaimOutcome, ClaimWait
from tests.services.workflow_helpers import WorkflowFlight, no_retry, step, wf

DIAMOND = wf(step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c"))


async def test_a_step_is_handed_out_only_when_its_dependencies_are_done(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(DIAMOND)
    a = await workflows.claim_step("w1")
    assert (a.name, a.status, a.attempt, a.claimed_by) == ("a", "running", 1, "w1")
    assert (await workflows.claim("w2")).outcome is ClaimOutcome.NONE  # b and c wait for a
    await workflows.complete(a.id, "w1", output={"rows": 3})
    # Parallel branches: b and c can be claimed at once, by two workers.
    b, c = await workflows.claim_step("w1"), await workflows.claim_step("w2")
    assert {b.name, c.name} == {"b", "c"}
    assert (await workflows.claim("w3")).outcome is ClaimOutcome.NONE  # d waits for both
    await workflows.complete(b.id, "w1")
    assert (await workflows.claim("w3")).outcome is ClaimOutcome.NONE
    await workflows.complete(c.id, "w2")
    d = await workflows.claim_step("w3")
    assert d.name == "d"
    steps = await workflows.wf_steps(workflow_id)
    assert steps["a"].output == {"rows": 3}
    assert [steps[n].completion_order for n in "abc"] == [1, 2, 3]
    claimed = await workflows.events(root_id=workflow_id, kind="workflow_step_claimed")
    assert [(e.data["stepName"], e.data["agent"]) for e in claimed] == [
        ("a", "w1"),
        ("b", "w1"),
        ("c", "w2"),
        ("d", "w3"),
    ]


async def test_a_step_naming_an_agent_goes_only_to_that_agent(workflows: WorkflowFlight) -> None:
    await workflows.running(wf(step("special", agent="analyst"), step("any")))
    assert (await workflows.claim_step("someone")).name == "any"
    assert (await workflows.claim("someone")).outcome is ClaimOutcome.NONE
    assert (await workflows.claim_step("analyst")).name == "special"


async def test_without_a_workflow_id_any_executing_workflow_of_the_tenant_serves(
    workflows: WorkflowFlight,
) -> None:
    first = await workflows.running(wf(step("only", agent="other")))
    second = await workflows.running(1)
    claim = await workflows.claim("worker")
    assert claim.workflow is not None
    assert (claim.workflow.id, claim.step.name if claim.step else None) == (second, "s1")
    assert (await workflows.claim("worker", first)).outcome is ClaimOutcome.NONE


async def test_a_report_from_another_worker_is_a_conflict(workflows: WorkflowFlight) -> None:
    await workflows.running(1)
    claimed = await workflows.claim_step("w1")
    error = await workflows.refused(lambda tx: workflow_reports.complete_workflow_step(tx, claimed.id, "w2"))
    assert [(p.code, p.field) for p in error.problems] == [("CONFLICT", ["agent"])]
    error = await workflows.refused(
        lambda tx: workflow_reports.complete_workflow_step(tx, claimed.id, "w1", attempt=2)
    )
    assert [(p.code, p.field) for p in error.problems] == [("CONFLICT", ["attempt"])]


async def test_heartbeat_records_time_and_leaves_the_deadline(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("slow", timeout="10m")))
    claimed = await workflows.claim_step()
    seq = await workflows.last_seq()
    workflows.clock.advance(timedelta(minutes=3))
    report = await workflows.heartbeat(claimed.id)
    assert report.step.heartbeat_at == workflows.clock.now()
    assert report.step.timeout_at == claimed.timeout_at
    assert await workflows.last_seq() == seq  # no event: a heartbeat is not a state change
    assert (await workflows.workflow(workflow_id)).status == "executing"


async def _race(runtime: Runtime, principal: Principal, workers: int, workflow_id: str | None) -> list[Claim]:
    async def worker(i: int) -> Claim:
        async with unit_of_work(runtime, principal) as tx:
            return await workflow_claims.claim_work(tx, f"w{i}", workflow_id)

    return list(await asyncio.gather(*(worker(i) for i in range(workers))))


async def test_concurrent_claims_hand_every_step_to_exactly_one_worker(
    workflows: WorkflowFlight, runtime: Runtime, principal: Principal, clock: FakeClock
) -> None:
    width = 8
    workflow_id = await workflows.running(wf(*[step(f"p{i}") for i in range(width)]))
    other_id = await workflows.running(wf(*[step(f"q{i}") for i in range(width)]))
    # Two runtimes on one database, like two server processes, each with its own connections.
    second = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)
    try:
        claims = await asyncio.gather(
            _race(runtime, principal, 12, workflow_id),
            _race(second, principal, 12, workflow_id),
            _race(runtime, principal, 10, None),
            _race(second, principal, 10, None),
        )
    finally:
        await second.db.dispose()
    flat = [c for batch in claims for c in batch]
    steps = [c.step for c in flat if c.step is not None]
    assert Counter(c.outcome for c in flat) == {
        ClaimOutcome.STEP: 2 * width,
        ClaimOutcome.NONE: 44 - 2 * width,
    }
    assert len({s.id for s in steps}) == 2 * width
    states = {**await workflows.wf_steps(workflow_id), **await workflows.wf_steps(other_id)}
    assert {s.status for s in states.values()} == {"running"}
    assert {s.attempt for s in states.values()} == {1}
    holders = {s.id: s.claimed_by for s in states.values()}
    assert all(holders[c.step.id] == c.step.claimed_by for c in flat if c.step is not None)
    claimed_events = await workflows.events(kind="workflow_step_claimed")
    assert Counter(e.entity_id for e in claimed_events) == dict.fromkeys(holders, 1)
    await workflows.assert_seq_gap_free()


# -- claimWorkflowSteps: several steps in one call --


async def claim_many(
    workflows: WorkflowFlight, agent: str, max_steps: int, workflow_id: str | None = None
) -> list[Claim]:
    return await workflows.call(lambda tx: workflow_claims.claim_many(tx, agent, workflow_id, max_steps))


async def test_a_batch_claim_hands_out_only_ready_steps_each_with_its_own_attempt_and_event(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(
        wf(step("a"), step("b"), step("c", "a"), step("d"), step("e", agent="analyst"))
    )
    claims = await claim_many(workflows, "w1", 10, workflow_id)
    # c waits for a; e is the analyst's: the three ready ones, in definition order, nothing more.
    assert [(c.outcome, c.step.name if c.step else None) for c in claims] == [
        (ClaimOutcome.STEP, "a"),
        (ClaimOutcome.STEP, "b"),
        (ClaimOutcome.STEP, "d"),
    ]
    steps = await workflows.wf_steps(workflow_id)
    assert {n: (steps[n].status, steps[n].attempt, steps[n].claimed_by) for n in "abd"} == {
        n: ("running", 1, "w1") for n in "abd"
    }
    assert (steps["c"].status, steps["e"].status) == ("pending", "pending")
    claimed = await workflows.events(root_id=workflow_id, kind="workflow_step_claimed")
    assert [(e.data["stepName"], e.data["attempt"]) for e in claimed] == [("a", 1), ("b", 1), ("d", 1)]
    # Nothing more for w1: one NONE that says why; the analyst still gets its step.
    again = await claim_many(workflows, "w1", 10, workflow_id)
    assert [(c.outcome, c.reason) for c in again] == [(ClaimOutcome.NONE, ClaimWait.NOTHING_READY)]
    assert [c.step.name for c in await claim_many(workflows, "analyst", 10) if c.step] == ["e"]


async def test_a_batch_claim_stops_at_max_steps_and_crosses_workflows_oldest_first(
    workflows: WorkflowFlight,
) -> None:
    first = await workflows.running(2)
    workflows.clock.advance(timedelta(seconds=1))
    second = await workflows.running(3)
    claims = await claim_many(workflows, "w", 4)
    assert [(c.workflow.id if c.workflow else None) for c in claims] == [first, first, second, second]
    assert [c.step.name for c in claims if c.step] == ["s1", "s2", "s1", "s2"]
    assert [c.step.name for c in await claim_many(workflows, "w", 4) if c.step] == ["s3"]


async def test_a_batch_claim_hands_out_a_compensation_alone(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(
        wf(
            step("a", onFailure="compensate"),
            step("b", "a", onFailure="compensate", **no_retry()),
            compensation=[{"step": "a", "action": "undo a", "agent": "w"}],
        )
    )
    (a,) = [c.step for c in await claim_many(workflows, "w", 5, workflow_id) if c.step]
    await workflows.complete(a.id, "w")
    (b,) = [c.step for c in await claim_many(workflows, "w", 5, workflow_id) if c.step]
    await workflows.fail(b.id, "validation", agent="w")
    claims = await claim_many(workflows, "w", 5, workflow_id)
    assert [c.outcome for c in claims] == [ClaimOutcome.COMPENSATION]
    assert claims[0].compensation is not None
    assert claims[0].compensation.step_name == "a"


@pytest.mark.parametrize("max_steps", [0, -1, MAX_BATCH_STEPS + 1])
async def test_max_steps_out_of_range_is_refused_and_nothing_is_written(
    workflows: WorkflowFlight, max_steps: int
) -> None:
    workflow_id = await workflows.running(3)
    error = await workflows.refused(
        lambda tx: workflow_claims.claim_many(tx, "w", workflow_id, max_steps), ErrorCode.VALIDATION_FAILED
    )
    assert [p.field for p in error.problems] == [["maxSteps"]]


async def test_concurrent_batch_claims_never_hand_out_a_step_twice(
    workflows: WorkflowFlight, runtime: Runtime, principal: Principal, clock: FakeClock
) -> None:
    workflow_id = await workflows.running(40)
    # Two runtimes on one database, like two server processes, each with its own connections.
    second = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)

    async def worker(i: int) -> list[Claim]:
        async with unit_of_work(second if i % 2 else runtime, principal) as tx:
            return await workflow_claims.claim_many(tx, f"w{i}", workflow_id if i % 3 else None, 3)

    try:
        batches = await asyncio.gather(*(worker(i) for i in range(16)))
    finally:
        await second.db.dispose()
    names = [c.step.name for batch in batches for c in batch if c.step is not None]
    assert sorted(names) == sorted(f"s{i + 1}" for i in range(40))  # 48 asked for, each of 40 once
    states = await workflows.wf_steps(workflow_id)
    assert {(s.status, s.attempt) for s in states.values()} == {("running", 1)}
    claimed = await workflows.events(root_id=workflow_id, kind="workflow_step_claimed")
    assert Counter(e.entity_id for e in claimed) == {s.id: 1 for s in states.values()}
    await workflows.assert_seq_gap_free()
