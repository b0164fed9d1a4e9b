"""Readers of the log that fall behind an archive's cut-off are told, never handed a log with a hole:
a webhook endpoint is paused with HISTORY_TRUNCATED (and resumed past the hole only by an admin, the
skipped seqs recorded), a follower of the feed that is reading from the table gets HistoryTruncated.
On SQLite and PostgreSQL, against a real receiver on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import select

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.models import Event
from server.db.webhook_models import WebhookDelivery, WebhookEndpoint
from server.errors import ErrorCode, ServiceError
from server.loops.webhooks import EndpointWorker, WebhookDispatcher
from server.realtime.feed import EventFeed
from server.services.retention.archive import archive
from server.services.retention.truncation import HISTORY_TRUNCATED, HistoryTruncated
from server.services.runtime import Runtime, Tx, unit_of_work
from server.services.webhooks import endpoints
from server.services.webhooks.topics import Topic
from tests.services.helpers import Flight
from tests.services.retention.helpers import log_events
from tests.services.webhooks.receiver import receiver

T = TypeVar("T")
TOPICS = [Topic.REVIEW_REQUESTED, Topic.PLAN_FAILED]


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, webhook_allow_private_targets=True, webhook_timeout_seconds=5)


async def _act(runtime: Runtime, principal: Principal, fn: Callable[[Tx], Awaitable[T]]) -> T:
    async with unit_of_work(runtime, principal) as tx:
        return await fn(tx)


async def _endpoint(runtime: Runtime, endpoint_id: str) -> WebhookEndpoint:
    async with runtime.db.reader() as session:
        row = await session.get(WebhookEndpoint, endpoint_id)
    assert row is not None
    return row


async def test_an_endpoint_behind_the_cut_off_is_paused_and_resumed_past_the_hole_by_an_admin(
    runtime: Runtime, flight: Flight, principal: Principal, clock: FakeClock, tmp_path: Path
) -> None:
    async with receiver() as hook:
        behind = await flight.call(lambda tx: endpoints.create_endpoint(tx, hook.url, TOPICS, "b", True))
        plan_id, _ = await flight.awaiting_review()
        await flight.fail_plan(plan_id)
        cut = await flight.last_seq()
        level = await flight.call(lambda tx: endpoints.create_endpoint(tx, hook.url, TOPICS, "l", True))
        # A retry of an event about to be archived: it can never be sent again.
        async with runtime.db.transaction() as session:
            session.add(
                WebhookDelivery(
                    tenant_id="default",
                    endpoint_id=level.endpoint.id,
                    seq=cut,
                    topic="plan.failed",
                    status="pending",
                    attempts=1,
                    next_attempt_at=clock.now(),
                    created_at=clock.now(),
                    updated_at=clock.now(),
                )
            )

        await archive(runtime.db, "default", cut, tmp_path, clock.now())

        paused = await _endpoint(runtime, behind.endpoint.id)
        assert (paused.enabled, paused.paused_reason) == (False, HISTORY_TRUNCATED)
        untouched = await _endpoint(runtime, level.endpoint.id)
        assert (untouched.enabled, untouched.paused_reason) == (True, None)
        async with runtime.db.reader() as session:
            retry = (await session.execute(select(WebhookDelivery))).scalar_one()
        assert retry.status == "failed"
        assert retry.last_error is not None
        assert retry.last_error.startswith(HISTORY_TRUNCATED)
        worker = EndpointWorker(WebhookDispatcher(runtime, owner="a"), behind.endpoint.id)
        try:
            await worker.pass_once()
            assert hook.received == []  # paused: nothing sent, nothing skipped silently
            assert (await _endpoint(runtime, behind.endpoint.id)).cursor_seq == paused.cursor_seq

            # Redelivering archived events is refused with the code.
            with pytest.raises(ServiceError) as refused:
                await _act(runtime, principal, lambda tx: endpoints.redeliver(tx, behind.endpoint.id, 1, cut))
            assert refused.value.problems[0].code is ErrorCode.HISTORY_TRUNCATED

            # An admin enables it: its cursor moves to where the log resumes, the skip is on record.
            resumed = await _act(
                runtime,
                principal,
                lambda tx: endpoints.update_endpoint(tx, behind.endpoint.id, None, None, None, True),
            )
            assert (resumed.enabled, resumed.paused_reason, resumed.cursor_seq) == (True, None, cut)
            async with runtime.db.reader() as session:
                update = (
                    await session.execute(select(Event).order_by(Event.seq.desc()).limit(1))
                ).scalar_one()
            assert update.kind == "webhook_endpoint_updated"
            assert (update.data["skippedFromSeq"], update.data["skippedToSeq"]) == (
                paused.cursor_seq + 1,
                cut,
            )

            # From there on it gets what follows the hole.
            created = await _act(runtime, principal, _new_plan)
            await _act(runtime, principal, lambda tx: _fail(tx, created))
            await worker.pass_once()
            assert hook.received
            assert all(int(seq) > cut for seq in hook.seqs)
        finally:
            await worker.sender.close()


async def _new_plan(tx: Tx) -> str:
    from server.services.plans import create as plan_create
    from server.services.plans.inputs import NewPlan
    from tests.services.helpers import steps_of

    return (await plan_create.create_research_plan(tx, NewPlan("Q?", steps_of(2)))).plan.id


async def _fail(tx: Tx, plan_id: str) -> Any:
    from server.services.plans import modify as plan_modify

    return await plan_modify.fail_plan(tx, plan_id, "given up")


async def test_a_follower_reading_the_table_when_its_events_are_archived_gets_history_truncated(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 40, per_tx=10)
    # A ring of 4: a follower from 0 reads the table a page at a time.
    feed = EventFeed(db, ring_size=4, batch_size=10, poll_seconds=0.05)
    try:
        follower = feed.follow("default", 0, page=10)
        first = await follower.__anext__()
        assert [e.seq for e in first] == list(range(1, 11))
        await archive(db, "default", 25, tmp_path, clock.now())

        async def drain() -> None:
            while True:
                batch = await follower.__anext__()
                assert batch[0].seq <= 25, "a batch past the hole was handed over as if it followed"

        with pytest.raises(HistoryTruncated) as truncated:
            await drain()
        assert truncated.value.earliest_seq == 26
        await follower.aclose()
        # Resuming where the log resumes is accepted and complete.
        again = feed.follow("default", 25, page=10)
        seqs: list[int] = []
        while len(seqs) < 15:
            seqs += [e.seq for e in await again.__anext__()]
        assert seqs == list(range(26, 41))
        await again.aclose()
    finally:
        await feed.close()
