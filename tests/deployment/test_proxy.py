"""The deployment guide's topology for real, on loopback: nginx (configured with the guide's own block)
in front of two `flightdeck serve` processes on PostgreSQL and Redis.

A subscriber connected through nginx follows the event stream while a writer keeps mutating through
nginx; the instance the subscriber is on is stopped with SIGTERM (or, in the other test, killed with
SIGKILL); the subscriber reconnects through nginx, lands on the other instance, resumes with ``after:``
and must end up with every event of the log exactly once, in order. SIGTERM must drain: mutations in
flight on the stopping instance finish and are answered, and the WebSocket is closed with 1012, a code
on which graphql-ws reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from tests.api import operations as ops
from tests.conftest import GraphQLClient
from tests.deployment.conftest import GRACE
from tests.deployment.proxy import UPSTREAM_HEADER, Nginx
from tests.realtime.instances import Instance, event_log, last_seq, work
from tests.realtime.processes import until
from tests.realtime.rawws import EVENT_SEQS, RawSubscription
from tests.waiting import patient

PROMPT = 10.0  # an event must arrive this soon (the instances' fallback poll is 30 s away)

Event = tuple[int, str, str]

on_postgres = pytest.mark.parametrize(
    "db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


def answered_by(upstream_addr: str) -> str:
    """The instance that answered: nginx lists every upstream it tried ("a, b" when a refused)."""
    return upstream_addr.split(",")[-1].strip()


class Follower:
    """A subscriber through the proxy: which instance it landed on, and every event it was sent."""

    def __init__(self, proxy: Nginx) -> None:
        self.proxy = proxy
        self.seen: list[Event] = []
        self.sub: RawSubscription | None = None
        self.upstream = ""
        self._task: asyncio.Task[int | None] | None = None

    async def connect(self) -> None:
        after = self.seen[-1][0] if self.seen else 0
        # A browser's Origin: the server must see the proxy's Host (with its port) as its own origin.
        self.sub = await RawSubscription.open(
            self.proxy.ws_url, EVENT_SEQS, {"after": after}, origin=Origin(self.proxy.url)
        )
        self.upstream = (
            answered_by(self.sub.ws.response.headers[UPSTREAM_HEADER]) if self.sub.ws.response else ""
        )
        self._task = asyncio.create_task(self._follow(self.sub))

    async def _follow(self, sub: RawSubscription) -> int | None:
        """Reads until the connection closes; the close code it got (None: no close frame)."""
        try:
            while True:
                event = (await sub.next(within=3600))["events"]
                self.seen.append((event["seq"], event["kind"], event["rootId"]))
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None

    async def closed_with(self, within: float) -> int | None:
        assert self._task is not None
        return await asyncio.wait_for(self._task, within)

    async def until_seq(self, seq: int, within: float = PROMPT) -> None:
        async def reached() -> bool:
            if self._task is not None and self._task.done():
                raise AssertionError(f"the subscription ended: close code {self._task.result()}")
            return bool(self.seen) and self.seen[-1][0] >= seq

        await until(reached, within, f"the subscriber reaching seq {seq} (at {self.seen[-1:]})")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                await self._task
        if self.sub is not None:
            await self.sub.close()


class Writer:
    """Mutates through the proxy without pause; counts what was answered and what failed."""

    def __init__(self, proxy: Nginx) -> None:
        self.api = GraphQLClient(proxy.url)
        self.answered = 0
        self.failed: Counter[str] = Counter()
        self.go = asyncio.Event()
        self.go.set()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while not self._stop.is_set():
            await self.go.wait()
            try:
                response = await self.api.post(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
            except httpx.HTTPError as exc:
                self.failed[type(exc).__name__] += 1
                continue
            if (
                response.status_code == 200
                and not response.json()["data"]["createResearchPlan"]["userErrors"]
            ):
                self.answered += 1
            else:
                self.failed[str(response.status_code)] += 1

    async def until_answered(self, count: int) -> None:
        target = self.answered + count

        async def done() -> bool:
            return self.answered >= target

        await until(done, 30, f"{count} more writes answered")

    async def stop(self) -> None:
        self._stop.set()
        self.go.set()
        await self._task
        await self.api.aclose()


async def _refusing(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except ConnectionRefusedError:
        return True
    writer.close()
    await writer.wait_closed()
    return False


class HeldMutations:
    """``startNextStep`` on plans whose rows a test transaction holds locked: each request reaches a
    server, locks nothing yet, and waits inside its transaction until the test lets go."""

    def __init__(self, db_url: str) -> None:
        self.dsn = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.conn: asyncpg.Connection | None = None
        self.lock: asyncpg.transaction.Transaction | None = None

    async def send(self, api: GraphQLClient, count: int) -> list[asyncio.Task[httpx.Response]]:
        plans = [
            (await api.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)}))["createResearchPlan"]["plan"][
                "id"
            ]
            for _ in range(count)
        ]
        self.conn = await asyncpg.connect(self.dsn)
        self.lock = self.conn.transaction()
        await self.lock.start()
        await self.conn.execute("SELECT id FROM research_plans WHERE id = ANY($1) FOR UPDATE", plans)
        requests = [asyncio.create_task(api.post(ops.START_NEXT_STEP, {"planId": p})) for p in plans]

        # Watched from a connection of its own: inside the locking transaction, pg_stat_activity would
        # answer from the snapshot its first read took (stats_fetch_consistency), and never move on.
        monitor = await asyncpg.connect(self.dsn)
        try:
            query = (
                "SELECT pid, wait_event_type, wait_event, left(query, 120) AS query FROM pg_stat_activity"
                " WHERE $1 = ANY(pg_blocking_pids(pid))"
            )
            holder = self.conn.get_server_pid()
            deadline = time.monotonic() + patient(30)
            while len(blocked := await monitor.fetch(query, holder)) < count:
                if time.monotonic() > deadline:
                    done = [r.exception() or r.result().status_code for r in requests if r.done()]
                    raise AssertionError(
                        f"{count} mutations waiting for the plan locks did not happen within 30s: "
                        f"blocked by the test {[dict(r) for r in blocked]}; answered already {done}"
                    )
                await asyncio.sleep(0.05)
        finally:
            await monitor.close()
        return requests

    async def release(self) -> None:
        if self.lock is not None:
            await self.lock.rollback()
            self.lock = None
        if self.conn is not None:
            await self.conn.close()
            self.conn = None


async def _finish(writer: Writer, follower: Follower, api: GraphQLClient, start: int) -> list[Event]:
    """Stop writing, let the subscriber catch up with the log, and return the log after ``start``."""
    await writer.stop()
    log = await event_log(api, start)
    await follower.until_seq(log[-1][0])
    await asyncio.sleep(0.5)  # anything sent twice or after the end would arrive now
    return log


@on_postgres
async def test_sigterm_drains_and_the_subscriber_resumes_through_the_proxy_on_the_other_instance(
    db_url: str, topology: tuple[Nginx, list[Instance]]
) -> None:
    import sys as _sys

    _sys.modules.get("dbgplugin") and setattr(_sys.modules["dbgplugin"], "LOOP", asyncio.get_running_loop())
    proxy, instances = topology
    api = GraphQLClient(proxy.url)
    held = HeldMutations(db_url)
    follower = Follower(proxy)
    writer: Writer | None = None
    try:
        assert (await api.http.get("/readyz")).status_code == 200  # probes go through the proxy too
        await work(api)  # history before the subscriber
        await follower.connect()
        stopped = next(i for i in instances if follower.upstream == f"127.0.0.1:{i.port}")
        other = next(i for i in instances if i is not stopped)
        writer = Writer(proxy)
        await writer.until_answered(10)
        await follower.until_seq(await last_seq(api))

        # Mutations in flight on both instances (round robin), waiting for row locks we hold.
        writer.go.clear()
        requests = await held.send(api, 6)
        writer.go.set()
        stopped.terminate()
        await until(lambda: _refusing(stopped.port), 10, f"{stopped.name} to stop accepting connections")
        # Shutdown has begun; the WebSocket is closed with 1012 ("service restart") right away.
        assert await follower.closed_with(10) == 1012
        assert not any(r.done() for r in requests)
        await held.release()

        answers = await asyncio.gather(*requests)
        assert {answered_by(r.headers[UPSTREAM_HEADER]) for r in answers} == {
            f"127.0.0.1:{i.port}" for i in instances
        }
        for answer in answers:  # those on the stopping instance too: finished and answered
            assert answer.status_code == 200, answer.text
            assert answer.json()["data"]["startNextStep"]["outcome"] == "STARTED", answer.text
        assert stopped.proc is not None
        assert await asyncio.to_thread(stopped.proc.wait, GRACE + 10) in (0, -15)  # SIGTERM re-raised

        await follower.connect()  # resumes after the last seq it saw, through the proxy
        assert follower.upstream == f"127.0.0.1:{other.port}"
        await writer.until_answered(10)
        log = await _finish(writer, follower, api, 0)
        assert follower.seen == log  # every event, exactly once, in order
        assert [s for s, _, _ in log] == list(range(1, len(log) + 1))
        print(
            f"\nSIGTERM: {writer.answered} writes answered, failed: {dict(writer.failed)}; {len(log)} events"
        )
        # A write can only fail if it hit the instant between accept() closing and the backlog reset.
        assert set(writer.failed) <= {"502"}, writer.failed
    finally:
        await held.release()
        if writer is not None:
            await writer.stop()
        await follower.close()
        await api.aclose()


@on_postgres
async def test_a_killed_instance_loses_no_event_for_a_subscriber_that_resumes_through_the_proxy(
    topology: tuple[Nginx, list[Instance]],
) -> None:
    proxy, instances = topology
    api = GraphQLClient(proxy.url)
    follower = Follower(proxy)
    writer: Writer | None = None
    try:
        await work(api)
        await follower.connect()
        killed = next(i for i in instances if follower.upstream == f"127.0.0.1:{i.port}")
        other = next(i for i in instances if i is not killed)
        writer = Writer(proxy)
        await writer.until_answered(10)

        killed_at = time.monotonic()
        killed.kill()
        assert await follower.closed_with(10) is None  # no close frame: the connection just dropped
        await follower.connect()
        assert follower.upstream == f"127.0.0.1:{other.port}"
        resumed_after = time.monotonic() - killed_at
        await writer.until_answered(10)  # writes go on through the proxy, to the survivor

        log = await _finish(writer, follower, api, 0)
        assert follower.seen == log
        assert [s for s, _, _ in log] == list(range(1, len(log) + 1))
        print(
            f"\nkill -9: resumed {resumed_after:.2f}s after the kill; {writer.answered} writes answered, "
            f"failed: {dict(writer.failed)}; {len(log)} events"
        )
        assert set(writer.failed) <= {"502"}, writer.failed  # only the requests the killed one held
    finally:
        if writer is not None:
            await writer.stop()
        await follower.close()
        await api.aclose()
