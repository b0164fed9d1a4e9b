"""Completions of one workflow's steps in one transaction, and what a claim and a completion cost in
SQL statements."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy import event

from server.errors import ErrorCode, ServiceError
from server.services.runtime import Runtime, Tx, unit_of_work
from server.services.workflows import claims as workflow_claims
from server.services.workflows import reports as workflow_reports
from server.services.workflows.reports import Completion, StepReport
from tests.services.workflow_helpers import WorkflowFlight, step, wf

T = TypeVar("T")


async def complete_many(
    workflows: WorkflowFlight, items: list[Completion], agent: str = "w"
) -> list[StepReport | ServiceError]:
    return await workflows.call(lambda tx: workflow_reports.complete_workflow_steps(tx, agent, items))


def codes(results: list[StepReport | ServiceError]) -> list[str | None]:
    return [r.problems[0].code.value if isinstance(r, ServiceError) else None for r in results]


async def test_completions_of_one_workflow_share_one_transaction_and_one_settle(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(3)
    claims = await workflows.call(lambda tx: workflow_claims.claim_many(tx, "w", workflow_id, 3))
    seq0 = await workflows.last_seq()
    results = await complete_many(
        workflows, [Completion(c.step.id, {"n": i}, 1) for i, c in enumerate(claims) if c.step]
    )
    assert codes(results) == [None, None, None]
    steps = await workflows.wf_steps(workflow_id)
    assert [(s.status, s.output, s.completion_order) for s in steps.values()] == [
        ("completed", {"n": 0}, 1),
        ("completed", {"n": 1}, 2),
        ("completed", {"n": 2}, 3),
    ]
    # Every step's transition, then the workflow's completion once, all in the one transaction.
    events = [e for e in await workflows.events(root_id=workflow_id) if e.seq > seq0]
    assert [(e.entity_type, e.to_state) for e in events] == [
        ("workflow_step", "completed"),
        ("workflow_step", "completed"),
        ("workflow_step", "completed"),
        ("workflow", "completed"),
    ]
    assert (await workflows.workflow(workflow_id)).outcome == "succeeded"


async def test_a_refused_completion_in_a_batch_writes_nothing_and_the_others_complete(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(4)
    s1, s2, s3, s4 = [
        c.step
        for c in await workflows.call(lambda tx: workflow_claims.claim_many(tx, "w", workflow_id, 4))
        if c.step
    ]
    seq0 = await workflows.last_seq()
    results = await complete_many(
        workflows,
        [
            Completion(s1.id, None, 1),
            Completion(s2.id, None, 2),  # not the attempt it is on
            Completion(s1.id, None, 1),  # the same step again: completed a moment ago
            Completion("not-an-id"),
            Completion(s4.id, "x" * (workflows.runtime.settings.max_result_bytes + 1)),
            Completion(s3.id, {"ok": True}),
        ],
    )
    assert codes(results) == [
        None,
        "CONFLICT",
        "INVALID_TRANSITION",
        "VALIDATION_FAILED",
        "VALIDATION_FAILED",
        None,
    ]
    assert [r.problems[0].field for r in results if isinstance(r, ServiceError)] == [
        ["attempt"],
        ["stepId"],
        ["stepId"],
        ["output"],
    ]
    assert await workflows.step_states(workflow_id) == {
        "s1": "completed",
        "s2": "running",
        "s3": "completed",
        "s4": "running",
    }
    steps = await workflows.wf_steps(workflow_id)
    assert (steps["s2"].output, steps["s4"].output, steps["s3"].output) == (None, None, {"ok": True})
    completed = [e.entity_id for e in await workflows.events(root_id=workflow_id) if e.seq > seq0]
    assert completed == [s1.id, s3.id]  # nothing of the refused items, and the workflow runs on


async def test_a_batch_across_workflows_completes_each_run_in_its_own_transaction(
    workflows: WorkflowFlight,
) -> None:
    first = await workflows.running(2)
    second = await workflows.running(wf(step("t1"), step("t2"), name="second"))
    a1, a2 = [
        c.step
        for c in await workflows.call(lambda tx: workflow_claims.claim_many(tx, "w", first, 2))
        if c.step
    ]
    b1, b2 = [
        c.step
        for c in await workflows.call(lambda tx: workflow_claims.claim_many(tx, "w", second, 2))
        if c.step
    ]
    # The service stops before the first step of another workflow (it holds one workflow's lock).
    taken = await complete_many(workflows, [Completion(a1.id), Completion(b1.id), Completion(a2.id)])
    assert codes(taken) == [None]
    assert await workflows.step_states(first) == {"s1": "completed", "s2": "running"}
    assert await workflows.step_states(second) == {"t1": "running", "t2": "running"}
    rest = await complete_many(workflows, [Completion(b1.id), Completion(b2.id), Completion(a2.id)])
    assert codes(rest) == [None, None]
    assert (await workflows.workflow(second)).status == "completed"
    assert (await workflows.workflow(first)).status == "executing"


async def test_a_completion_for_another_agent_in_a_batch_is_a_conflict(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(2)
    mine = await workflows.claim_step("w", workflow_id)
    theirs = await workflows.claim_step("other", workflow_id)
    results = await complete_many(workflows, [Completion(theirs.id), Completion(mine.id)])
    assert codes(results) == ["CONFLICT", None]
    assert await workflows.step_states(workflow_id) == {"s1": "completed", "s2": "running"}


async def test_a_claim_finds_a_ready_step_behind_many_waiting_ones(workflows: WorkflowFlight) -> None:
    """The first candidate read is small; a ready step after more waiting ones than it holds is found."""
    waiting = [step(f"b{i}", "a") for i in range(20)]
    workflow_id = await workflows.running(wf(step("a"), *waiting, step("c")))
    assert (await workflows.claim_step("w", workflow_id)).name == "a"
    assert (await workflows.claim_step("w", workflow_id)).name == "c"
    none = await workflows.claim("w", workflow_id)
    assert none.step is None


@contextmanager
def counted(runtime: Runtime) -> Iterator[list[str]]:
    """The SQL statements the runtime's write engine sends while the block runs."""
    seen: list[str] = []
    engine = runtime.db.write_engine.sync_engine

    def count(conn: object, cursor: object, statement: str, *args: object) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


