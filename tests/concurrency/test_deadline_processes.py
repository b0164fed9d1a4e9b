"""Decision deadlines with two timer processes on one PostgreSQL database ("exactly
once with several server processes").

Two child processes (``deadline_timer_process``), each a runtime with its own connections and its own
fake clock standing at the same instant, run the decision timer's passes at the same moment. Time moves
across processes the only way it can here: each child's clock is set to the test clock's instant when it
starts. First at ten minutes (half the decisions are due for escalation), then at one hour (every
deadline has passed): each escalation and each default must be applied exactly once — one event each,
by the timer, with its reason — whichever process got there first.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from server.auth import Principal
from server.clock import FakeClock
from server.db.decision_models import Decision
from server.events.decision_kinds import DecisionEvent
from server.loops.decision_deadlines import TIMER
from server.machines.decision import DecisionKind, Outcome, Terms
from server.services.decisions.policies import PolicyKey, Scope, request_terms, set_policy
from server.services.plans import review as plan_review
from server.services.runtime import Runtime, Tx
from tests.realtime.processes import REPO
from tests.services.helpers import Flight

on_postgres = pytest.mark.parametrize(
    "db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
REVIEWS = 40
PASSES = 3
HOUR = 3600.0
ESCALATING = Terms(
    deadline_seconds=HOUR,
    default_outcome=Outcome.APPROVE,
    assignee="user:alice",
    escalate_after_seconds=600,
    escalation_role="admin",
)


async def _review(flight: Flight, terms: Terms | None) -> str:
    created = await flight.create(2)
    started = await flight.start(created.plan.id)
    assert started.step is not None
    step_id = started.step.id

    async def request(tx: Tx) -> object:
        if terms is not None:
            request_terms(tx, step_id, DecisionKind.PLAN_REVIEW, terms)
        return await plan_review.request_user_review(tx, step_id, "look", [])

    await flight.call(request)
    return step_id


async def _two_timer_processes(url: str, clock: FakeClock) -> list[dict[str, Any]]:
    """Both children connected, then told to go at once; what each one did."""
    argv = [sys.executable, "-m", "tests.concurrency.deadline_timer_process"]
    children = [
        await asyncio.create_subprocess_exec(
            *argv,
            url,
            clock.now().isoformat(),
            str(PASSES),
            cwd=REPO,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        for _ in range(2)
    ]
    try:
        for child in children:
            assert child.stdout is not None
            line = await asyncio.wait_for(child.stdout.readline(), 60)
            assert line.strip() == b"ready", line
        for child in children:
            assert child.stdin is not None
            child.stdin.write(b"go\n")
            await child.stdin.drain()
        outputs = [await asyncio.wait_for(child.communicate(), 120) for child in children]
        assert [child.returncode for child in children] == [0, 0]
        return [json.loads(out.decode().strip().splitlines()[-1]) for out, _ in outputs]
    finally:
        for child in children:
            if child.returncode is None:
                child.kill()
                await child.wait()


def _exactly_once(done: list[dict[str, Any]], name: str, expected: set[str]) -> Counter[int]:
    """Every id in ``expected`` done by exactly one process, once; how many each process did."""
    ids = [d for result in done for d in result[name]]
    assert Counter(ids) == Counter(expected), name
    return Counter({i: len(result[name]) for i, result in enumerate(done)})


@on_postgres
async def test_two_timer_processes_apply_each_escalation_and_default_exactly_once(
    runtime: Runtime, principal: Principal, clock: FakeClock
) -> None:
    flight = Flight(runtime, principal, clock)
    tenant = Terms(deadline_seconds=HOUR, default_outcome=Outcome.APPROVE)
    await flight.call(lambda tx: set_policy(tx, PolicyKey(Scope.TENANT, "", None), tenant))
    steps = [await _review(flight, ESCALATING if i % 2 else None) for i in range(REVIEWS)]
    decisions = {
        d.subject_id: d
        for d in await flight.read(
            lambda s: s.scalars(select(Decision).where(Decision.subject_id.in_(steps)))
        )
    }
    assert sorted(decisions) == sorted(steps)
    escalating = {decisions[s].id for i, s in enumerate(steps) if i % 2}
    url = runtime.settings.database_url

    clock.advance(timedelta(minutes=10))
    first = await _two_timer_processes(url, clock)
    _exactly_once(first, "escalated", escalating)
    _exactly_once(first, "defaulted", set())
    escalated = await flight.events(kind=DecisionEvent.ESCALATED.value)
    assert Counter(e.entity_id for e in escalated) == Counter(escalating)
    assert {(e.actor, e.data["assignee"]) for e in escalated} == {(TIMER, "role:admin")}

    clock.advance(timedelta(minutes=50))
    second = await _two_timer_processes(url, clock)
    every = {d.id for d in decisions.values()}
    split = _exactly_once(second, "defaulted", every)
    _exactly_once(second, "escalated", set())
    applied = await flight.events(kind=DecisionEvent.DEADLINE_APPLIED.value)
    assert Counter(e.entity_id for e in applied) == Counter(every)  # one event per decision
    assert {e.actor for e in applied} == {TIMER}
    assert all("no answer by the deadline" in e.data["reason"] for e in applied)
    assert {e.data["outcome"] for e in applied} == {"approve"}
    assert [(await flight.step(s)).status for s in steps] == ["completed"] * REVIEWS
    rows = await flight.read(lambda s: s.scalars(select(Decision.status).where(Decision.id.in_(every))))
    assert sorted(rows.all()) == ["defaulted"] * REVIEWS
    await flight.assert_seq_gap_free()
    # The default passes overlapped: both processes found decisions due when they began, some of them the
    # same ones (what one applied, the other then found closed at the root's lock). The escalation passes
    # are too short (one small write each) to be sure of overlapping, so they are not checked for it.
    due = [r["due_at_start"] for r in second]
    assert min(due) > 0, due
    assert sum(due) > REVIEWS, due
    print(f"due at start {due}, defaults applied per process {dict(split)}")
