"""Clean lifecycle of subscriptions and of the server itself, checked from inside the server's own loop.

- a client's disconnect (clean or abrupt) ends its server-side generator and releases the tenant tail;
- 1,000 connect/subscribe/disconnect cycles leave no task, tail or bus subscription behind;
- a subscriber that stops reading costs bounded memory: uvicorn's flow control parks its generator at a
  position, the ring stays at its size, and when it reads again it catches up from the table;
- shutdown lets in-flight mutations finish and commit, and writes their operation-log records.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import ConnectionClosed

from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Event, OperationLog, PlanStep, ResearchPlan, TenantCounter
from server.realtime import feed as feed_module
from server.realtime.feed import LoggedEvent, TenantTail
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.rawws import EVENT_SEQS, RawSubscription, read_seqs
from tests.waiting import patient

# SQLite is enough here: everything checked is the state of one process.
pytestmark = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)

TENANT = "default"


async def _server_state(live: LiveServer) -> dict[str, Any]:
    """Runs on the server's loop: what a subscription could leave behind."""
    app = live.app
    runtime = app.state.runtime
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    names = [t.get_name() for t in tasks]
    return {
        "tails": {tenant: tail.refs for tenant, tail in runtime.feed.tails.items()},
        "tail_tasks": sorted(n for n in names if n.startswith("tail:")),
        "bus_tasks": sorted(n for n in names if n.startswith(("notice-bus:", "notice-publisher:"))),
        "bus_connected": app.state.bus.connected.is_set(),
        # memory:// here: the channels this process's bus listens on (one, however many subscribers)
        "channels": sorted(getattr(app.state.bus._backend, "_subscribed", ())),
        "tasks": len(tasks),
        "coros": Counter(getattr(t.get_coro(), "__qualname__", "?") for t in tasks),
        "websockets": len(_ws_transports(live)),
        "requests": len(live.server.server_state.tasks),
    }


def _state(live: LiveServer) -> dict[str, Any]:
    return dict(live.call(_server_state(live)))


def _ws_transports(live: LiveServer) -> list[Any]:
    """The transports of the server's open WebSocket connections (call on the server's loop)."""
    connections = live.server.server_state.connections
    return [c.transport for c in connections if isinstance(c, WebSocketsSansIOProtocol)]


async def _until(check: Callable[[], bool], within: float = 10, what: str = "condition") -> None:
    deadline = time.monotonic() + patient(within)
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {within}s")
        await asyncio.sleep(0.02)


# Tasks that come and go on their own: SQLAlchemy closes a session in a shielded task of its own, so
# a loop's pass that is ending shows one for a moment. A snapshot to compare waits for them to end.
TRANSIENT = ("AsyncSession.close",)


def _settled(state: dict[str, Any]) -> bool:
    return state["requests"] == 0 and not any(state["coros"][name] for name in TRANSIENT)


async def _settled_state(live: LiveServer) -> dict[str, Any]:
    seen: list[dict[str, Any]] = []
    await _until(
        lambda: _settled(seen.append(_state(live)) or seen[-1]), what="no request or session closing"
    )
    return seen[-1]


def _released(live: LiveServer, baseline: int | None = None) -> bool:
    state = _state(live)
    if not _settled(state):
        return False
    done = not state["tails"] and not state["tail_tasks"] and state["websockets"] == 0
    return done and (baseline is None or state["tasks"] == baseline)


async def _close_code(sub: RawSubscription) -> int | None:
    """Read until the server closes the connection; its close code."""
    try:
        while True:
            await sub.next(within=5)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


@pytest.mark.parametrize("how", ["close", "abort"])
async def test_a_disconnect_cancels_the_server_side_generator(
    live_server: LiveServer, client: GraphQLClient, how: str
) -> None:
    await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    assert _state(live_server)["tails"] == {}

    sub = await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": 0})
    assert (await sub.next())["events"]["seq"] == 1
    following = _state(live_server)
    assert following["tails"] == {TENANT: 1}
    assert following["tail_tasks"] == [f"tail:{TENANT}"]

    if how == "close":
        await sub.close()
    else:
        sub.abort()  # no close frame: the server only sees the socket die
    await _until(lambda: _released(live_server), what="tail, tail task and connection released")

    # Still serving: a new subscriber gets a fresh tail.
    again = await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": 0})
    assert (await again.next())["events"]["seq"] == 1
    await again.close()
    await _until(lambda: _released(live_server), what="second subscriber released")


