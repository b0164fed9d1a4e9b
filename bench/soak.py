"""A soak: a real server under steady agent, reviewer and subscriber load for minutes, sampled for growth.

python -m bench soak [--minutes 8] [--rate 48] [--database-url URL --broadcast-url URL] [--retention]

Eight agents drive plans over HTTP at a fixed total rate of mutations (create, start, submit; every fourth
plan asks for a review that a reviewer approves); five long-lived ``events`` subscribers follow the log
from the start, and fifty churning subscribers connect, read a few events and leave, over and over. Every
few seconds the server's RSS, open descriptors and threads are sampled against the transitions so far.

What it reports: the samples, growth per 1,000 transitions after warm-up (a least-squares slope), the
first and the last minute after warm-up with the target "last minute within 10 % of the first", and
whether every long-lived subscriber got every event exactly once, in order. The database is measured too
(``flightdeck ops size``'s report: rows and bytes per table): its growth per 1,000 transitions over the
second half of the run, and bytes per transition per table over the whole run. With ``--retention`` the
server keeps each tenant's newest ``--retained`` events (default ``RETAINED``; none older than
``--keep-seconds``) and as many operation log records, archiving and deleting the rest every
``RETENTION_SECONDS``, and deletes plans ended ``ENDED_ROOT_SECONDS`` ago (see ``retention_env``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import websockets
from websockets.typing import Subprotocol

from server.db.engine import Database
from server.services.retention.space import size_report

from .server_process import ServerProcess

PROTOCOL = [Subprotocol("graphql-transport-ws")]
EVENTS = "subscription($after: Int) { events(after: $after) { seq kind entityType entityId toState } }"
CREATE = """mutation($input: CreateResearchPlanInput!) { createResearchPlan(input: $input) {
  plan { id } userErrors { code } } }"""
START = """mutation($planId: ID!) { startNextStep(planId: $planId) {
  outcome step { id } userErrors { code } } }"""
SUBMIT = """mutation($input: SubmitStepResultInput!) { submitStepResult(input: $input) {
  step { status } userErrors { code } } }"""
REVIEW = """mutation($stepId: ID!) {
  requestUserReview(stepId: $stepId, summary: "check", questions: ["ok?"]) {
  step { status } userErrors { code } } }"""
DECIDE = """mutation($stepId: ID!) { submitUserDecision(stepId: $stepId, decision: APPROVE) {
  step { status } userErrors { code } } }"""

AGENTS = 8
LONG_LIVED = 5
CHURNING = 50
STEPS = 4
SAMPLE_SECONDS = 5.0
KEEPALIVE_SECONDS = 1.0
RETENTION_SECONDS = 10
KEEP_SECONDS = 60
RETAINED = 200
ENDED_ROOT_SECONDS = 20


def retention_env(
    archive_dir: Path, keep_s: float = KEEP_SECONDS, retained: int = RETAINED
) -> dict[str, str]:
    """The settings that keep the soak's database at a fixed size within a run of minutes, every
    ``RETENTION_SECONDS``: events beyond the newest ``retained`` or older than ``keep_s`` archived and
    deleted, operation log records likewise, plans ended ``ENDED_ROOT_SECONDS`` ago deleted (their
    events are archived by then). The count is what holds the size: reached within the warm-up even on
    a loaded machine (a run at 2 mutations/s writes about 250 events a minute), and unlike an age it
    keeps the same rows whatever rate the machine sustains from one minute to the next; a PostgreSQL
    table's files keep the most it ever held, so a window by age grows them at every new peak rate."""
    days = str(keep_s / 86_400)
    return {
        "FLIGHTDECK_EVENT_ARCHIVE_DIR": str(archive_dir),
        "FLIGHTDECK_EVENT_RETENTION_DAYS": days,
        "FLIGHTDECK_EVENT_RETENTION_MAX_EVENTS": str(retained),
        "FLIGHTDECK_ENDED_ROOT_RETENTION_DAYS": str(ENDED_ROOT_SECONDS / 86_400),
        "FLIGHTDECK_WEBHOOK_DELIVERY_RETENTION_DAYS": str(ENDED_ROOT_SECONDS / 86_400),
        "FLIGHTDECK_RETENTION_INTERVAL_SECONDS": str(RETENTION_SECONDS),
        "FLIGHTDECK_OPERATION_LOG_MAX_AGE_DAYS": days,
        "FLIGHTDECK_OPERATION_LOG_MAX_ROWS": str(retained),
        "FLIGHTDECK_OPERATION_LOG_PRUNE_INTERVAL_SECONDS": str(RETENTION_SECONDS),
    }


async def database_figures(db: Database) -> dict[str, Any]:
    report = await size_report(db)
    return {
        "db_bytes": report.total_bytes - report.free_bytes,
        "tables": {t.name: (t.rows, t.bytes) for t in report.tables},
    }


