"""The stall loop (seed 001's monitoring code) on both databases, driven by the fake clock.

No test sleeps for a threshold: the clock is advanced and ``scan_stalls`` is called directly (on the
server's own event loop for the end-to-end test). Only the ``Loop`` runner test waits, for a few
iterations of a 10 ms interval, with a deadline.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.dialects import sqlite

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Event, ResearchPlan
from server.loops.runner import Loop
from server.loops.stalls import MONITOR, scan_stalls
from server.metrics import REGISTRY
from server.services.plans.stalls import overdue_query, own_threshold_query
from server.services.runtime import Runtime
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.wsclient import STALL_ALERTS, collect, ws_session
from tests.services.helpers import Flight

SERVER_THRESHOLD = 30 * 60.0


@pytest.fixture
def flight(runtime: Runtime, principal: Principal, clock: FakeClock) -> Flight:
    return Flight(runtime, principal, clock)


def with_settings(runtime: Runtime, **changes: Any) -> Runtime:
    """The same database and clock with other settings (another server configuration)."""
    return Runtime(db=runtime.db, clock=runtime.clock, settings=runtime.settings.model_copy(update=changes))


async def running_plan(flight: Flight, steps: int = 3, **kw: Any) -> tuple[str, str]:
    """An executing plan whose first step has just started: (plan id, step id)."""
    created = await flight.create(steps, session_id="session-1", **kw)
    started = await flight.start(created.plan.id, "session-1")
    assert started.step is not None
    return created.plan.id, started.step.id


async def stall_events(flight: Flight, plan_id: str | None = None) -> list[Event]:
    return await flight.events(root_id=plan_id, kind="plan_stalled")


async def test_a_step_past_the_threshold_stalls_its_plan_exactly_once(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, step_id = await running_plan(flight)
    seq_before = await flight.last_seq()
    clock.advance(timedelta(minutes=31))

    found = await scan_stalls(runtime)

    assert [(f.tenant_id, f.plan_id, f.step_ids) for f in found] == [(flight.tenant_id, plan_id, [step_id])]
    assert (await flight.plan(plan_id)).status == "stalled"
    assert (await flight.step(step_id)).status == "in_progress"  # the step itself is left alone
    new = [e for e in await flight.events() if e.seq > seq_before]
    assert [(e.kind, e.entity_id, e.from_state, e.to_state) for e in new] == [
        ("plan_transitioned", plan_id, "executing", "stalled"),
        ("plan_stalled", plan_id, None, None),
    ]
    assert all(e.actor == MONITOR for e in new)
    assert new[0].data == {"reason": "stall detected"}
    assert new[1].data == {
        "stepIds": [step_id],
        "runningSeconds": {step_id: 31 * 60.0},
        "thresholdSeconds": SERVER_THRESHOLD,
    }
    await flight.assert_seq_gap_free()

    # A second scan (later still) finds the plan stalled already and writes nothing.
    clock.advance(timedelta(minutes=10))
    assert await scan_stalls(runtime) == []
    assert len(await stall_events(flight)) == 1
    assert [e.seq for e in await flight.events()][-1] == new[-1].seq


async def test_every_overdue_step_of_a_plan_is_reported_with_its_own_running_time(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, first = await running_plan(flight)
    clock.advance(timedelta(minutes=5))
    second = await flight.start(plan_id, "session-1")  # a second step in progress alongside
    assert second.step is not None
    clock.advance(timedelta(minutes=40))

    [found] = await scan_stalls(runtime)

    assert found.step_ids == [first, second.step.id]
    [event] = await stall_events(flight, plan_id)
    assert event.data["runningSeconds"] == {first: 45 * 60.0, second.step.id: 40 * 60.0}


async def test_a_step_under_the_threshold_is_not_stalled(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, _ = await running_plan(flight)
    clock.advance(timedelta(minutes=29))
    assert await scan_stalls(runtime) == []
    clock.advance(timedelta(seconds=60))  # exactly 30 minutes: "longer than" the threshold is needed
    assert await scan_stalls(runtime) == []
    assert (await flight.plan(plan_id)).status == "executing"
    assert await stall_events(flight) == []


async def test_a_plan_threshold_shorter_or_longer_than_the_servers_wins(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    eager, eager_step = await running_plan(flight, stall_threshold_seconds=5 * 60)
    patient, patient_step = await running_plan(flight, stall_threshold_seconds=2 * 60 * 60)
    default, default_step = await running_plan(flight)

    clock.advance(timedelta(minutes=6))
    assert [(f.plan_id, f.step_ids) for f in await scan_stalls(runtime)] == [(eager, [eager_step])]
    [event] = await stall_events(flight, eager)
    assert event.data["thresholdSeconds"] == 5 * 60
    assert event.data["runningSeconds"] == {eager_step: 6 * 60.0}

    clock.advance(timedelta(minutes=25))  # 31 minutes: past the server's threshold, not the patient plan's
    assert [(f.plan_id, f.step_ids) for f in await scan_stalls(runtime)] == [(default, [default_step])]
    assert (await flight.plan(patient)).status == "executing"

    clock.advance(timedelta(minutes=90))  # 121 minutes
    assert [(f.plan_id, f.step_ids) for f in await scan_stalls(runtime)] == [(patient, [patient_step])]
    [event] = await stall_events(flight, patient)
    assert event.data["thresholdSeconds"] == 2 * 60 * 60
    assert len(await stall_events(flight)) == 3


async def test_the_servers_stall_threshold_setting_is_honoured(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, step_id = await running_plan(flight)
    clock.advance(timedelta(minutes=11))
    assert await scan_stalls(with_settings(runtime, stall_threshold_seconds=20 * 60)) == []
    found = await scan_stalls(with_settings(runtime, stall_threshold_seconds=10 * 60))
    assert [(f.plan_id, f.step_ids) for f in found] == [(plan_id, [step_id])]
    [event] = await stall_events(flight, plan_id)
    assert event.data["thresholdSeconds"] == 10 * 60


async def test_plans_that_are_not_executing_are_never_touched(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    planning = (await flight.create(2)).plan.id
    # Awaiting review with another step still in progress (started before the review was asked for).
    reviewed, first = await running_plan(flight)
    second = await flight.start(reviewed, "session-1")
    assert second.step is not None
    await flight.review(second.step.id)
    assert (await flight.plan(reviewed)).status == "awaiting_review"
    completed, only = await running_plan(flight, steps=1)
    await flight.submit(only)
    assert (await flight.plan(completed)).status == "completed"
    seq_before = await flight.last_seq()

    clock.advance(timedelta(hours=5))
    assert await scan_stalls(runtime) == []
    assert [(await flight.plan(p)).status for p in (planning, reviewed, completed)] == [
        "planning",
        "awaiting_review",
        "completed",
    ]
    assert (await flight.step(first)).status == "in_progress"
    assert await flight.last_seq() == seq_before

    # The guard is the plan's status, not the steps: force overdue in_progress steps under plans in
    # each other state and the scan still leaves them alone.
    forced = {}
    for status in ("planning", "awaiting_review", "completed", "failed"):
        plan_id, _ = await running_plan(flight)
        forced[plan_id] = status
    async with runtime.db.transaction() as session:
        for plan_id, status in forced.items():
            await session.execute(
                update(ResearchPlan).where(ResearchPlan.id == plan_id).values(status=status)
            )
    seq_before = await flight.last_seq()
    clock.advance(timedelta(hours=1))
    assert await scan_stalls(runtime) == []
    assert {p: (await flight.plan(p)).status for p in forced} == forced
    assert await flight.last_seq() == seq_before


async def test_start_next_step_from_a_new_session_resumes_a_stalled_plan(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, _ = await running_plan(flight)
    clock.advance(timedelta(minutes=31))
    assert len(await scan_stalls(runtime)) == 1
    seq_before = await flight.last_seq()

    resumed = await flight.start(plan_id, "session-2")

    assert resumed.step is not None
    assert resumed.plan.status == "executing"
    assert (await flight.plan(plan_id)).session_id == "session-2"
    new = [e for e in await flight.events() if e.seq > seq_before]
    kinds = [e.kind for e in new]
    assert kinds[0] == "session_resumed"
    assert new[0].data["sessionId"] == "session-2"
    assert new[0].data["previousSessionId"] == "session-1"
    assert new[0].data["planStatus"] == "stalled"
    plan_moves = [(e.from_state, e.to_state) for e in new if e.kind == "plan_transitioned"]
    assert plan_moves == [("stalled", "executing")]
    assert "step_started" in kinds


async def test_resuming_restarts_the_clock_of_steps_left_in_progress(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, step_id = await running_plan(flight)
    first_start = (await flight.step(step_id)).started_at
    clock.advance(timedelta(minutes=31))
    assert len(await scan_stalls(runtime)) == 1

    await flight.start(plan_id, "session-2")

    assert (await flight.step(step_id)).started_at == clock.now()
    resumed = [e for e in await flight.events(kind="plan_transitioned") if e.from_state == "stalled"]
    assert resumed[-1].data["restartedSteps"] == {step_id: first_start.isoformat()}
    # Not stalled again at once; only after another full threshold.
    assert await scan_stalls(runtime) == []
    clock.advance(timedelta(minutes=31))
    assert [f.plan_id for f in await scan_stalls(runtime)] == [plan_id]


async def test_a_stalled_plan_with_nothing_pending_still_resumes(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, _ = await running_plan(flight, steps=1)
    clock.advance(timedelta(minutes=31))
    assert len(await scan_stalls(runtime)) == 1

    resumed = await flight.start(plan_id, "session-2")

    assert resumed.outcome.value == "no_pending_steps"
    assert resumed.in_progress_count == 1
    assert (await flight.plan(plan_id)).status == "executing"


async def test_submitting_the_stalled_steps_result_resumes_the_plan(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plan_id, step_id = await running_plan(flight)
    clock.advance(timedelta(minutes=31))
    assert len(await scan_stalls(runtime)) == 1
    seq_before = await flight.last_seq()

    submitted = await flight.submit(step_id, "late, but done")

    assert submitted.plan.status == "executing"
    assert (await flight.step(step_id)).status == "completed"
    moves = [
        (e.from_state, e.to_state)
        for e in await flight.events(root_id=plan_id, kind="plan_transitioned")
        if e.seq > seq_before
    ]
    assert moves == [("stalled", "executing")]
    # Executing again with nothing overdue: the next scan leaves it alone.
    assert await scan_stalls(runtime) == []


async def test_a_stalled_plan_stays_stalled_and_unalerted_through_later_scans(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    """Only an agent's act resumes a plan; the scan never moves a stalled plan anywhere else."""
    plan_id, _ = await running_plan(flight)
    clock.advance(timedelta(minutes=31))
    await scan_stalls(runtime)
    for _ in range(3):
        clock.advance(timedelta(hours=1))
        assert await scan_stalls(runtime) == []
    assert (await flight.plan(plan_id)).status == "stalled"
    assert len(await stall_events(flight)) == 1


