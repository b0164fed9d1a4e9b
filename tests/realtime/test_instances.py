"""Several instances for real: `flightdeck serve` processes sharing PostgreSQL and Redis.

Each server process runs with a feed poll interval far longer than the time a test allows for
delivery, so an event that arrives in time reached the other process through the broker (or, after a
broker outage, through the resync that follows the reconnect), never through the periodic re-read.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.api import operations as ops
from tests.conftest import GraphQLClient
from tests.realtime.conftest import PrivateRedis
from tests.realtime.instances import Instance, StartInstances, event_log, last_seq, work
from tests.realtime.processes import REPO, end_process, until
from tests.realtime.rawws import EVENT_SEQS, RawSubscription, read_seqs
from tests.waiting import patient

PROMPT = 5.0  # how long a test waits for an event that should arrive through the broker

# PostgreSQL only: several processes cannot share a SQLite file's single in-process writer.
on_postgres = pytest.mark.parametrize(
    "db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)

# -- helpers --


async def _broker_subscribers(redis_url: str, channel: str) -> int:
    from redis import asyncio as redis

    conn = redis.Redis.from_url(redis_url)
    try:
        ((_, count),) = await conn.pubsub_numsub(channel)
        return int(count)
    finally:
        await conn.aclose()


async def _subscribe_live(instance: Instance, api: GraphQLClient) -> tuple[RawSubscription, int]:
    """A subscriber that is surely following: it asks for one event before now and waits for it."""
    current = await last_seq(api)
    assert current > 0
    sub = await RawSubscription.open(instance.ws_url, EVENT_SEQS, {"after": current - 1})
    assert (await sub.next())["events"]["seq"] == current
    return sub, current


async def _stream(sub: RawSubscription, until_seq: int, within: float) -> list[tuple[int, str, str]]:
    seen: list[tuple[int, str, str]] = []
    deadline = time.monotonic() + patient(within)
    while not seen or seen[-1][0] < until_seq:
        event = (await sub.next(within=max(0.01, deadline - time.monotonic())))["events"]
        seen.append((event["seq"], event["kind"], event["rootId"]))
    return seen


# -- the tests --


@on_postgres
async def test_a_subscriber_on_one_instance_sees_mutations_made_through_the_other(
    redis_url: str, start_instances: StartInstances
) -> None:
    one, two = await start_instances(redis_url)
    api = GraphQLClient(two.url)
    assert await _broker_subscribers(redis_url, one.channel) == 2  # one per process
    try:
        await work(api)  # history before the subscription
        sub, current = await _subscribe_live(one, api)
        seen: list[tuple[int, str, str]] = []
        latencies = []
        for _ in range(5):  # one at a time: each must arrive long before the poll would fetch it
            started = time.monotonic()
            await work(api)
            seen += await _stream(sub, await last_seq(api), PROMPT)
            latencies.append(time.monotonic() - started)
        # A burst of concurrent mutations through instance 2.
        await asyncio.gather(*(api.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)}) for _ in range(20)))
        seen += await _stream(sub, await last_seq(api), PROMPT)
        with pytest.raises(TimeoutError):
            await sub.next(within=0.5)  # nothing more, nothing twice
        assert await _broker_subscribers(redis_url, one.channel) == 2  # a GraphQL subscriber adds none
        await sub.close()

        assert seen == await event_log(api, current)  # the log itself, in order, exactly once
        assert [s for s, _, _ in seen] == list(range(current + 1, current + 1 + 5 * 4 + 20))
        assert max(latencies) < PROMPT, latencies
        print(f"\ncross-instance latency per mutation pair: max {max(latencies) * 1000:.0f} ms")
    finally:
        await api.aclose()


@on_postgres
async def test_every_event_arrives_exactly_once_across_a_redis_restart(
    private_redis: PrivateRedis, start_instances: StartInstances
) -> None:
    one, two = await start_instances(private_redis.url)
    api = GraphQLClient(two.url)
    try:
        await work(api)
        sub, current = await _subscribe_live(one, api)
        await work(api)  # through the broker while it is up
        seen = await _stream(sub, await last_seq(api), PROMPT)

        logged = {i.name: len(i.log_text()) for i in (one, two)}
        private_redis.kill()
        for _ in range(3):  # committed while no notice can travel
            await work(api)

        async def both_noticed() -> bool:
            return all("lost its broker" in i.log_text()[logged[i.name] :] for i in (one, two))

        # Both buses give up on the dead connection and enter their own reconnect loop, so what brings
        # the outage's events across is the resync after the reconnect, not a notice.
        await until(both_noticed, 30, "both instances noticing the broker is gone")
        await work(api)  # still down
        during_outage = await last_seq(api)
        with pytest.raises(TimeoutError):
            await sub.next(within=0.5)  # nothing can arrive: no notice, and the poll is far away

        restarted = time.monotonic()
        await private_redis.start()
        seen += await _stream(sub, during_outage, PROMPT)  # the resync reads the log
        resynced_after = time.monotonic() - restarted

        for _ in range(3):  # and live again through the restarted broker
            await work(api)
        seen += await _stream(sub, await last_seq(api), PROMPT)
        with pytest.raises(TimeoutError):
            await sub.next(within=0.5)
        await sub.close()

        assert seen == await event_log(api, current)
        assert [s for s, _, _ in seen] == list(range(current + 1, current + 1 + 8 * 4))
        print(f"\noutage events arrived {resynced_after:.2f}s after Redis was back")
    finally:
        await api.aclose()


@on_postgres
async def test_a_cut_socket_resumes_with_after_and_loses_or_doubles_nothing(
    redis_url: str, start_instances: StartInstances
) -> None:
    one, two = await start_instances(redis_url)
    api = GraphQLClient(two.url)
    producer: asyncio.Task[None] | None = None
    try:
        await work(api)
        sub, start = await _subscribe_live(one, api)
        stop = asyncio.Event()

        async def produce() -> None:
            while not stop.is_set():
                await work(api)

        producer = asyncio.create_task(produce())
        first = [s for s, _, _ in await _stream(sub, start + 12, PROMPT)]
        sub.abort()  # mid-stream: no close frame, and whatever the socket still holds is lost
        resumed = await RawSubscription.open(one.ws_url, EVENT_SEQS, {"after": first[-1]})
        await asyncio.sleep(0.5)  # events keep coming while the new subscription replays
        stop.set()
        await producer
        last = await last_seq(api)
        assert last >= first[-1] + 8, "the producer should have kept going after the cut"
        second = await read_seqs(resumed, last, PROMPT)
        with pytest.raises(TimeoutError):
            await resumed.next(within=0.5)
        await resumed.close()

        assert first + second == list(range(start + 1, last + 1))  # nothing lost, nothing doubled
    finally:
        if producer is not None and not producer.done():
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await producer
        await api.aclose()


def test_no_server_process_outlives_its_test(tmp_path: Path) -> None:
    """The launcher's death signal: a child of a process that dies uncleanly is ended too."""
    if sys.platform != "linux":
        pytest.skip("PR_SET_PDEATHSIG is Linux-only")
    pid_file = tmp_path / "child.pid"
    parent = (
        "import subprocess, sys, time\n"
        "from tests.realtime.processes import spawn\n"
        "from pathlib import Path\n"
        f"p = spawn(['/bin/sleep', '300'], {{}}, Path({str(tmp_path / 'log')!r}))\n"
        f"Path({str(pid_file)!r}).write_text(str(p.pid))\n"
        "import signal; signal.pause()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", parent], cwd=REPO)
    try:
        deadline = time.monotonic() + patient(20)
        while not pid_file.exists() or not pid_file.read_text():
            assert proc.poll() is None, "the parent process failed before starting its child"
            assert time.monotonic() < deadline, "the parent did not start its child"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        proc.kill()  # no teardown, no finally: only the kernel can end the child now
        proc.wait(10)
        deadline = time.monotonic() + patient(10)
        while _alive(child):
            assert time.monotonic() < deadline, f"orphan {child} survived its parent"
            time.sleep(0.05)
    finally:
        end_process(proc)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by init) counts as gone.
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    return False