def bytes_per_transition(first: dict[str, Any], last: dict[str, Any], transitions: int) -> dict[str, float]:
    """Growth of each table (with its indexes) per transition between two samples, largest first."""
    if transitions <= 0:
        return {}
    grown = {
        name: (last["tables"][name][1] - first["tables"].get(name, (0, 0))[1]) / transitions
        for name in last["tables"]
    }
    return {name: round(b, 1) for name, b in sorted(grown.items(), key=lambda kv: -kv[1]) if b > 0}


def process_figures(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in status if ":" in line)
    return {
        "rss_kb": int(fields["VmRSS"].split()[0]),
        "threads": int(fields["Threads"].strip()),
        "fds": len(list(Path(f"/proc/{pid}/fd").iterdir())),
    }


class Pacer:
    """Spaces calls so that all agents together make ``rate`` per second."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.next_at = time.perf_counter()

    async def wait(self) -> None:
        self.next_at = max(self.next_at + self.interval, time.perf_counter())
        await asyncio.sleep(max(0.0, self.next_at - time.perf_counter()))


@dataclass
class Load:
    http: aiohttp.ClientSession
    pacer: Pacer
    reviews: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    mutations: int = 0
    refused: int = 0

    async def call(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        await self.pacer.wait()
        async with self.http.post("/graphql", json={"query": query, "variables": variables}) as response:
            body: dict[str, Any] = await response.json(content_type=None)
        self.mutations += 1
        if "errors" in body:
            raise RuntimeError(f"request error: {body['errors']}")
        payload: dict[str, Any] = next(iter(body["data"].values()))
        if payload["userErrors"]:
            self.refused += 1
        return payload


async def agent(load: Load, stop: asyncio.Event) -> None:
    plans = 0
    while not stop.is_set():
        steps = [{"stepType": "SEARCH", "instructions": f"step {i}"} for i in range(STEPS)]
        created = await load.call(CREATE, {"input": {"researchQuestion": "soak", "steps": steps}})
        plan_id = created["plan"]["id"]
        plans += 1
        reviewed = plans % 4 != 0  # every fourth plan asks for one review
        while not stop.is_set():
            answer = await load.call(START, {"planId": plan_id})
            if answer["outcome"] == "PLAN_COMPLETE":
                break
            if answer["step"] is None:  # the reviewer has not answered yet
                await asyncio.sleep(0.2)
                continue
            step_id = answer["step"]["id"]
            if not reviewed:
                reviewed = True
                await load.call(REVIEW, {"stepId": step_id})
                await load.reviews.put(step_id)
            else:
                await load.call(SUBMIT, {"input": {"stepId": step_id, "resultSummary": "ok"}})


async def reviewer(load: Load) -> None:
    while True:
        step_id = await load.reviews.get()
        await load.call(DECIDE, {"stepId": step_id})


async def _subscribe(ws: Any, after: int | None) -> None:
    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    if json.loads(await ws.recv())["type"] != "connection_ack":
        raise RuntimeError("no connection_ack")
    variables = {} if after is None else {"after": after}
    message = {"id": "1", "type": "subscribe", "payload": {"query": EVENTS, "variables": variables}}
    await ws.send(json.dumps(message))


@dataclass
class LongLived:
    seqs: list[int] = field(default_factory=list)
    transitions: int = 0

    async def run(self, url: str) -> None:
        async with websockets.connect(url, subprotocols=PROTOCOL, max_queue=None) as ws:
            await _subscribe(ws, 0)
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "next":
                    event = message["payload"]["data"]["events"]
                    self.seqs.append(event["seq"])
                    if event["kind"].endswith("_transitioned"):
                        self.transitions += 1


async def churning(url: str, rng: random.Random) -> None:
    while True:
        with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
            async with websockets.connect(url, subprotocols=PROTOCOL) as ws:
                await _subscribe(ws, None)
                for _ in range(rng.randint(1, 20)):
                    await asyncio.wait_for(ws.recv(), 10)
        await asyncio.sleep(rng.uniform(0.0, 0.5))


def slope_per_1000(samples: list[dict[str, Any]], key: str) -> float:
    """Least-squares growth of ``key`` per 1,000 transitions."""
    xs = [s["transitions"] for s in samples]
    ys = [s[key] for s in samples]
    if len(xs) < 2 or max(xs) == min(xs):
        return 0.0
    return round(statistics.linear_regression(xs, ys).slope * 1000, 2)


def table_slopes(sizes: list[dict[str, Any]]) -> dict[str, float]:
    """Least-squares growth of each table (with its indexes) per 1,000 transitions, largest first: where a
    database that is not flat grows."""
    names = sizes[-1]["tables"] if sizes else {}
    slopes = {
        name: slope_per_1000(
            [{"transitions": s["transitions"], "b": s["tables"].get(name, (0, 0))[1]} for s in sizes], "b"
        )
        for name in names
    }
    return dict(sorted(slopes.items(), key=lambda kv: -abs(kv[1])))


def summarize(samples: list[dict[str, Any]], warmup_s: float) -> dict[str, Any]:
    steady = [s for s in samples if s["t"] >= warmup_s]
    first = [s["rss_kb"] for s in steady if s["t"] < warmup_s + 60]
    last = [s["rss_kb"] for s in steady if s["t"] >= steady[-1]["t"] - 60] if steady else []
    first_mb = statistics.mean(first) / 1024 if first else 0.0
    last_mb = statistics.mean(last) / 1024 if last else 0.0
    change = (last_mb - first_mb) / first_mb if first_mb else 0.0
    return {
        "rss_first_minute_mb": round(first_mb, 1),
        "rss_last_minute_mb": round(last_mb, 1),
        "rss_change": round(change, 3),
        "rss_within_10_percent": abs(change) <= 0.10,
        "rss_kb_per_1000_transitions": slope_per_1000(steady, "rss_kb"),
        "fds_per_1000_transitions": slope_per_1000(steady, "fds"),
        "threads_per_1000_transitions": slope_per_1000(steady, "threads"),
    }


async def soak(
    database_url: str, minutes: float, rate: float, warmup_s: float = 60.0, **env: str
) -> dict[str, Any]:
    rng = random.Random(7)
    measured = Database(database_url)
    sizes: list[dict[str, Any]] = []
    with ServerProcess(database_url, FLIGHTDECK_OPERATION_LOG="true", **env) as server:
        assert server.proc is not None
        # Idle connections dropped well before the server's keep-alive timeout (uvicorn: 5 s): on a
        # loaded machine a request on one the server is closing that moment fails the run.
        connector = aiohttp.TCPConnector(limit=AGENTS + 1, keepalive_timeout=KEEPALIVE_SECONDS)
        async with aiohttp.ClientSession(server.url, connector=connector) as http:
            load = Load(http, Pacer(rate))
            watchers = [LongLived() for _ in range(LONG_LIVED)]
            stop = asyncio.Event()
            background = [asyncio.create_task(w.run(server.ws_url)) for w in watchers]
            background += [asyncio.create_task(churning(server.ws_url, rng)) for _ in range(CHURNING)]
            background.append(asyncio.create_task(reviewer(load)))
            agents = [asyncio.create_task(agent(load, stop)) for _ in range(AGENTS)]
            samples: list[dict[str, Any]] = []
            started = time.perf_counter()
            while (elapsed := time.perf_counter() - started) < minutes * 60:
                await asyncio.sleep(SAMPLE_SECONDS)
                for task in agents + background:
                    if task.done() and task.exception() is not None:
                        raise RuntimeError("a load task failed") from task.exception()
                figures = process_figures(server.proc.pid)
                size = await database_figures(measured)
                sizes.append({"t": round(elapsed, 1), "transitions": watchers[0].transitions, **size})
                samples.append(
                    {
                        "t": round(elapsed, 1),
                        "transitions": watchers[0].transitions,
                        "db_bytes": size["db_bytes"],
                        **figures,
                    }
                )
            stop.set()
            await asyncio.wait_for(asyncio.gather(*agents), 60)
            await asyncio.sleep(1.0)
            while not load.reviews.empty():  # noqa: ASYNC110 (the reviewer drains the queue)
                await asyncio.sleep(0.1)
            async with http.post("/graphql", json={"query": "{ latestSeq }"}) as response:
                latest = int((await response.json(content_type=None))["data"]["latestSeq"])
            deadline = time.perf_counter() + 30
            while time.perf_counter() < deadline and any(len(w.seqs) < latest for w in watchers):  # noqa: ASYNC110
                await asyncio.sleep(0.2)
            for task in background:
                task.cancel()
            await asyncio.gather(*background, return_exceptions=True)
    await measured.dispose()
    expected = list(range(1, latest + 1))
    second_half = [s for s in samples if s["t"] >= minutes * 30]
    return {
        "minutes": minutes,
        "mutations": load.mutations,
        "mutations_per_second": round(load.mutations / (minutes * 60), 1),
        "refused_mutations": load.refused,
        "transitions": watchers[0].transitions,
        "events": latest,
        "every_long_lived_subscriber_got_every_event_once_in_order": all(
            w.seqs == expected for w in watchers
        ),
        **summarize(samples, warmup_s),
        "db_bytes_first": samples[0]["db_bytes"] if samples else 0,
        "db_bytes_last": samples[-1]["db_bytes"] if samples else 0,
        "db_bytes_per_1000_transitions_second_half": slope_per_1000(second_half, "db_bytes"),
        "bytes_per_transition_by_table": bytes_per_transition(
            sizes[0], sizes[-1], sizes[-1]["transitions"] - sizes[0]["transitions"]
        )
        if sizes
        else {},
        "table_bytes_per_1000_transitions_second_half": table_slopes(
            [s for s in sizes if s["t"] >= minutes * 30]
        ),
        "table_sizes": [s for s in sizes if sizes.index(s) % 12 == 0 or s is sizes[-1]],
        "samples": samples,
    }