async def test_two_instances_scanning_at_once_alert_each_stall_exactly_once(
    flight: Flight, runtime: Runtime, clock: FakeClock
) -> None:
    plans = {}
    for _ in range(20):
        plan_id, step_id = await running_plan(flight, steps=2)
        plans[plan_id] = step_id
    clock.advance(timedelta(minutes=31))
    other = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)
    try:
        results = await asyncio.gather(*(scan_stalls(r) for r in (runtime, other, runtime, other)))
    finally:
        await other.db.dispose()

    found = [f for result in results for f in result]
    assert sorted((f.plan_id, tuple(f.step_ids)) for f in found) == sorted(
        (p, (s,)) for p, s in plans.items()
    )
    events = await stall_events(flight)
    assert len(events) == 20
    assert sorted(e.root_id for e in events) == sorted(plans)
    moves = await flight.events(kind="plan_transitioned")
    assert sum(e.to_state == "stalled" for e in moves) == 20
    await flight.assert_seq_gap_free()


async def test_the_stall_query_uses_the_status_started_at_index(runtime: Runtime) -> None:
    if not runtime.db.is_sqlite:
        pytest.skip("PostgreSQL's planner prefers sequential scans on tables this small")
    path = runtime.db.url.database
    assert path is not None
    cutoff = datetime(2026, 1, 1, tzinfo=UTC)
    connection = sqlite3.connect(path)
    try:
        for query in (overdue_query(cutoff), own_threshold_query()):
            compiled = query.compile(dialect=sqlite.dialect())
            params = [compiled.params[name] for name in compiled.positiontup or []]
            params = [p.replace(tzinfo=None).isoformat(" ") if isinstance(p, datetime) else p for p in params]
            plan = connection.execute(f"EXPLAIN QUERY PLAN {compiled.string}", params).fetchall()
            details = " / ".join(row[-1] for row in plan)
            assert "plan_steps USING INDEX ix_plan_steps_status_started" in details, details
    finally:
        connection.close()


