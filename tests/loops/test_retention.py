"""The retention loop's pass (``run_retention``) with the fake clock, on SQLite and PostgreSQL: off by
default; by age and by size it archives then deletes, tenant by tenant; delivery logs go only once
ended and old; SQLite gives the pages back."""

from __future__ import annotations

import asyncio
import gzip
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.models import Event, PlanStep, ResearchPlan
from server.db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from server.loops.retention import run_retention
from server.services.plans import execution as plan_execution
from server.services.plans.inputs import StepResult
from server.services.retention.space import size_report
from server.services.runtime import Runtime, unit_of_work
from tests.services.helpers import Flight
from tests.services.retention.helpers import counter_of, exported, log_events, seqs_of


@pytest.fixture
def flight(runtime: Runtime, principal: Principal, clock: FakeClock) -> Flight:
    return Flight(runtime, principal, clock)


def _with(runtime: Runtime, **settings: object) -> Runtime:
    return Runtime(db=runtime.db, clock=runtime.clock, settings=runtime.settings.model_copy(update=settings))


async def test_retention_is_off_by_default(runtime: Runtime, clock: FakeClock) -> None:
    await log_events(runtime.db, clock, 10)
    clock.advance(timedelta(days=10_000))
    done = await run_retention(runtime)
    assert (done.archives, done.deliveries_deleted) == ([], 0)
    assert await counter_of(runtime.db) == (10, 0)


def test_deleting_events_without_an_archive_directory_is_refused() -> None:
    with pytest.raises(ValueError, match="need event_archive_dir"):
        Settings(event_retention_days=3)