async def test_a_claim_and_a_completion_cost_a_few_statements_however_many_steps(
    workflows: WorkflowFlight,
) -> None:
    """Regression guard on what one claim and one completion send to the database (on SQLite the
    lock is BEGIN IMMEDIATE and a joined read; PostgreSQL reads the root's id, locks it, reads the
    child). A batch adds only per-step reads and writes, never another settle or event write."""
    sqlite = workflows.runtime.db.is_sqlite
    workflow_id = await workflows.running(200)

    async def run(fn: Callable[[Tx], Awaitable[T]]) -> tuple[T, list[str]]:
        # Not through workflows.call: its checks read through the same engine on PostgreSQL.
        with counted(workflows.runtime) as statements:
            async with unit_of_work(workflows.runtime, workflows.principal) as tx:
                result = await fn(tx)
        return result, statements

    (one,), claim_one = await run(lambda tx: workflow_claims.claim_many(tx, "w", workflow_id, 1))
    four, claim_four = await run(lambda tx: workflow_claims.claim_many(tx, "w", workflow_id, 4))
    assert one.step is not None
    assert len(four) == 4
    step_one = one.step.id
    _, complete_one = await run(
        lambda tx: workflow_reports.complete_workflow_steps(tx, "w", [Completion(step_one)])
    )
    items = [Completion(c.step.id) for c in four if c.step]
    _, complete_four = await run(lambda tx: workflow_reports.complete_workflow_steps(tx, "w", items))
    # lock, candidates, the chosen rows, the update(s), seq counter, events (+ BEGIN on SQLite; on
    # PostgreSQL the counter and the events are one statement)
    assert len(claim_one) == (7 if sqlite else 5), claim_one
    assert len(claim_four) == len(claim_one), claim_four  # one read and one executemany for the four
    # lock, last completion number, one probe for settling, update, seq counter, events (+ BEGIN on
    # SQLite; on PostgreSQL the lock is two: the root found through the step and locked, the step, and
    # the counter and the events one statement)
    assert len(complete_one) == (7 if sqlite else 6), complete_one
    # the further steps: one read of their rows, whatever their number (the updates go as one
    # executemany, as nothing is read between them)
    assert len(complete_four) == len(complete_one) + 1, complete_four
    assert sum(s.startswith("UPDATE workflow_steps") for s in complete_four) == 1, complete_four
    for statements in (complete_one, complete_four):
        assert sum("EXISTS" in s for s in statements) == 1  # one settle
        log = ("INSERT INTO tenant_counters", "INSERT INTO events") if sqlite else ("WITH counter AS",)
        for start in log:
            assert sum(s.startswith(start) for s in statements) == 1


async def test_a_completion_refused_as_a_whole_call_writes_nothing(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(1)
    s1 = await workflows.claim_step("w", workflow_id)
    error = await workflows.refused(
        lambda tx: workflow_reports.complete_workflow_step(tx, s1.id, "w", None, 2), ErrorCode.CONFLICT
    )
    assert [p.field for p in error.problems] == [["attempt"]]