async def test_a_stall_alert_reaches_a_websocket_subscriber_and_replays_after_zero(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2, sessionId="s-1")})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    started = await client.execute(ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": "s-1"})
    step_id = started["startNextStep"]["step"]["id"]
    history = await client.execute(ops.EVENTS, {"rootId": None, "after": 0, "first": 100})
    last = history["events"]["edges"][-1]["node"]["seq"]
    runtime = live_server.app.state.runtime

    async def live_tails() -> int:
        return sum(t.refs for t in runtime.feed.tails.values())

    async with ws_session(live_server.ws_url) as ws:
        alerts = asyncio.create_task(collect(ws, STALL_ALERTS, {"after": last}, 1))
        deadline = asyncio.get_running_loop().time() + 10
        while live_server.call(live_tails()) == 0:  # the subscription follows the feed: it is live
            assert asyncio.get_running_loop().time() < deadline, "the subscription never started"
            await asyncio.sleep(0.02)
        live_server.clock.advance(timedelta(minutes=31))
        found = live_server.call(scan_stalls(runtime))
        assert [f.plan_id for f in found] == [plan_id]
        [alert] = [r["stallAlerts"] for r in await alerts]

    assert alert["planId"] == plan_id
    assert alert["steps"] == [{"stepId": step_id, "runningSeconds": 31 * 60.0}]
    assert alert["thresholdSeconds"] == SERVER_THRESHOLD
    assert alert["plan"] == {"status": "STALLED"}

    async with ws_session(live_server.ws_url) as ws:
        [replayed] = [r["stallAlerts"] for r in await collect(ws, STALL_ALERTS, {"after": 0}, 1)]
    assert replayed == alert


async def test_the_loop_keeps_running_after_run_once_raises() -> None:
    calls = 0

    async def run_once() -> None:
        nonlocal calls
        calls += 1
        if calls <= 3:
            raise RuntimeError(f"failure {calls}")

    loop = Loop("flaky", 0.01, run_once)
    loop.start()
    try:
        deadline = asyncio.get_running_loop().time() + 10
        while calls < 6:
            assert asyncio.get_running_loop().time() < deadline, f"only {calls} runs"
            await asyncio.sleep(0.01)
        assert loop._task is not None
        assert not loop._task.done()
        assert loop.runs >= 5
    finally:
        await loop.stop()
    assert loop._task is None
    stopped_at = calls
    await asyncio.sleep(0.05)
    assert calls == stopped_at  # stop() really stopped it


async def test_the_server_lifespan_runs_the_stall_loop_every_interval(
    settings: Settings, clock: FakeClock
) -> None:
    """A real server with a 50 ms scan interval stalls a plan without anyone calling scan_stalls."""
    live = start_server(settings.model_copy(update={"stall_scan_interval_seconds": 0.05}), clock)
    client = GraphQLClient(live.url)
    try:
        created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2)})
        plan_id = created["createResearchPlan"]["plan"]["id"]
        await client.execute(ops.START_NEXT_STEP, {"planId": plan_id})
        clock.advance(timedelta(minutes=31))
        deadline = asyncio.get_running_loop().time() + 10
        while True:
            status = await client.execute(ops.PLAN_STATUS, {"planId": plan_id, "threshold": None})
            if status["planStatus"]["status"] == "STALLED":
                break
            assert asyncio.get_running_loop().time() < deadline, status
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # a few more passes of the loop add nothing
        history = await client.execute(ops.EVENTS, {"rootId": plan_id, "after": 0, "first": 100})
        kinds = [e["node"]["kind"] for e in history["events"]["edges"]]
        assert kinds.count("plan_stalled") == 1
    finally:
        await client.aclose()
        stop_server(live)


