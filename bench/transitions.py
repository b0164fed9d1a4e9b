"""(a) Plan-step transitions per second: 16 agents over HTTP, and the same work in-process."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp

from server.auth import DEV_PRINCIPAL
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.services.plans import create as plan_create
from server.services.plans import execution as plan_execution
from server.services.plans.inputs import NewPlan, NewStep, StepResult
from server.services.runtime import Runtime, unit_of_work

from .server_process import ServerProcess

AGENTS = 16
STEPS = 40

CREATE = """mutation($input: CreateResearchPlanInput!) { createResearchPlan(input: $input) {
  plan { id } userErrors { code } } }"""
START = """mutation($planId: ID!) { startNextStep(planId: $planId) {
  outcome step { id } userErrors { code } } }"""
SUBMIT = """mutation($input: SubmitStepResultInput!) { submitStepResult(input: $input) {
  step { status } userErrors { code } } }"""


def plan_input() -> dict[str, Any]:
    steps = [{"stepType": "SEARCH", "instructions": f"step {i}"} for i in range(STEPS)]
    return {"researchQuestion": "bench", "steps": steps}


async def http_agent(
    client: aiohttp.ClientSession, timings: list[float] | None = None, deadline: float | None = None
) -> int:
    """One agent: creates a plan, then starts and submits each of its steps; ``timings`` gets each
    start's and submit's round trip in ms. Past ``deadline`` (``time.perf_counter``) no further step is
    started (the first one always is)."""

    async def call(query: str, variables: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        async with client.post("/graphql", json={"query": query, "variables": variables}) as response:
            body: dict[str, Any] = await response.json(content_type=None)
        if timings is not None and query is not CREATE:
            timings.append((time.perf_counter() - started) * 1000)
        assert "errors" not in body, body
        return body["data"]

    plan_id = (await call(CREATE, {"input": plan_input()}))["createResearchPlan"]["plan"]["id"]
    transitions = 0
    for _ in range(STEPS):
        if deadline is not None and transitions and time.perf_counter() >= deadline:
            break
        step = (await call(START, {"planId": plan_id}))["startNextStep"]["step"]
        payload = await call(
            SUBMIT, {"input": {"stepId": step["id"], "resultSummary": "ok", "confidence": 0.9}}
        )
        assert payload["submitStepResult"]["userErrors"] == []
        transitions += 2
    return transitions


async def over_http(database_url: str) -> float:
    with ServerProcess(database_url, FLIGHTDECK_OPERATION_LOG="true") as server:
        # aiohttp, not httpx: measured here, an httpx client in one process tops out near 500
        # requests/s on a query that does nothing, so it, not the server, would be measured.
        connector = aiohttp.TCPConnector(limit=AGENTS)
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(server.url, connector=connector, timeout=timeout) as client:
            await http_agent(client)  # warm up caches and connections
            started = time.perf_counter()
            counts = await asyncio.gather(*(http_agent(client) for _ in range(AGENTS)))
            elapsed = time.perf_counter() - started
    return sum(counts) / elapsed


async def service_agent(runtime: Runtime, steps: int = STEPS) -> int:
    """One plan of ``steps`` steps driven through the services directly (no GraphQL, no HTTP): the
    transitions it made."""
    async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
        created = await plan_create.create_research_plan(
            tx, NewPlan("bench", [NewStep("search", f"step {i}") for i in range(steps)])
        )
    transitions = 0
    for _ in range(steps):
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            nxt = await plan_execution.start_next_step(tx, created.plan.id)
        assert nxt.step is not None
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            await plan_execution.submit_step_result(tx, StepResult(nxt.step.id, "ok", confidence=0.9))
        transitions += 2
    return transitions


async def in_process(database_url: str) -> float:
    settings = Settings(database_url=database_url)
    runtime = Runtime(Database(database_url), SystemClock(), settings)
    try:
        await service_agent(runtime)
        started = time.perf_counter()
        counts = await asyncio.gather(*(service_agent(runtime) for _ in range(AGENTS)))
        elapsed = time.perf_counter() - started
    finally:
        await runtime.db.dispose()
    return sum(counts) / elapsed
