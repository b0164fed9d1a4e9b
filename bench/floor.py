"""Server CPU per transition beside its floor, in one run, in interleaved rounds (``--only floor``).

One database is filled with ``plans`` plans by the bulk loader, then one ``flightdeck serve`` process
on it (operation log on, as the scale series) and the two reference servers of ``bench/floor_apps.py``
(a bare Starlette JSON endpoint and a stock Strawberry app, same uvicorn options) are started. Each
round measures, one after the other:

- ``starlette``, ``strawberry``, ``flightdeck_typename``: 16 connections posting ``{ __typename }``
  (the Starlette app ignores it) for ``seconds``; the server's CPU per request;
- ``transition``: 16 agents over HTTP (``transitions.http_agent``: a plan created, then each step
  started and submitted, two transitions a step) for ``seconds`` (each agent ends the step it is on);
  the server's CPU per transition (plan creations included, as the scale series counts),
  transitions/s, request p50/p99;
- ``strawberry_mutations``: the same 16 agents against the stock app's canned mutations
  (``floor_apps mutations``): the stock libraries' CPU per transition for the same requests;
- ``strawberry_mutations_sql`` (SQLite only): the same agents against that app with the transition's
  raw SQL in its resolvers (``floor_apps mutations_sql``), on the same file: the libraries and the
  statements in one server process, sharing its caches;
- ``sql`` (SQLite only): the transition's statements in raw ``sqlite3`` on the same file, in this process,
  CPU per transition from ``time.process_time``.

Server CPU is read from ``/proc/<pid>/stat`` (user + system), never from an inverted wall-clock rate.
Rounds interleave the parts so that a neighbour's load falls on all of them alike; each figure is
reported as the median of the rounds and their range, with the load average at each round. The floor of
a transition over HTTP is the stock Strawberry request plus the raw SQL (the mutation's own GraphQL work,
resolving two fields and their arguments, is not in it); ``fraction_of_floor`` is that floor over the
measured CPU (1.0 would be nothing spent above it). The mutation floor is the stock app's canned
mutations plus the raw SQL: the same requests through the same libraries, with the GraphQL work of
the mutations in it; ``fraction_of_mutation_floor`` is that over the measured CPU, and
``fraction_of_one_process_floor`` the same for ``strawberry_mutations_sql``, where the two parts pay for
sharing one process as a transition does.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from typing import Any

import aiohttp
from sqlalchemy.engine import make_url

from . import loader, scale, transitions
from .server_process import ServerProcess

CONNECTIONS = 16
TYPENAME = {"query": "{ __typename }"}


def _session(url: str) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        url,
        connector=aiohttp.TCPConnector(limit=CONNECTIONS),
        timeout=aiohttp.ClientTimeout(total=120),
    )


async def _requests(server: ServerProcess, seconds: float) -> dict[str, float]:
    """``{ __typename }`` from 16 connections for ``seconds``: server CPU µs per request."""
    count = 0
    async with _session(server.url) as client:

        async def one() -> None:
            async with client.post("/graphql", json=TYPENAME) as response:
                body = await response.json(content_type=None)
                assert body == {"data": {"__typename": "Query"}}, body

        for _ in range(CONNECTIONS * 4):  # warm: connections open, caches filled
            await one()

        async def connection() -> None:
            nonlocal count
            while True:
                await one()
                count += 1
                if time.perf_counter() >= deadline:
                    return

        deadline = time.perf_counter() + seconds
        cpu = server.cpu_seconds()
        started = time.perf_counter()
        await asyncio.gather(*(connection() for _ in range(CONNECTIONS)))
        elapsed = time.perf_counter() - started
        cpu = server.cpu_seconds() - cpu
    return {"cpu_us": cpu * 1e6 / count, "requests_per_second": count / elapsed}


async def _transitions(server: ServerProcess, seconds: float) -> dict[str, float]:
    """16 agents for ``seconds`` (each ends the step it is on): CPU µs per transition."""
    timings: list[float] = []
    async with _session(server.url) as client:
        await transitions.http_agent(client)  # warm

        async def agent() -> int:
            done = 0
            while not done or time.perf_counter() < deadline:
                done += await transitions.http_agent(client, timings, deadline)
            return done

        db_before = await asyncio.to_thread(scale.database_cpu, server.env["DATABASE_URL"])
        deadline = time.perf_counter() + seconds
        cpu = server.cpu_seconds()
        started = time.perf_counter()
        count = sum(await asyncio.gather(*(agent() for _ in range(transitions.AGENTS))))
        elapsed = time.perf_counter() - started
        cpu = server.cpu_seconds() - cpu
        db_after = await asyncio.to_thread(scale.database_cpu, server.env["DATABASE_URL"])
    timings.sort()
    figures = {
        "cpu_us": cpu * 1e6 / count,
        "transitions_per_second": count / elapsed,
        "p50_ms": statistics.median(timings),
        "p99_ms": timings[int(len(timings) * 0.99) - 1],
        "seconds": elapsed,
    }
    if db_after:
        figures["database_cpu_us"] = (
            sum(t - db_before.get(pid, 0.0) for pid, t in db_after.items()) * 1e6 / count
        )
    return figures


def _summary(values: list[float], digits: int = 1) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
    }


def measure(
    url: str,
    plans: int,
    rounds: int = 3,
    seconds: float = 10.0,
    *,
    load: bool = True,
    before: str | None = None,
) -> dict[str, Any]:
    """``before``: a checkout of other code (e.g. main's) whose ``flightdeck serve`` is measured in the
    same rounds on the same file (``before_typename``, ``before_transition``), for an A/B in one run."""
    if load:
        loader.load(url, plans)
    parsed = make_url(url)
    sqlite_file = parsed.database if parsed.get_backend_name() == "sqlite" else None
    servers = {
        "starlette": ServerProcess(url, argv=["bench.floor_apps", "starlette", "{port}"]),
        "strawberry": ServerProcess(url, argv=["bench.floor_apps", "strawberry", "{port}"]),
        "mutations": ServerProcess(url, argv=["bench.floor_apps", "mutations", "{port}"]),
        "flightdeck": ServerProcess(url, FLIGHTDECK_OPERATION_LOG="true"),
    }
    if sqlite_file:
        servers["mutations_sql"] = ServerProcess(url, argv=["bench.floor_apps", "mutations_sql", "{port}"])
    if before:
        servers["before"] = ServerProcess(url, cwd=before, FLIGHTDECK_OPERATION_LOG="true", PYTHONPATH=before)
    samples: dict[str, list[dict[str, float]]] = {}
    loads: list[float] = []
    for s in servers.values():
        s.__enter__()
    try:
        for number in range(rounds):
            loads.append(os.getloadavg()[0])
            parts: dict[str, Any] = {
                "starlette": lambda: _requests(servers["starlette"], seconds),
                "strawberry": lambda: _requests(servers["strawberry"], seconds),
                "flightdeck_typename": lambda: _requests(servers["flightdeck"], seconds),
                "transition": lambda: _transitions(servers["flightdeck"], seconds),
                "strawberry_mutations": lambda: _transitions(servers["mutations"], seconds),
            }
            if sqlite_file:
                parts["strawberry_mutations_sql"] = lambda: _transitions(servers["mutations_sql"], seconds)
            if before:
                parts["before_typename"] = lambda: _requests(servers["before"], seconds)
                parts["before_transition"] = lambda: _transitions(servers["before"], seconds)
            order = list(parts.items())
            if number % 2:  # every other round backwards: no part always follows the same one
                order.reverse()
            for name, part in order:
                samples.setdefault(name, []).append(asyncio.run(part()))
            if sqlite_file:
                samples.setdefault("sql", []).append(
                    {"cpu_us": scale.sqlite_statements(sqlite_file)["cpu_us_per_transition"]}
                )
            loads.append(os.getloadavg()[0])
    finally:
        for s in servers.values():
            s.__exit__(None, None, None)
    result: dict[str, Any] = {"plans": plans, "rounds": rounds, "seconds_per_part": seconds}
    for name, rows in samples.items():
        for key in rows[0]:
            result[f"{name}_{key}"] = _summary([r[key] for r in rows])
    floor = [
        samples["strawberry"][i]["cpu_us"] + (samples["sql"][i]["cpu_us"] if "sql" in samples else 0.0)
        for i in range(rounds)
    ]
    result["floor_cpu_us"] = _summary(floor)
    result["fraction_of_floor"] = _summary(
        [floor[i] / samples["transition"][i]["cpu_us"] for i in range(rounds)], 3
    )
    mutation_floor = [
        samples["strawberry_mutations"][i]["cpu_us"]
        + (samples["sql"][i]["cpu_us"] if "sql" in samples else 0.0)
        for i in range(rounds)
    ]
    result["mutation_floor_cpu_us"] = _summary(mutation_floor)
    result["fraction_of_mutation_floor"] = _summary(
        [mutation_floor[i] / samples["transition"][i]["cpu_us"] for i in range(rounds)], 3
    )
    if "strawberry_mutations_sql" in samples:
        one_process = [samples["strawberry_mutations_sql"][i]["cpu_us"] for i in range(rounds)]
        result["fraction_of_one_process_floor"] = _summary(
            [one_process[i] / samples["transition"][i]["cpu_us"] for i in range(rounds)], 3
        )
    result["typename_over_stock"] = _summary(
        [
            samples["flightdeck_typename"][i]["cpu_us"] / samples["strawberry"][i]["cpu_us"]
            for i in range(rounds)
        ],
        3,
    )
    result["load_average"] = {"min": round(min(loads), 2), "max": round(max(loads), 2)}
    return result


def table(result: dict[str, Any]) -> str:
    """The run as a Markdown table: each figure's median and range over the rounds."""
    lines = [
        f"{result['plans']:,} plans, {result['rounds']} rounds of {result['seconds_per_part']:g} s a part, "
        f"load average {result['load_average']['min']} to {result['load_average']['max']}",
        "",
        "| figure | median | range |",
        "|---|---|---|",
    ]
    for name, value in result.items():
        if isinstance(value, dict) and "median" in value:
            lines.append(f"| {name} | {value['median']:,} | {value['min']:,} to {value['max']:,} |")
    return "\n".join(lines)
