"""A claim and a report cost the same however many steps the workflow has, and
the claim still picks exactly what ``ready_steps`` would when the ready step lies past many waiting ones."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy import event

from server.db.workflow_models import WorkflowStep
from server.services.runtime import Runtime
from server.services.workflows.claims import ClaimOutcome
from tests.services.workflow_helpers import WorkflowFlight, no_retry, step, wf


@contextmanager
def counted(runtime: Runtime) -> Iterator[dict[str, int]]:
    """SQL statements run and workflow step rows loaded into ORM objects."""
    counts = {"statements": 0, "step_rows": 0}

    def statement(*args: Any) -> None:
        counts["statements"] += 1

    def loaded(*args: Any) -> None:
        counts["step_rows"] += 1

    engine = runtime.db.write_engine.sync_engine
    event.listen(engine, "before_cursor_execute", statement)
    event.listen(WorkflowStep, "load", loaded)
    try:
        yield counts
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(WorkflowStep, "load", loaded)


async def claim_and_complete(workflows: WorkflowFlight, runtime: Runtime, workflow_id: str) -> dict[str, int]:
    with counted(runtime) as counts:
        claimed = await workflows.claim_step("w", workflow_id)
        await workflows.complete(claimed.id, "w")
    return counts


async def test_claim_and_complete_do_not_grow_with_the_workflow(
    workflows: WorkflowFlight, runtime: Runtime
) -> None:
    small = await workflows.running(wf(*(step(f"s{i}") for i in range(4)), name="small"))
    large = await workflows.running(wf(*(step(f"s{i}") for i in range(150)), name="large"))
    await claim_and_complete(workflows, runtime, small)  # warm caches
    few = await claim_and_complete(workflows, runtime, small)
    many = await claim_and_complete(workflows, runtime, large)
    assert few == many, (few, many)
    assert many["step_rows"] <= 3, many  # the claimed step, not the workflow's steps


async def test_a_step_timeout_reads_only_the_timed_out_step(
    workflows: WorkflowFlight, runtime: Runtime
) -> None:
    """A timer pass reads the running steps past their deadline, not every step of their workflow."""
    retry = {"maxRetries": 2, "backoff": "constant", "initialDelay": "10s"}
    first = step("a", heartbeatTimeout="30s", retryPolicy=retry)
    small = await workflows.running(wf(first, *(step(f"s{i}", "a") for i in range(4)), name="small"))
    large = await workflows.running(wf(first, *(step(f"s{i}", "a") for i in range(150)), name="large"))
    claimed = {await workflows.claim_step("w", w): w for w in (small, large)}
    workflows.clock.advance(timedelta(seconds=31))
    with counted(runtime) as counts:
        timed_out = (await workflows.timers()).steps_timed_out
    assert sorted(timed_out) == sorted(s.id for s in claimed), timed_out
    assert counts["step_rows"] == 2, counts  # the two timed-out steps, none of the 153 others
    for row, workflow_id in claimed.items():
        again = (await workflows.wf_steps(workflow_id))["a"]
        assert (again.status, again.last_error_category) == ("pending", "timeout"), row.id


async def test_the_last_completion_completes_the_workflow_counting_skipped_steps(
    workflows: WorkflowFlight,
) -> None:
    optional = step("optional", **no_retry(onFailure="skip"))
    workflow_id = await workflows.running(wf(optional, step("a"), step("b", "a", "optional")))
    skipped = await workflows.claim_step("w", workflow_id)
    await workflows.fail(skipped.id, agent="w")
    await workflows.run_named(workflow_id, "a")
    assert (await workflows.workflow(workflow_id)).status == "executing"  # b is still pending
    await workflows.run_named(workflow_id, "b")
    done = await workflows.workflow(workflow_id)
    assert (done.status, done.outcome) == ("completed", "succeeded")
    steps = await workflows.wf_steps(workflow_id)
    assert steps["optional"].status == "skipped"
    assert [steps[n].completion_order for n in "ab"] == [1, 2]


async def test_a_ready_step_behind_many_waiting_ones_is_found(workflows: WorkflowFlight) -> None:
    waiting = [step(f"b{i}", "a") for i in range(70)]  # more than one batch of candidates
    workflow_id = await workflows.running(wf(step("a"), *waiting, step("z")))
    a = await workflows.claim_step("w1", workflow_id)
    assert a.name == "a"
    assert (await workflows.claim_step("w2", workflow_id)).name == "z"
    assert (await workflows.claim("w3", workflow_id)).outcome is ClaimOutcome.NONE  # the b's wait for a
    await workflows.complete(a.id, "w1")
    assert (await workflows.claim_step("w3", workflow_id)).name == "b0"
