"""Webhook delivery against a real receiver on 127.0.0.1, on SQLite and PostgreSQL, with the fake clock.

Each test drives an endpoint's worker one pass at a time (``pass_once``), as the dispatcher's task does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from server.clock import FakeClock
from server.config import Settings
from server.db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from server.errors import ErrorCode
from server.loops.webhooks import EndpointWorker, WebhookDispatcher
from server.services.runtime import Runtime
from server.services.webhooks import endpoints
from server.services.webhooks.delivery import GIVE_UP_AFTER, MAX_ATTEMPTS, RETRY_SCHEDULE
from server.services.webhooks.endpoints import Created
from server.services.webhooks.signing import verify
from server.services.webhooks.topics import Topic
from tests.services.helpers import Flight
from tests.services.webhooks.receiver import HANG, HOLD, Receiver, receiver
from tests.services.webhooks.spellings import ISSUE_SPELLINGS

TIMEOUT = 1.5  # short, for the hanging receiver; long enough for a loaded machine


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, webhook_allow_private_targets=True, webhook_timeout_seconds=TIMEOUT)


@pytest.fixture
async def hook() -> AsyncIterator[Receiver]:
    async with receiver() as r:
        yield r


class Driver:
    def __init__(self, runtime: Runtime, flight: Flight, clock: FakeClock) -> None:
        self.runtime = runtime
        self.flight = flight
        self.clock = clock
        self.workers: list[EndpointWorker] = []

    async def endpoint(self, url: str, topics: list[Topic] | None = None) -> Created:
        wanted = topics or [Topic.REVIEW_REQUESTED, Topic.PLAN_FAILED]
        return await self.flight.call(lambda tx: endpoints.create_endpoint(tx, url, wanted, "test", True))

    def worker(self, endpoint_id: str, owner: str = "a", **overrides: Any) -> EndpointWorker:
        runtime = self.runtime
        if overrides:
            settings = runtime.settings.model_copy(update=overrides)
            runtime = Runtime(db=runtime.db, clock=runtime.clock, settings=settings)
        worker = EndpointWorker(WebhookDispatcher(runtime, owner=owner), endpoint_id)
        self.workers.append(worker)
        return worker

    async def deliveries(self, endpoint_id: str) -> list[WebhookDelivery]:
        return list(
            await self.flight.read(
                lambda s: _all(s, select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id))
            )
        )

    async def attempts(self, endpoint_id: str) -> list[WebhookAttempt]:
        query = select(WebhookAttempt).where(WebhookAttempt.endpoint_id == endpoint_id)
        return list(await self.flight.read(lambda s: _all(s, query.order_by(WebhookAttempt.id))))

    async def cursor(self, endpoint_id: str) -> int:
        row = await self.flight.read(lambda s: s.get(WebhookEndpoint, endpoint_id))
        assert row is not None
        return row.cursor_seq


async def _all(session: Any, query: Any) -> list[Any]:
    return list((await session.execute(query)).scalars())


@pytest.fixture
async def driver(runtime: Runtime, flight: Flight, clock: FakeClock) -> AsyncIterator[Driver]:
    d = Driver(runtime, flight, clock)
    yield d
    for w in d.workers:
        await w.sender.close()


async def test_events_are_delivered_signed_with_an_id_per_endpoint_and_seq(
    driver: Driver, flight: Flight, hook: Receiver
) -> None:
    made = await driver.endpoint(hook.url)
    plan_id, _ = await flight.awaiting_review()
    await flight.fail_plan(plan_id)
    worker = driver.worker(made.endpoint.id)

    assert await worker.pass_once() is False  # all sent, no more waiting

    kinds = {e.seq: e for e in await flight.events()}
    bodies = sorted((r.json for r in hook.received), key=lambda b: b["data"]["seq"])
    assert [b["type"] for b in bodies] == ["review.requested", "plan.failed"]
    for r in hook.received:
        seq = r.json["data"]["seq"]
        assert r.headers["webhook-id"] == f"msg_{made.endpoint.id}_{seq}"
        assert r.json["data"]["kind"] == kinds[seq].kind
        timestamp = int(r.headers["webhook-timestamp"])
        assert timestamp == int(driver.clock.now().timestamp())
        assert verify(made.secret, r.headers["webhook-id"], timestamp, r.body, r.headers["webhook-signature"])
        assert not verify(
            "whsec_" + "A" * 32, r.headers["webhook-id"], timestamp, r.body, r.headers["webhook-signature"]
        )
    delivered = await driver.deliveries(made.endpoint.id)
    assert sorted((d.seq, d.status, d.attempts) for d in delivered) == sorted(
        (int(i), "delivered", 1) for i in hook.seqs
    )
    assert await driver.cursor(made.endpoint.id) == await flight.last_seq()
    # Nothing new: a second pass sends nothing.
    await worker.pass_once()
    assert len(hook.received) == 2


async def test_an_endpoint_hears_only_what_came_after_it_and_its_topics(
    driver: Driver, flight: Flight, hook: Receiver
) -> None:
    before, _ = await flight.awaiting_review()
    made = await driver.endpoint(hook.url, [Topic.PLAN_FAILED])
    await flight.awaiting_review()  # review.requested: not subscribed
    await flight.fail_plan(before)
    await driver.worker(made.endpoint.id).pass_once()
    assert [r.json["type"] for r in hook.received] == ["plan.failed"]
    assert [r.json["data"]["rootId"] for r in hook.received] == [before]


async def test_a_failing_then_hanging_endpoint_is_retried_with_back_off_and_recovers(
    driver: Driver, flight: Flight, hook: Receiver, clock: FakeClock
) -> None:
    made = await driver.endpoint(hook.url)
    hook.script = [500, HANG]
    plan_id, _ = await flight.awaiting_review()
    worker = driver.worker(made.endpoint.id)

    await worker.pass_once()  # 500
    [pending] = await driver.deliveries(made.endpoint.id)
    assert (pending.status, pending.attempts, pending.last_status_code) == ("pending", 1, 500)
    assert pending.next_attempt_at == clock.now() + RETRY_SCHEDULE[0]

    await flight.fail_plan(plan_id)  # a new event while the endpoint is paused: it waits
    await worker.pass_once()
    assert len(hook.received) == 1

    clock.advance(RETRY_SCHEDULE[0])
    await worker.pass_once()  # hangs: timed out
    [pending] = await driver.deliveries(made.endpoint.id)
    assert (pending.status, pending.attempts, pending.last_status_code) == ("pending", 2, None)
    assert pending.last_error is not None
    assert "timed out" in pending.last_error
    assert pending.next_attempt_at == clock.now() + RETRY_SCHEDULE[1]

    clock.advance(RETRY_SCHEDULE[1])
    await worker.pass_once()  # recovers: the retry, then the event that waited
    assert [r.json["type"] for r in hook.received] == ["review.requested"] * 3 + ["plan.failed"]
    assert len(set(hook.ids[:3])) == 1  # the same webhook-id on every attempt
    statuses = {d.seq: (d.status, d.attempts) for d in await driver.deliveries(made.endpoint.id)}
    assert sorted(statuses.values()) == [("delivered", 1), ("delivered", 3)]
    attempts = await driver.attempts(made.endpoint.id)
    assert [(a.attempt, a.status_code, a.succeeded) for a in attempts] == [
        (1, 500, False),
        (2, None, False),
        (3, 200, True),
        (1, 200, True),
    ]
    assert attempts[1].latency_ms >= TIMEOUT * 1000 * 0.9


async def test_a_dead_endpoint_is_given_up_after_the_schedule_and_can_be_redelivered(
    driver: Driver, flight: Flight, hook: Receiver, clock: FakeClock
) -> None:
    made = await driver.endpoint(hook.url)
    hook.default = 503
    await flight.awaiting_review()
    worker = driver.worker(made.endpoint.id)
    started = clock.now()
    await worker.pass_once()
    for delay in RETRY_SCHEDULE:
        clock.advance(delay)
        await worker.pass_once()
    assert clock.now() - started == GIVE_UP_AFTER
    [failed] = await driver.deliveries(made.endpoint.id)
    assert (failed.status, failed.attempts, failed.next_attempt_at) == ("failed", MAX_ATTEMPTS, None)
    clock.advance(timedelta(days=1))
    await worker.pass_once()
    attempts = await driver.attempts(made.endpoint.id)
    assert [a.status_code for a in attempts] == [503] * MAX_ATTEMPTS, [a.error for a in attempts]
    assert len(hook.received) == MAX_ATTEMPTS  # nothing more once failed

    hook.default = 204
    queued = await flight.call(lambda tx: endpoints.redeliver(tx, made.endpoint.id, failed.seq, failed.seq))
    assert queued == 1
    await worker.pass_once()
    [again] = await driver.deliveries(made.endpoint.id)
    assert (again.status, again.attempts) == ("delivered", 1)
    assert hook.seqs[-1] == str(failed.seq)
    assert hook.ids[-1] == hook.ids[0]  # the webhook-id of every attempt, the redelivery too


async def test_redelivery_of_a_range_sends_only_matching_events_already_taken_up(
    driver: Driver, flight: Flight, hook: Receiver
) -> None:
    made = await driver.endpoint(hook.url)
    for _ in range(3):
        await flight.awaiting_review()
    worker = driver.worker(made.endpoint.id)
    await worker.pass_once()
    first = sorted(int(i) for i in hook.seqs)
    assert len(first) == 3
    queued = await flight.call(lambda tx: endpoints.redeliver(tx, made.endpoint.id, 1, 10_000))
    assert queued == 3
    await worker.pass_once()
    assert sorted(int(i) for i in hook.seqs[3:]) == first


async def test_a_redelivery_requested_while_a_retry_is_in_flight_is_not_lost(
    driver: Driver, flight: Flight, hook: Receiver, clock: FakeClock
) -> None:
    made = await driver.endpoint(hook.url)
    hook.script = [500, HOLD]
    await flight.awaiting_review()
    worker = driver.worker(made.endpoint.id, webhook_timeout_seconds=30)
    await worker.pass_once()  # 500: a retry in 5 s
    [pending] = await driver.deliveries(made.endpoint.id)
    clock.advance(RETRY_SCHEDULE[0])
    retry = asyncio.create_task(worker.pass_once())
    while len(hook.received) < 2:  # noqa: ASYNC110 (the receiver's log, filled by its handler)
        await asyncio.sleep(0.01)
    # The retry is at the receiver; an admin asks for the event again meanwhile.
    seq = pending.seq
    assert await flight.call(lambda tx: endpoints.redeliver(tx, made.endpoint.id, seq, seq)) == 1
    hook.released.set()  # the retry succeeds
    await retry
    [after] = await driver.deliveries(made.endpoint.id)
    # The pass's record did not overwrite the redelivery: still pending, due now, counted afresh.
    assert (after.status, after.attempts, after.next_attempt_at) == ("pending", 0, clock.now())
    assert [(a.attempt, a.status_code) for a in await driver.attempts(made.endpoint.id)] == [
        (1, 500),
        (2, 200),
    ]
    await worker.pass_once()
    [done] = await driver.deliveries(made.endpoint.id)
    assert (done.status, done.attempts) == ("delivered", 1)
    assert hook.seqs == [str(seq)] * 3


def _seqs_by_endpoint(hook: Receiver) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for r in hook.received:
        endpoint_id, seq = r.headers["webhook-id"].removeprefix("msg_").rsplit("_", 1)
        assert int(seq) == r.json["data"]["seq"]
        found.setdefault(endpoint_id, []).append(int(seq))
    return {k: sorted(v) for k, v in found.items()}


async def test_the_endpoints_of_one_process_share_its_read_of_the_log(
    driver: Driver, flight: Flight, hook: Receiver, runtime: Runtime
) -> None:
    first = await driver.endpoint(hook.url)
    await flight.awaiting_review()
    second = await driver.endpoint(hook.url)  # starts at the current seq: hears only what follows
    for _ in range(3):
        await flight.awaiting_review()
    dispatcher = WebhookDispatcher(runtime, owner="a")
    workers = [EndpointWorker(dispatcher, made.endpoint.id) for made in (first, second)]
    driver.workers.extend(workers)
    for worker in workers:
        await worker.pass_once()
    requested = [e.seq for e in await flight.events(kind="user_reviewed")]
    assert len(requested) == 4
    assert _seqs_by_endpoint(hook) == {first.endpoint.id: requested, second.endpoint.id: requested[1:]}
    window = dispatcher.window(flight.tenant_id)
    assert set(requested) <= set(window.events)  # one read served both
    assert [await driver.cursor(m.endpoint.id) for m in (first, second)] == [await flight.last_seq()] * 2


async def test_a_small_window_trims_and_an_endpoint_behind_it_reads_the_log_itself(
    driver: Driver, flight: Flight, hook: Receiver, runtime: Runtime
) -> None:
    """Batches of one event and a window of four: passes run until nothing is left, every event is
    delivered to each endpoint exactly once, the one left behind the window included."""
    made = [await driver.endpoint(hook.url) for _ in range(2)]
    for _ in range(6):
        await flight.awaiting_review()
    settings = runtime.settings.model_copy(update={"webhook_batch_size": 1})
    dispatcher = WebhookDispatcher(Runtime(db=runtime.db, clock=runtime.clock, settings=settings), owner="a")
    ahead, behind = (EndpointWorker(dispatcher, m.endpoint.id) for m in made)
    driver.workers.extend([ahead, behind])
    while await ahead.pass_once():  # alone first: the window moves past the other's cursor
        pass
    window = dispatcher.window(flight.tenant_id)
    assert len(window.events) == window.capacity == 4
    assert window.start is not None
    assert window.start > await driver.cursor(made[1].endpoint.id)
    while await behind.pass_once():
        pass
    requested = [e.seq for e in await flight.events(kind="user_reviewed")]
    assert len(requested) == 6
    assert _seqs_by_endpoint(hook) == {m.endpoint.id: requested for m in made}


async def test_secret_rotation_signs_with_both_secrets_during_the_overlap(
    driver: Driver, flight: Flight, hook: Receiver, clock: FakeClock
) -> None:
    made = await driver.endpoint(hook.url)
    rotated = await flight.call(lambda tx: endpoints.rotate_secret(tx, made.endpoint.id, 3600))
    await flight.awaiting_review()
    worker = driver.worker(made.endpoint.id)
    await worker.pass_once()
    r = hook.received[-1]
    sig, ts = r.headers["webhook-signature"], int(r.headers["webhook-timestamp"])
    assert len(sig.split()) == 2
    assert verify(made.secret, r.headers["webhook-id"], ts, r.body, sig)
    assert verify(rotated.secret, r.headers["webhook-id"], ts, r.body, sig)

    clock.advance(timedelta(hours=1, seconds=1))
    await flight.awaiting_review()
    await worker.pass_once()
    r = hook.received[-1]
    sig, ts = r.headers["webhook-signature"], int(r.headers["webhook-timestamp"])
    assert len(sig.split()) == 1
    assert verify(rotated.secret, r.headers["webhook-id"], ts, r.body, sig)
    assert not verify(made.secret, r.headers["webhook-id"], ts, r.body, sig)


async def test_only_the_lease_holder_delivers(
    driver: Driver, flight: Flight, hook: Receiver, clock: FakeClock
) -> None:
    made = await driver.endpoint(hook.url)
    await flight.awaiting_review()
    a = driver.worker(made.endpoint.id, owner="a")
    b = driver.worker(made.endpoint.id, owner="b")
    await a.pass_once()
    await flight.awaiting_review()
    await b.pass_once()  # a holds the lease
    assert len(hook.received) == 1
    clock.advance(a.dispatcher.lease + timedelta(seconds=1))  # a is gone: its lease lapses
    await b.pass_once()
    assert len(hook.received) == 2
    await a.pass_once()  # now b holds it
    assert len(hook.received) == 2


async def test_a_pass_cut_off_mid_request_loses_nothing(
    driver: Driver, flight: Flight, hook: Receiver, clock: FakeClock
) -> None:
    made = await driver.endpoint(hook.url)
    hook.script = [HANG]
    await flight.awaiting_review()
    a = driver.worker(made.endpoint.id, owner="a", webhook_timeout_seconds=30)
    cut = asyncio.create_task(a.pass_once())
    await asyncio.wait_for(hook.arrived.wait(), 10)
    cut.cancel()  # the process dies mid-request: nothing recorded, the cursor has not moved
    with pytest.raises(asyncio.CancelledError):
        await cut
    assert await driver.deliveries(made.endpoint.id) == []
    clock.advance(a.dispatcher.lease + timedelta(seconds=1))
    await driver.worker(made.endpoint.id, owner="b").pass_once()
    assert hook.ids[0] == hook.ids[1]
    [done] = await driver.deliveries(made.endpoint.id)
    assert done.status == "delivered"


async def test_private_targets_are_refused_when_saved_and_when_resolved(
    driver: Driver, flight: Flight, hook: Receiver, runtime: Runtime
) -> None:
    strict = Runtime(
        db=runtime.db,
        clock=runtime.clock,
        settings=runtime.settings.model_copy(update={"webhook_allow_private_targets": False}),
    )
    strict_flight = Flight(strict, flight.principal, driver.clock)
    for url in [
        "http://127.0.0.1/x",
        "http://[::1]/x",
        "http://10.0.0.8/",
        "http://169.254.169.254/latest",
        "http://localhost:8080/",
        "ftp://example.com/",
        "http://user:pw@example.com/",
        "nonsense",
    ]:
        error = await strict_flight.refused(
            lambda tx, u=url: endpoints.create_endpoint(tx, u, [Topic.PLAN_FAILED], None, True),
            ErrorCode.VALIDATION_FAILED,
        )
        assert error.problems[0].field == ["url"]
    # Saved while allowed, with a name; refused at delivery once resolved (127.0.0.1 is not public).
    made = await driver.endpoint(hook.url.replace("127.0.0.1", "localhost"))
    await flight.awaiting_review()
    await driver.worker(made.endpoint.id, webhook_allow_private_targets=False).pass_once()
    assert hook.received == []
    [attempt] = await driver.attempts(made.endpoint.id)
    assert attempt.error is not None
    assert "non-public" in attempt.error


@pytest.mark.parametrize("host", ISSUE_SPELLINGS)
async def test_a_spelling_of_loopback_saved_while_allowed_is_never_delivered_once_refused(
    driver: Driver, flight: Flight, hook: Receiver, host: str
) -> None:
    """Saved while private targets were allowed; once they are not, each attempt is recorded as
    refused and the receiver gets nothing; allowed again, the same URL reaches it."""
    made = await driver.endpoint(hook.url.replace("127.0.0.1", host))
    await flight.awaiting_review()
    await driver.worker(made.endpoint.id, webhook_allow_private_targets=False).pass_once()
    assert hook.received == []
    [attempt] = await driver.attempts(made.endpoint.id)
    assert (attempt.status_code, attempt.error) == (None, "refused: 127.0.0.1 is a non-public address")
    [pending] = await driver.deliveries(made.endpoint.id)
    assert (pending.status, pending.last_error) == ("pending", attempt.error)

    driver.clock.advance(RETRY_SCHEDULE[0])
    await driver.worker(made.endpoint.id).pass_once()
    assert len(hook.received) == 1
    [done] = await driver.deliveries(made.endpoint.id)
    assert done.status == "delivered"


async def test_bad_endpoint_input_is_refused_and_writes_nothing(driver: Driver, flight: Flight) -> None:
    await flight.refused(
        lambda tx: endpoints.create_endpoint(tx, "http://a.example/", [], None, True),
        ErrorCode.VALIDATION_FAILED,
    )
    await flight.refused(
        lambda tx: endpoints.update_endpoint(tx, "nope", None, None, None, False), ErrorCode.NOT_FOUND
    )
    made = await driver.endpoint("http://a.example/")
    await flight.refused(
        lambda tx: endpoints.rotate_secret(tx, made.endpoint.id, -1), ErrorCode.VALIDATION_FAILED
    )
    await flight.refused(
        lambda tx: endpoints.redeliver(tx, made.endpoint.id, 5, 4), ErrorCode.VALIDATION_FAILED
    )
    await flight.refused(
        lambda tx: endpoints.redeliver(tx, made.endpoint.id, 1, 20_001), ErrorCode.VALIDATION_FAILED
    )


async def test_a_disabled_endpoint_sends_nothing_and_resumes_where_it_stopped(
    driver: Driver, flight: Flight, hook: Receiver
) -> None:
    made = await driver.endpoint(hook.url)
    worker = driver.worker(made.endpoint.id)
    await flight.call(lambda tx: endpoints.update_endpoint(tx, made.endpoint.id, None, None, None, False))
    await flight.awaiting_review()
    assert await worker.pass_once() is False
    assert hook.received == []
    await flight.call(lambda tx: endpoints.update_endpoint(tx, made.endpoint.id, None, None, None, True))
    await worker.pass_once()
    assert [r.json["type"] for r in hook.received] == ["review.requested"]
