"""Workers: a workflow of 1,000 independent short steps drained by 8 worker
processes of the Python client, once waking on workAvailable and once polling every second, each on a
fresh database and server, in the same run (``BENCH_WORKER_STEPS`` changes the count).

Before it, the same workers drain a warm-up workflow of ``WARM_UP`` steps on the same server: workers
run for hours, and the first requests of a new process (each GraphQL document validated, each
statement compiled, the first of everything) are not what a claim costs. Those first claims are
reported apart, as ``cold_claim_ms_p99``.

- ``steps_per_second``: steps / (workflow started -> workflow completed): the workflow's own
  ``startedAt`` and ``completedAt``, stamped by the server in the transactions that started and completed
  it (same machine, same wall clock). The bench looks for the end twice a second, so its own requests
  are not a fifth of the server's work as a poll every 20 ms was.
- ``claim_ms_p50/p99``: each successful claim's round trip as the worker saw it (request sent ->
  step handed back); the handler starts right after.
- ``cold_claim_ms_p99``: the same, over the warm-up workflow's claims (the workers' and the server's
  first).
- ``first_start_ms``: workflow started (the workers idle until then) -> the first handler started: how
  long idle workers take to notice new work.
- ``server_cpu_ms_per_step``: the server process's CPU (user + system) from just before the start to
  the end of the drain, per step.
- ``requests_per_step``: the workers' queries and mutations during the drain (the server's operation
  counter, less the bench's own), per step.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from .server_process import ServerProcess

STEPS = int(os.environ.get("BENCH_WORKER_STEPS", "1000"))
WARM_UP = 100
WORKERS = 8

_BENCH = {"BenchCreate", "BenchStart", "BenchStatus"}
CREATE = """
mutation BenchCreate($yaml: String!) {
  createWorkflowFromYaml(yaml: $yaml, name: "bench") { workflow { id } userErrors { message } }
}
"""
START = """
mutation BenchStart($id: ID!) {
  startWorkflow(workflowId: $id) { workflow { status } userErrors { message } }
}
"""
STATUS = "query BenchStatus($id: ID!) { workflow(id: $id) { status outcome startedAt completedAt } }"


def _stamp(value: str) -> float:
    return datetime.fromisoformat(value).timestamp()


def _requests(url: str) -> float:
    """The workers' queries and mutations so far (all but the bench's own: create, start, status polls),
    from the server's metrics."""
    families = text_string_to_metric_families(httpx.get(f"{url}/metrics", timeout=10).text)
    return sum(
        sample.value
        for family in families
        for sample in family.samples
        if sample.name == "flightdeck_graphql_operations_total"
        and sample.labels["type"] != "subscription"
        and sample.labels["operation"] not in _BENCH
    )


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _gql(http: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    body = http.post("/graphql", json={"query": query, "variables": variables}).json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def _workers(url: str, mode: str, outs: list[Path]) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen(
            [sys.executable, "-m", "bench.worker_process", url, f"w{i}", mode, str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i, out in enumerate(outs)
    ]


def _create(http: httpx.Client, steps: int, prefix: str) -> str:
    yaml = "steps:\n" + "".join(f"  - name: {prefix}{i}\n" for i in range(steps))
    workflow_id: str = _gql(http, CREATE, {"yaml": yaml})["createWorkflowFromYaml"]["workflow"]["id"]
    return workflow_id


def _run(http: httpx.Client, workflow_id: str) -> dict[str, Any]:
    """Start the workflow and wait until it has ended; it as the server says then."""
    _gql(http, START, {"id": workflow_id})
    while (workflow := _gql(http, STATUS, {"id": workflow_id})["workflow"])["outcome"] is None:
        time.sleep(0.5)
    return workflow


def drain(database_url: str, mode: str, folder: Path) -> dict[str, float]:
    env = {"FLIGHTDECK_MAX_STEPS": str(STEPS), "FLIGHTDECK_WORKFLOW_TIMER_INTERVAL_SECONDS": "0.2"}
    outs = [folder / f"{mode}-{i}.json" for i in range(WORKERS)]
    with ServerProcess(database_url, **env) as server, httpx.Client(base_url=server.url, timeout=60) as http:
        warm_up, workflow_id = _create(http, WARM_UP, "w"), _create(http, STEPS, "s")
        procs = _workers(server.url, mode, outs)
        try:
            time.sleep(3)  # every worker has claimed once, found nothing, and sleeps
            _run(http, warm_up)
            requests = _requests(server.url)
            cpu = server.cpu_seconds()
            measured_from = time.time()
            workflow = _run(http, workflow_id)
            cpu = server.cpu_seconds() - cpu
            requests = _requests(server.url) - requests
            started, finished = _stamp(workflow["startedAt"]), _stamp(workflow["completedAt"])
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait(30)
    claims: list[float] = []
    cold: list[float] = []
    starts: list[float] = []
    for out in outs:
        data = json.loads(out.read_text())
        for seconds, at in zip(data["claims"], data["answered"], strict=True):
            (claims if at >= measured_from else cold).append(seconds)
        starts += [at for at in data["starts"] if at >= measured_from]
    assert len(starts) == STEPS, f"{len(starts)} handler runs for {STEPS} steps"
    return {
        f"workers_{mode}_steps": STEPS,
        f"workers_{mode}_steps_per_second": round(STEPS / (finished - started), 1),
        f"workers_{mode}_claim_ms_p50": round(statistics.median(claims) * 1000, 1),
        f"workers_{mode}_claim_ms_p99": round(_percentile(claims, 0.99) * 1000, 1),
        f"workers_{mode}_cold_claim_ms_p99": round(_percentile(cold, 0.99) * 1000, 1),
        f"workers_{mode}_first_start_ms": round((min(starts) - started) * 1000, 1),
        f"workers_{mode}_server_cpu_ms_per_step": round(cpu * 1000 / STEPS, 2),
        f"workers_{mode}_requests_per_step": round(requests / STEPS, 2),
    }


def run(fresh_db: Callable[[Path, str], str]) -> dict[str, float]:
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for mode in ("wake", "poll"):
            results.update(drain(fresh_db(folder, f"workers-{mode}.db"), mode, folder))
    return results
