"""(f2) The seed 003 loop as MCP hosts run it: the official TypeScript SDK client (bench/ts/seed003_loop.mjs,
16 clients, 40-step plans, listTools first and every answer checked against its output schema by the SDK)
over streamable HTTP, beside the same loop over GraphQL (aiohttp), against one server process, in
interleaved rounds. Per protocol: transitions per second, each call's p50/p99 as its client saw it, and
the server's CPU per call (from /proc); then MCP ÷ GraphQL (target ≥ 0.7).

The TypeScript client runs in node, a process of its own: its CPU is not the server's.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import aiohttp

from .server_process import ServerProcess
from .transitions import AGENTS, STEPS, http_agent

SCRIPT = Path(__file__).with_name("ts") / "seed003_loop.mjs"
SDK = Path(__file__).resolve().parents[1] / "tests" / "mcp" / "ts" / "node_modules" / "@modelcontextprotocol"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _graphql_round(server: ServerProcess) -> dict[str, float]:
    timings: list[float] = []
    connector = aiohttp.TCPConnector(limit=AGENTS)
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(server.url, connector=connector, timeout=timeout) as client:
        await http_agent(client)  # warm-up, as the node script does
        cpu = server.cpu_seconds()
        started = time.perf_counter()
        counts = await asyncio.gather(*(http_agent(client, timings) for _ in range(AGENTS)))
        seconds = time.perf_counter() - started
        cpu = server.cpu_seconds() - cpu
    calls = len(timings) + AGENTS  # the creates are not timed but cost the server too
    return {
        "transitions_per_second": sum(counts) / seconds,
        "p50_ms": _percentile(timings, 0.5),
        "p99_ms": _percentile(timings, 0.99),
        "server_cpu_ms_per_call": cpu * 1000 / calls,
    }


async def _typescript_round(server: ServerProcess) -> dict[str, float]:
    cpu = server.cpu_seconds()
    node = await asyncio.create_subprocess_exec(
        "node",
        str(SCRIPT),
        f"{server.url}/mcp",
        str(AGENTS),
        str(STEPS),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await node.communicate()
    if node.returncode != 0:
        raise RuntimeError(f"the TypeScript client failed: {err.decode()[-2000:]}")
    cpu = server.cpu_seconds() - cpu
    figures: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    latencies: list[float] = figures["latencies"]
    # The warm-up agent's calls cost the server too: count them (2 per step, a create, a last read).
    calls = len(latencies) + 2 * STEPS + 2
    return {
        "transitions_per_second": figures["transitions"] / figures["seconds"],
        "p50_ms": _percentile(latencies, 0.5),
        "p99_ms": _percentile(latencies, 0.99),
        "server_cpu_ms_per_call": cpu * 1000 / calls,
    }


async def compare(database_url: str, rounds: int = 3) -> dict[str, Any]:
    """Median and range of ``rounds`` interleaved rounds of each protocol on one server."""
    if not SDK.is_dir():
        raise RuntimeError("the TypeScript SDK is missing: run `make install` (it installs tests/mcp/ts)")
    graphql: list[dict[str, float]] = []
    mcp: list[dict[str, float]] = []
    with ServerProcess(database_url, FLIGHTDECK_OPERATION_LOG="true") as server:
        for _ in range(rounds):
            graphql.append(await _graphql_round(server))
            mcp.append(await _typescript_round(server))
    results: dict[str, Any] = {}
    for name, runs in (("graphql", graphql), ("mcp_typescript_sdk", mcp)):
        for key in runs[0]:
            values = [r[key] for r in runs]
            results[f"{name}_{key}"] = round(statistics.median(values), 2)
            results[f"{name}_{key}_range"] = [round(min(values), 2), round(max(values), 2)]
    ratios = [
        m["transitions_per_second"] / g["transitions_per_second"] for g, m in zip(graphql, mcp, strict=True)
    ]
    results["mcp_typescript_to_graphql_ratio"] = round(statistics.median(ratios), 3)
    results["mcp_typescript_to_graphql_ratio_range"] = [round(min(ratios), 3), round(max(ratios), 3)]
    return results
