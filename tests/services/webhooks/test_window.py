"""The shared event window hands an endpoint every event after its cursor, or sends it to the log.

The window refreshes itself when it is older than ``FRESH_SECONDS``; on a loaded machine every pass is
that late. These tests give the window a monotonic clock that is always that late (or never), so the
interleaving a loaded machine produces by chance happens on every run, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import replace

from server.services.runtime import Runtime
from server.services.webhooks import delivery, endpoints
from server.services.webhooks.delivery import EndpointState, Work
from server.services.webhooks.topics import Topic
from server.services.webhooks.window import COVERED_KINDS, FRESH_SECONDS, EventWindow
from tests.services.helpers import Flight


class Ticks:
    """A monotonic clock that moves only when told; ``late`` makes every reading a refresh's worth later."""

    def __init__(self, late: bool) -> None:
        self.at = 0.0
        self.late = late

    def __call__(self) -> float:
        if self.late:
            self.at += 2 * FRESH_SECONDS
        return self.at


async def _endpoint(flight: Flight) -> EndpointState:
    topics = [Topic.REVIEW_REQUESTED]
    made = await flight.call(
        lambda tx: endpoints.create_endpoint(tx, "https://hooks.example/x", topics, "t", True)
    )
    now = flight.clock.now()
    async with flight.runtime.db.reader() as session:
        endpoint = await delivery.read_endpoint(session, made.endpoint.id, now)
    assert endpoint is not None
    return endpoint


async def _read(runtime: Runtime, window: EventWindow, endpoint: EndpointState, limit: int) -> Work:
    return await delivery.read_work(runtime.db, endpoint, runtime.clock.now(), limit, lambda _: window)


async def _drain(runtime: Runtime, window: EventWindow, endpoint: EndpointState, limit: int) -> list[int]:
    """Pass after pass, as the endpoint's worker makes them (its cursor moved by each), until nothing is
    left: the seqs handed out."""
    seqs: list[int] = []
    while True:
        work = await _read(runtime, window, endpoint, limit)
        seqs += [i.seq for i in work.items]
        if not work.items and not work.more:
            return seqs
        endpoint = replace(endpoint, cursor_seq=work.cursor)


async def _requested(flight: Flight) -> list[int]:
    return [e.seq for e in await flight.events(kind="user_reviewed")]


async def test_an_endpoint_alone_on_a_late_window_gets_every_event(runtime: Runtime, flight: Flight) -> None:
    """Batches of one, a window of four, every pass later than a refresh: refreshing a window that was
    full (behind the log) dropped the events the endpoint had yet to take."""
    endpoint = await _endpoint(flight)
    for _ in range(6):
        await flight.awaiting_review()
    window = EventWindow(flight.tenant_id, 4, Ticks(late=True))
    assert await _drain(runtime, window, endpoint, 1) == await _requested(flight)
    assert len(window.events) == 4


async def test_an_endpoint_whose_events_a_refresh_drops_reads_the_log_itself(
    runtime: Runtime, flight: Flight
) -> None:
    """A slow endpoint sits at the start of the window; a refresh brings new events and drops the oldest,
    some after its cursor. It gets them from the log, not the window's remainder."""
    slow = await _endpoint(flight)
    await flight.awaiting_review()
    ticks = Ticks(late=False)
    first = await _requested(flight)
    # Room for the first flight's events and one more: the window is not full (not behind the log).
    capacity = len([e for e in await flight.events() if e.kind in COVERED_KINDS]) + 1
    window = EventWindow(flight.tenant_id, capacity, ticks)
    one = await _read(runtime, window, slow, 1)  # another endpoint's pass at the same cursor
    assert [i.seq for i in one.items] == first
    assert window.start == slow.cursor_seq
    for _ in range(2):
        await flight.awaiting_review()
    ticks.at += 2 * FRESH_SECONDS  # the window is stale: the next pass refreshes it
    assert await _drain(runtime, window, slow, 10) == await _requested(flight)
    assert window.start is not None
    assert window.start > slow.cursor_seq  # the refresh did drop some