async def test_a_thousand_connect_subscribe_disconnect_cycles_leave_nothing_behind(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    clients, cycles = 20, 50
    await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    before = await _settled_state(live_server)
    assert before["tails"] == {}
    assert before["bus_tasks"] == ["notice-bus:flightdeck_events", "notice-publisher:flightdeck_events"]
    assert before["channels"] == ["flightdeck_events"]

    async def worker(n: int) -> None:
        for i in range(cycles):
            sub = await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": 0})
            assert (await sub.next())["events"]["seq"] == 1
            if (n + i) % 4 == 0:
                sub.abort()  # every fourth one vanishes without a close frame
            else:
                await sub.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(clients)))
    elapsed = time.perf_counter() - started
    print(f"\n{clients * cycles} connect/subscribe/disconnect cycles took {elapsed:.2f}s")

    try:
        await _until(
            lambda: _released(live_server, before["tasks"]), what="tails, tasks and connections back"
        )
    except AssertionError:
        after = _state(live_server)
        raise AssertionError(
            f"left behind: tails={after['tails']} tail_tasks={after['tail_tasks']} "
            f"websockets={after['websockets']} tasks {before['tasks']} -> {after['tasks']}: "
            f"{after['coros'] - before['coros']}"
        ) from None
    after = await _settled_state(live_server)
    assert after["coros"] == before["coros"]
    assert after["bus_tasks"] == before["bus_tasks"]  # still exactly one supervisor and one publisher
    assert after["bus_connected"]
    assert after["channels"] == ["flightdeck_events"]
    assert after["requests"] == 0  # no request task either
    gc.collect()
    assert [o for o in gc.get_objects() if isinstance(o, TenantTail)] == []


async def test_a_slow_subscriber_falls_behind_the_ring_and_catches_up_from_the_table(
    db_url: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ring, at_least = 16, 500
    live = start_server(Settings(database_url=db_url, feed_ring_size=ring), clock)
    producer = GraphQLClient(live.url)
    try:
        table_reads: list[tuple[str, int, int]] = []  # (task name, after, events read)
        real_read = feed_module.read_events

        async def spy(db: Database, tenant_id: str, after: int, limit: int) -> list[LoggedEvent]:
            events = await real_read(db, tenant_id, after, limit)
            task = asyncio.current_task()
            table_reads.append((task.get_name() if task else "?", after, len(events)))
            return events

        monkeypatch.setattr(feed_module, "read_events", spy)

        # A client that reads nothing: a tiny receive buffer, at most one message queued in the library.
        sub = await RawSubscription.open(live.ws_url, EVENT_SEQS, {"after": 0}, recv_buffer=4096, max_queue=1)
        await _until(lambda: _state(live)["tails"] == {TENANT: 1}, what="subscription following")

        # A slow network on the server side too: small kernel send buffer, small transport buffer.
        async def shrink() -> None:
            (transport,) = _ws_transports(live)
            transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            transport.set_write_buffer_limits(high=4096)

        live.call(shrink())

        async def sample() -> tuple[int, int, int | None]:
            tail = live.app.state.runtime.feed.tails[TENANT]
            (transport,) = _ws_transports(live)
            return len(tail.ring), transport.get_write_buffer_size(), tail.ring.maxlen

        async def position() -> int:
            return int(await live.app.state.runtime.feed.position(TENANT))

        def on_server(coro: Any) -> Any:  # like live.call, without blocking this loop
            return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, live.app.state.loop))

        async def run_plans() -> None:  # whole plans: about three events per mutation
            while await on_server(position()) < at_least:
                created = await producer.execute(ops.CREATE_PLAN, {"input": ops.plan_input(6)})
                plan_id = created["createResearchPlan"]["plan"]["id"]
                for _ in range(6):
                    started = await producer.execute(ops.START_NEXT_STEP, {"planId": plan_id})
                    step_id = started["startNextStep"]["step"]["id"]
                    result = {"stepId": step_id, "resultSummary": "ok"}
                    await producer.execute(ops.SUBMIT_RESULT, {"input": result})

        samples = []
        producers = asyncio.gather(*(run_plans() for _ in range(8)))
        while not producers.done():
            samples.append(await on_server(sample()))
            await asyncio.sleep(0.05)
        await producers
        samples.append(live.call(sample()))
        total = live.call(position())
        assert total >= at_least
        assert all(maxlen == ring for _, _, maxlen in samples)
        assert max(size for size, _, _ in samples) <= ring
        # Flow control holds the stalled generator: the server buffers at most ~one message over the mark.
        assert max(buffered for _, buffered, _ in samples) <= 4096 + 1024

        seqs = await read_seqs(sub, total, within=60)
        assert seqs == list(range(1, total + 1))  # every event, once, in order
        with pytest.raises(TimeoutError):
            await sub.next(within=0.3)  # and nothing after the last one

        catch_up = [(after, n) for name, after, n in table_reads if not name.startswith("tail:") and after]
        assert catch_up, f"the subscriber never fell behind the ring: {table_reads}"
        print(f"\nthe stalled subscriber caught up in {len(catch_up)} table reads: {catch_up[:5]}...")
        await sub.close()
    finally:
        await producer.aclose()
        stop_server(live)


