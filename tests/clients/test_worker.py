"""The Python client's Worker in real processes against a real server.

Four worker processes run seed 002 §4.3 (one step fails, the others are undone in reverse order by
their undo handlers) and a 50-step DAG; a worker killed with kill -9 mid-step loses its step to the
heartbeat timeout and another worker retries it. The server runs on the fake clock: the test moves
time, nothing sleeps for a timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from server.config import Settings
from server.db.engine import Database
from server.db.models import Event
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.processes import end_process, spawn, tail_of, until
from tests.services.workflow_helpers import seed_4_3_yaml

SEED_STEPS = ["create-account", "provision-workspace", "setup-analytics", "send-welcome"]
AGENTS = ["data-pipeline", "product-analyst", "growth-optimizer", "general"]

CREATE_YAML = """
mutation Create($yaml: String!, $name: String) {
  createWorkflowFromYaml(yaml: $yaml, name: $name) { workflow { id } userErrors { code message field } }
}
"""
STEPS = """
query Steps($id: ID!) {
  workflow(id: $id) {
    status outcome
    steps(first: 100) { edges { node { id name status attempt completionOrder claimedBy } } }
  }
}
"""


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, workflow_timer_interval_seconds=0.05)


class Workers:
    def __init__(
        self, live: LiveServer, tmp: Path, names: list[str], fail: str = "", grace: float = 5.0
    ) -> None:
        self.log = tmp / "worker-lines.log"
        self.log.touch()
        self.out = tmp / "workers.out"
        self.env = {**os.environ, "FAIL_STEPS": fail, "GRACE": str(grace)}
        self.live, self.names, self.procs = live, names, {}

    def start(self, agent: str) -> int:
        argv = [
            sys.executable,
            "-m",
            "tests.clients.worker_app",
            self.live.url,
            agent,
            str(self.log),
            *self.names,
        ]
        proc = spawn(argv, self.env, self.out)
        self.procs[proc.pid] = proc
        return proc.pid

    def lines(self) -> list[list[str]]:
        return [line.split() for line in self.log.read_text().splitlines()]

    def ready(self) -> bool:
        """Whether every running worker has its SIGTERM handler in (a slow start-up on a busy machine
        must not meet the signal while the default action would still kill the process)."""
        ready = {line[1] for line in self.lines() if line[0] == "ready"}
        return all(str(pid) in ready for pid, proc in self.procs.items() if proc.poll() is None)

    def stop_all(self) -> dict[int, int | None]:
        deadline = time.monotonic() + 60
        while not self.ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        codes = {}
        for pid, proc in self.procs.items():
            try:
                codes[pid] = proc.wait(15)
            except subprocess.TimeoutExpired:
                end_process(proc)
                codes[pid] = None
        return codes


@pytest.fixture
def workers_factory(live_server: LiveServer, tmp_path: Path) -> Iterator[Any]:
    made: list[Workers] = []

    def make(names: list[str], fail: str = "", grace: float = 5.0) -> Workers:
        w = Workers(live_server, tmp_path, names, fail, grace)
        made.append(w)
        return w

    yield make
    for w in made:
        w.stop_all()


async def create(client: GraphQLClient, yaml: str, name: str) -> str:
    made = (await client.execute(CREATE_YAML, {"yaml": yaml, "name": name}))["createWorkflowFromYaml"]
    assert made["userErrors"] == [], made
    workflow_id: str = made["workflow"]["id"]
    await client.execute(ops.START, {"id": workflow_id})
    return workflow_id


async def finished(client: GraphQLClient, workflow_id: str) -> dict[str, Any]:
    async def done() -> bool:
        return (await client.execute(STEPS, {"id": workflow_id}))["workflow"]["outcome"] is not None

    await until(done, 60, f"workflow {workflow_id} finishing")
    workflow: dict[str, Any] = (await client.execute(STEPS, {"id": workflow_id}))["workflow"]
    return workflow


def by_name(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["node"]["name"]: e["node"] for e in workflow["steps"]["edges"]}


def dag_yaml(n: int) -> str:
    lines = ["steps:"]
    for i in range(n):
        deps = sorted(
            {f"d{(i - 1) // 2}", f"d{i - 25}"} if i >= 25 else ({f"d{(i - 1) // 2}"} if i else set())
        )
        lines.append(f"  - name: d{i}")
        if deps:
            lines.append(f"    dependsOn: [{', '.join(deps)}]")
    return "\n".join(lines) + "\n"


async def completions(live: LiveServer, workflow_id: str) -> Counter[str]:
    db = Database(live.settings.database_url)
    try:
        async with db.reader() as session:
            rows = await session.scalars(
                select(Event.entity_id).where(
                    Event.root_id == workflow_id,
                    Event.kind == "workflow_step_transitioned",
                    Event.to_state == "completed",
                )
            )
            return Counter(rows.all())
    finally:
        await db.dispose()


async def test_four_workers_run_seed_4_3_with_compensation_and_a_50_step_dag(
    live_server: LiveServer, client: GraphQLClient, workers_factory: Any
) -> None:
    dag_names = [f"d{i}" for i in range(50)]
    workers = workers_factory([*SEED_STEPS, *dag_names], fail="setup-analytics")
    pids = {workers.start(agent): agent for agent in AGENTS}
    onboarding = await create(client, seed_4_3_yaml(), "onboarding")
    dag = await create(client, dag_yaml(50), "dag")
    try:
        seed_run, dag_run = await finished(client, onboarding), await finished(client, dag)
    except AssertionError:
        raise AssertionError(tail_of(workers.out)) from None
    # The DAG: every step completed exactly once, by some worker, each only after its dependencies.
    assert (dag_run["status"], dag_run["outcome"]) == ("COMPLETED", "SUCCEEDED")
    assert await completions(live_server, dag) == dict.fromkeys(
        (s["id"] for s in by_name(dag_run).values()), 1
    )
    done = [line[1] for line in workers.lines() if line[0] == "done" and line[1] in dag_names]
    assert sorted(done) == sorted(dag_names)
    assert all(done.index(f"d{(i - 1) // 2}") < done.index(f"d{i}") for i in range(1, 50))
    # Seed §4.3: setup-analytics fails (validation, not retried, onFailure compensate); what completed
    # is undone last-completed first, each by the agent its compensation names.
    assert (seed_run["status"], seed_run["outcome"]) == ("COMPLETED", "ROLLED_BACK")
    steps = by_name(seed_run)
    undoable = ["create-account", "provision-workspace"]
    completed = sorted(
        (s for s in undoable if steps[s]["status"] == "COMPLETED"), key=lambda s: steps[s]["completionOrder"]
    )
    undone = [(line[1], pids[int(line[2])]) for line in workers.lines() if line[0] == "undo"]
    owner = {"provision-workspace": "product-analyst", "create-account": "growth-optimizer"}
    assert undone == [(s, owner[s]) for s in reversed(completed)]
    assert completed  # the failing step waits half a second: the others completed first
    # SIGTERM: each worker stops claiming and exits cleanly.
    assert set(workers.stop_all().values()) == {0}


async def test_a_worker_killed_mid_step_loses_it_to_the_heartbeat_timeout_and_another_retries(
    live_server: LiveServer, client: GraphQLClient, workers_factory: Any
) -> None:
    workers = workers_factory(["hang"])
    first = workers.start("general")
    yaml = (
        "steps:\n  - name: hang\n    heartbeatTimeout: 5s\n    timeout: 1h\n"
        "    retryPolicy: {maxRetries: 2, backoff: constant, initialDelay: 1s}\n"
    )
    workflow_id = await create(client, yaml, "killed")

    async def started() -> bool:
        return any(line[:3] == ["start", "hang", "1"] for line in workers.lines())

    await until(started, 30, "the first worker starting the step")
    second = workers.start("general")
    os.kill(first, signal.SIGKILL)
    workers.procs.pop(first).wait(10)
    live_server.clock.advance(timedelta(seconds=5))  # no heartbeat for 5 s: timed out, retry in 1 s

    async def retry_scheduled() -> bool:
        return (
            by_name((await client.execute(STEPS, {"id": workflow_id}))["workflow"])["hang"]["status"]
            == "PENDING"
        )

    await until(retry_scheduled, 30, "the heartbeat timeout")
    live_server.clock.advance(timedelta(seconds=1))  # the back-off ends: the timer wakes the worker
    run = await finished(client, workflow_id)
    assert (run["status"], run["outcome"]) == ("COMPLETED", "SUCCEEDED")
    assert (by_name(run)["hang"]["attempt"], by_name(run)["hang"]["claimedBy"]) == (2, "general")
    assert [line for line in workers.lines() if line[0] == "done"] == [["done", "hang", "2", str(second)]]
    assert sum((await completions(live_server, workflow_id)).values()) == 1


COMPENSATIONS = """
query Compensations($id: ID!) {
  workflow(id: $id) { status outcome compensations { stepName status error } }
}
"""


async def test_a_compensation_cut_short_by_sigterm_is_reported_failed_not_left_running(
    live_server: LiveServer, client: GraphQLClient, workers_factory: Any
) -> None:
    workers = workers_factory(["a-undo-hangs", "b"], fail="b", grace=0.2)
    pid = workers.start("general")
    yaml = (
        "steps:\n  - name: a-undo-hangs\n    onFailure: compensate\n"
        "  - name: b\n    dependsOn: [a-undo-hangs]\n    onFailure: compensate\n"
        "compensation:\n  - step: a-undo-hangs\n    action: undo a\n    agent: general\n"
    )
    workflow_id = await create(client, yaml, "interrupted")

    async def undoing() -> bool:
        return any(line[:2] == ["undo", "a-undo-hangs"] for line in workers.lines())

    await until(undoing, 30, "the worker starting the undo")
    running = (await client.execute(COMPENSATIONS, {"id": workflow_id}))["workflow"]
    assert [c["status"] for c in running["compensations"]] == ["RUNNING"]
    workers.procs[pid].send_signal(signal.SIGTERM)
    assert workers.procs.pop(pid).wait(15) == 0
    # The undo's effect is unknown: reported failed, so the workflow ends partially rolled back instead
    # of waiting forever for a compensation that no timeout ends and no claim hands out again.
    after = (await client.execute(COMPENSATIONS, {"id": workflow_id}))["workflow"]
    assert (after["status"], after["outcome"]) == ("FAILED", "PARTIALLY_ROLLED_BACK")
    [compensation] = after["compensations"]
    assert compensation["status"] == "FAILED"
    assert "shut down" in compensation["error"]