async def test_a_plan_that_fails_to_stall_is_logged_and_the_pass_goes_on(
    flight: Flight, runtime: Runtime, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """A row no API would write (a threshold past any datetime) fails its own transaction only."""
    plans = dict([await running_plan(flight) for _ in range(3)])
    bad, *good = sorted(plans)  # the pass takes plans in id order: the bad one comes first
    async with runtime.db.transaction() as session:
        await session.execute(
            update(ResearchPlan).where(ResearchPlan.id == bad).values(stall_threshold_seconds=1e308)
        )
    clock.advance(timedelta(minutes=31))
    seq_before = await flight.last_seq()
    failures_before = item_failures("stalls")

    with caplog.at_level(logging.ERROR, logger="server.loops.runner"):
        found = await scan_stalls(runtime)

    assert sorted((f.plan_id, f.step_ids) for f in found) == [(p, [plans[p]]) for p in good]
    assert [(await flight.plan(p)).status for p in sorted(plans)] == ["executing", "stalled", "stalled"]
    assert sorted(e.root_id for e in await flight.events(kind="plan_stalled", after=seq_before)) == good
    [record] = [r for r in caplog.records if r.name == "server.loops.runner"]
    assert f"item {bad} of tenant {flight.principal.tenant_id} failed" in record.getMessage()
    assert record.exc_info is not None
    assert record.exc_info[0] is OverflowError
    assert item_failures("stalls") == failures_before + 1
    await flight.assert_seq_gap_free()


def item_failures(loop: str) -> float:
    return REGISTRY.get_sample_value("flightdeck_loop_item_failures_total", {"loop": loop}) or 0.0