async def test_shutdown_lets_in_flight_mutations_commit_and_flushes_the_operation_log(
    live_server: LiveServer, settings: Settings
) -> None:
    n = 20
    loop = live_server.app.state.loop
    db: Database = live_server.app.state.runtime.db
    assert db.is_sqlite
    gate: asyncio.Event | None = None
    holding = threading.Event()

    async def hold_the_writer() -> None:
        nonlocal gate
        gate = asyncio.Event()
        async with db.transaction():  # the single SQLite writer: every mutation queues behind us
            holding.set()
            await gate.wait()

    held = asyncio.run_coroutine_threadsafe(hold_the_writer(), loop)
    assert holding.wait(10)

    clients = [GraphQLClient(live_server.url) for _ in range(n)]
    subscriber = await RawSubscription.open(live_server.ws_url, EVENT_SEQS, {"after": 0})
    requests = [asyncio.create_task(c.post(ops.CREATE_PLAN, {"input": ops.plan_input(3)})) for c in clients]
    try:
        await _until(  # every request has reached the server and waits for the writer
            lambda: (lambda st: st["requests"] - st["websockets"])(_state(live_server)) == n,
            what=f"{n} requests in flight",
        )

        live_server.server.should_exit = True

        async def serving() -> bool:
            return any(s.is_serving() for s in live_server.server.servers)

        await _until(lambda: not live_server.call(serving()), what="uvicorn stopped accepting")
        assert not any(r.done() for r in requests)  # shutdown has begun; all 20 are still waiting
    finally:
        loop.call_soon_threadsafe(lambda: gate.set() if gate is not None else None)
        held.result(10)
    try:
        responses = await asyncio.wait_for(asyncio.gather(*requests, return_exceptions=True), 30)
        live_server.thread.join(30)
        assert not live_server.thread.is_alive()
        # The subscriber was told the server is going away (1012, "service restart") and can resume.
        assert await _close_code(subscriber) == 1012
    finally:
        for request in requests:
            request.cancel()
        for c in clients:
            await c.aclose()
        await subscriber.close()

    answered = []
    for r in responses:
        assert not isinstance(r, BaseException), r  # every in-flight request was answered
        assert r.status_code == 200, r.text
        payload = r.json()["data"]["createResearchPlan"]
        assert payload["userErrors"] == []
        answered.append(payload["plan"]["id"])
    assert len(set(answered)) == n

    feed = live_server.app.state.runtime.feed
    assert feed.tails == {}
    check = Database(settings.database_url)
    try:
        async with check.reader() as s:
            plans = set(await s.scalars(select(ResearchPlan.id)))
            steps = Counter(await s.scalars(select(PlanStep.plan_id)))
            events = list(await s.execute(select(Event.seq, Event.root_id, Event.kind).order_by(Event.seq)))
            counter = await s.scalar(select(TenantCounter.last_seq).where(TenantCounter.tenant_id == TENANT))
            logged = await s.scalar(
                select(func.count()).select_from(OperationLog).where(OperationLog.operation_name == "Create")
            )
    finally:
        await check.dispose()
    assert plans == set(answered)  # every answered request committed, nothing else did
    assert steps == dict.fromkeys(answered, 3)  # none half-written
    assert [e.seq for e in events] == list(range(1, n + 1))
    assert counter == n
    assert Counter(e.root_id for e in events if e.kind == "plan_modified") == dict.fromkeys(answered, 1)
    assert logged == n  # the operation log writer flushed before the process ended
