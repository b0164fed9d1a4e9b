"""`flightdeck serve` processes for tests of several instances: started, stopped, killed and restarted."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.api import operations as ops
from tests.conftest import GraphQLClient
from tests.realtime.processes import end_process, free_port, spawn, tail_of, until

POLL_SECONDS = 30.0  # the fallback re-read; every delivery a test waits for must beat it by far


class Endpoint:
    """Flightdeck's URLs at a port of 127.0.0.1 (an instance, or a proxy in front of some)."""

    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/graphql"


@dataclass
class Instance(Endpoint):
    name: str
    port: int
    env: dict[str, str]
    log: Path
    channel: str
    proc: subprocess.Popen[bytes] | None = field(default=None)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def start(self) -> None:
        argv = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.proc = spawn(argv, self.env, self.log)

    async def ready(self, within: float = 60) -> None:
        """Wait until /readyz answers 200: migrated, broker connected, loops running."""
        async with httpx.AsyncClient(timeout=2) as http:

            async def answered() -> bool:
                if self.proc is None or self.proc.poll() is not None:
                    raise AssertionError(f"{self.name} exited:\n{tail_of(self.log)}")
                with contextlib.suppress(httpx.HTTPError):
                    return (await http.get(f"{self.url}/readyz")).status_code == 200
                return False

            await until(answered, within, f"{self.name} /readyz")

    def terminate(self) -> None:
        """SIGTERM, as systemd or an orchestrator stops a service; returns at once."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL: gone at once, as in a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None:
            end_process(self.proc)


# -- reading and writing through the API --


async def event_log(api: GraphQLClient, after: int = 0) -> list[tuple[int, str, str]]:
    """(seq, kind, rootId) of every event after ``after``, read from the log through the API."""
    events: list[tuple[int, str, str]] = []
    while True:
        page = (await api.execute(ops.EVENTS, {"rootId": None, "after": after, "first": 100}))["events"]
        events += [(e["node"]["seq"], e["node"]["kind"], e["node"]["rootId"]) for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return events
        after = events[-1][0]


async def last_seq(api: GraphQLClient) -> int:
    log = await event_log(api)
    return log[-1][0] if log else 0


async def work(api: GraphQLClient) -> None:
    """One create and one step start: four events."""
    created = await api.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    started = await api.execute(ops.START_NEXT_STEP, {"planId": plan_id})
    assert started["startNextStep"]["userErrors"] == []


StartInstances = Callable[..., Awaitable[list[Instance]]]


async def instances_on(db_url: str, tmp_path: Path, channel: str) -> AsyncIterator[StartInstances]:
    """The body of the ``start_instances`` fixture: processes on one database and channel, ended after."""
    started: list[Instance] = []

    async def start(
        broadcast_url: str,
        count: int = 2,
        poll_seconds: float = POLL_SECONDS,
        extra_env: dict[str, str] | None = None,
    ) -> list[Instance]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_")}
        env.pop("DATABASE_URL", None)
        env.update(
            DATABASE_URL=db_url,
            BROADCAST_URL=broadcast_url,
            FLIGHTDECK_BROADCAST_CHANNEL=channel,
            FLIGHTDECK_FEED_POLL_SECONDS=str(poll_seconds),
            PYTHONUNBUFFERED="1",
            **(extra_env or {}),
        )
        batch = []
        for _ in range(count):
            name = f"instance-{len(started) + 1}"
            instance = Instance(name, free_port(), env, tmp_path / f"{name}.log", channel)
            instance.start()
            started.append(instance)
            batch.append(instance)
        for instance in batch:
            await instance.ready()
        return batch

    try:
        yield start
    finally:
        for instance in started:
            instance.stop()
