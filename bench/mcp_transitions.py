"""(f) MCP beside GraphQL: plan-step transitions per second over streamable HTTP at /mcp and over
GraphQL at /graphql, the same workload (16 agents, 40-step plans, get_next_step + submit_step_result)
against the same server process in the same run, and their ratio (target: MCP >= 0.7 of GraphQL).

Both clients are aiohttp posting the protocol's own JSON (JSON-RPC tools/call; GraphQL documents), so
the server is what is measured, not a client library (see transitions.py on httpx).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from .server_process import ServerProcess
from .transitions import AGENTS, STEPS, http_agent

MCP_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


async def mcp_agent(client: aiohttp.ClientSession) -> int:
    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        async with client.post("/mcp", json=body, headers=MCP_HEADERS) as response:
            answer: dict[str, Any] = await response.json(content_type=None)
        result = answer["result"]
        assert not result.get("isError"), result
        data: dict[str, Any] = result["structuredContent"]
        return data

    steps = [{"stepType": "search", "instructions": f"step {i}"} for i in range(STEPS)]
    plan_id = (await call("create_research_plan", {"researchQuestion": "bench", "steps": steps}))["planId"]
    transitions = 0
    for _ in range(STEPS):
        step = (await call("get_next_step", {"planId": plan_id}))["step"]
        await call("submit_step_result", {"stepId": step["stepId"], "resultSummary": "ok", "confidence": 0.9})
        transitions += 2
    return transitions


Agent = Callable[[aiohttp.ClientSession], Awaitable[int]]


async def _rate(client: aiohttp.ClientSession, agent: Agent) -> float:
    await agent(client)  # warm up caches and connections
    started = time.perf_counter()
    counts = await asyncio.gather(*(agent(client) for _ in range(AGENTS)))
    return sum(counts) / (time.perf_counter() - started)


async def compare(database_url: str, rounds: int = 2) -> dict[str, float]:
    """Each protocol's best of ``rounds`` alternating runs (the machine's noise hits both alike)."""
    graphql: list[float] = []
    mcp: list[float] = []
    with ServerProcess(database_url, FLIGHTDECK_OPERATION_LOG="true") as server:
        connector = aiohttp.TCPConnector(limit=AGENTS)
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(server.url, connector=connector, timeout=timeout) as client:
            for _ in range(rounds):
                graphql.append(await _rate(client, http_agent))
                mcp.append(await _rate(client, mcp_agent))
    return {
        "transitions_per_second_graphql_http": round(max(graphql), 1),
        "transitions_per_second_mcp_http": round(max(mcp), 1),
        "mcp_to_graphql_ratio": round(max(mcp) / max(graphql), 3),
    }