async def test_by_age_each_pass_archives_what_has_grown_old(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    aged = _with(runtime, event_archive_dir=tmp_path, event_retention_days=2, retention_batch_size=4)
    await log_events(db, clock, 10)  # day 0
    clock.advance(timedelta(days=1))
    await log_events(db, clock, 5)  # day 1
    await log_events(db, clock, 3, tenant="other")
    assert (await run_retention(aged)).archives == []  # nothing is 2 days old yet

    clock.advance(timedelta(days=1, seconds=1))
    done = await run_retention(aged)
    assert [(a.manifest.tenant, a.manifest.first_seq, a.manifest.last_seq) for a in done.archives] == [
        ("default", 1, 10)
    ]
    assert seqs_of(await exported(db, first=11)) == list(range(11, 16))
    assert (await run_retention(aged)).archives == []  # the same pass again: nothing more

    clock.advance(timedelta(days=1))
    done = await run_retention(aged)
    assert sorted((a.manifest.tenant, a.manifest.first_seq, a.manifest.last_seq) for a in done.archives) == [
        ("default", 11, 15),
        ("other", 1, 3),
    ]
    async with db.read_connection() as conn:
        assert await conn.scalar(select(func.count()).select_from(Event)) == 0
    # Every archived event is in exactly one file.
    seqs: list[int] = []
    for path in sorted(tmp_path.glob("events-default-*.jsonl.gz")):  # noqa: ASYNC240
        with gzip.open(path, "rt") as lines:
            seqs += seqs_of(lines.read().splitlines())
    assert seqs == list(range(1, 16))


async def test_by_size_the_newest_events_are_kept(runtime: Runtime, clock: FakeClock, tmp_path: Path) -> None:
    db = runtime.db
    sized = _with(runtime, event_archive_dir=tmp_path, event_retention_max_events=6)
    await log_events(db, clock, 20)
    done = await run_retention(sized)
    assert [(a.manifest.first_seq, a.manifest.last_seq) for a in done.archives] == [(1, 14)]
    assert seqs_of(await exported(db, first=15)) == list(range(15, 21))
    await log_events(db, clock, 2)
    done = await run_retention(sized)
    assert [(a.manifest.first_seq, a.manifest.last_seq) for a in done.archives] == [(15, 16)]
    if db.is_sqlite:
        async with db.read_connection() as conn:
            assert await conn.scalar(select(func.count()).select_from(Event)) == 6


async def test_delivery_logs_go_once_ended_and_old_and_pending_retries_stay(
    runtime: Runtime, clock: FakeClock
) -> None:
    db = runtime.db
    now = clock.now()
    async with db.transaction() as session:
        session.add(
            WebhookEndpoint(
                id="e1",
                tenant_id="default",
                url="https://a.example/",
                topics=["plan.failed"],
                secret="whsec_x",
                created_at=now,
                updated_at=now,
            )
        )
        await session.flush()
        for seq, status in enumerate(["delivered", "failed", "pending", "delivered"], start=1):
            session.add(
                WebhookDelivery(
                    tenant_id="default",
                    endpoint_id="e1",
                    seq=seq,
                    topic="plan.failed",
                    status=status,
                    attempts=1,
                    created_at=now,
                    updated_at=now if seq < 4 else now + timedelta(days=5),
                )
            )
            session.add(
                WebhookAttempt(
                    tenant_id="default",
                    endpoint_id="e1",
                    seq=seq,
                    attempt=1,
                    latency_ms=1.0,
                    succeeded=status == "delivered",
                    process="p",
                    created_at=now,
                )
            )
    kept = _with(runtime, webhook_delivery_retention_days=3, retention_batch_size=1)
    clock.advance(timedelta(days=3, seconds=1))
    done = await run_retention(kept)
    assert done.deliveries_deleted == 2
    async with db.read_connection() as conn:
        left = sorted((await conn.execute(select(WebhookDelivery.seq, WebhookDelivery.status))).all())
        attempts = sorted((await conn.execute(select(WebhookAttempt.seq))).scalars())
    assert [tuple(r) for r in left] == [(3, "pending"), (4, "delivered")]
    assert attempts == [3, 4]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_sqlite_gives_the_archived_pages_back(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 3_000, per_tx=500)
    grown = await size_report(db)
    done = await run_retention(_with(runtime, event_archive_dir=tmp_path, event_retention_max_events=100))
    assert done.bytes_given_back > 0
    shrunk = await size_report(db)
    # The database's own page count (what the file is once the WAL is checkpointed), with none free.
    assert shrunk.total_bytes < grown.total_bytes / 2
    assert shrunk.free_bytes == 0


async def test_ended_plans_go_once_their_events_are_archived_and_running_ones_never(
    runtime: Runtime, flight: Flight, principal: Principal, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    ended = await flight.create(2)
    await flight.fail_plan(ended.plan.id)
    running = await flight.create(2)
    await flight.start(running.plan.id)
    clock.advance(timedelta(days=10))

    roots_only = _with(runtime, ended_root_retention_days=5)
    assert (await run_retention(roots_only)).roots_deleted == 0  # its events are still in the log

    both = _with(runtime, ended_root_retention_days=5, event_archive_dir=tmp_path, event_retention_days=5)
    done = await run_retention(both)
    assert done.roots_deleted == 1
    async with db.reader() as session:
        plans = {p.id: p.status for p in (await session.execute(select(ResearchPlan))).scalars()}
        steps = {s.plan_id for s in (await session.execute(select(PlanStep))).scalars()}
    assert plans == {running.plan.id: "executing"}
    assert steps == {running.plan.id}
    # The running plan is unaffected: its work goes on, its events follow the archived ones.
    async with unit_of_work(runtime, principal) as tx:
        step = running.steps[0].id
        await plan_execution.submit_step_result(tx, StepResult(step, "done"))
    last, archived = await counter_of(db)
    assert seqs_of(await exported(db, first=archived + 1))[-1] == last


async def test_a_pass_vacuums_the_tables_it_deleted_from_and_no_others(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    """PostgreSQL: a pass that archived events vacuums ``events`` (so their space is reused with
    autovacuum off) and leaves the tables it did not delete from to autovacuum."""
    db = runtime.db
    if db.is_sqlite:
        pytest.skip("PostgreSQL's VACUUM")
    counts = text(
        "SELECT relname, vacuum_count FROM pg_stat_user_tables WHERE relname IN ('events', 'research_plans')"
    )

    async def vacuums() -> dict[str, int]:
        async with db.read_connection() as conn:
            return {str(name): int(n) for name, n in (await conn.execute(counts)).all()}

    await log_events(db, clock, 30)
    before = await vacuums()
    done = await run_retention(_with(runtime, event_archive_dir=tmp_path, event_retention_max_events=5))
    assert [a.deleted for a in done.archives] == [25]
    assert done.roots_deleted == 0
    for _ in range(200):  # the statistics are reported a moment after the vacuum
        after = await vacuums()
        if after["events"] > before["events"]:
            assert after["research_plans"] == before["research_plans"]
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the events table was not vacuumed")
