"""The whole app in one process, driven through ASGI with no socket: for counting instructions.

``python -m bench.in_process --rounds N`` creates a SQLite file of its own, starts the app's lifespan as
``flightdeck serve`` would (its collector settings, log records and frozen start-up objects), and runs
N rounds of 16 agents, each making a plan and walking 20 of its steps through ``startNextStep`` and
``submitStepResult`` (640 transitions a round), with the operation log on. ``--app`` runs one of the
floor's reference apps instead (``bench.floor_apps``: ``mutations`` takes the same agents' requests;
``mutations_sql`` the same with the raw SQL in its resolvers; ``strawberry`` and ``starlette`` answer only
``--typename``, which sends ``{ __typename }`` as often).
Two more parts make the same transitions without an app: ``services`` calls the services directly in
``unit_of_work`` transactions (the unit of work alone: no GraphQL, no request layer) and ``sql`` runs
the transitions' statements in raw ``sqlite3`` (``bench.scale.sqlite_statements``, the floor's SQL).
``--plans N`` fills the database with N plans first, as the HTTP floor bench does. ``--database-url``
runs ``flightdeck`` or ``services`` on that PostgreSQL database instead (emptied and migrated first, as
the floor bench's ``--postgres-url``), and prints its backends' CPU per transition beside the process's.

Under valgrind the difference between two runs of N and N+2 rounds is the cost of 1,280 requests,
start-up and migrations cancelled; instruction counts hold on a busy machine where CPU seconds do not.
``bench.instructions`` runs the pair under cachegrind and prints the counts (and, with ``--cache``,
the misses of this CPU's L1 and L2) per request. It prints the requests it made, so a run that failed
is not counted, and (with two rounds or more) the process's CPU per request from the second round on.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
import tempfile
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from .scale import database_cpu_now
from .transitions import CREATE, START, SUBMIT

AGENTS = 16
STEPS = 20

Message = MutableMapping[str, Any]
App = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]


async def _post(app: App, body: bytes) -> dict[str, Any]:
    scope: Message = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/graphql",
        "raw_path": b"/graphql",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    reply: dict[str, Any] = json.loads(b"".join(chunks))
    if "errors" in reply:
        raise RuntimeError(reply)
    data: dict[str, Any] = reply["data"]
    return data


async def _call(app: App, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    return await _post(app, json.dumps({"query": query, "variables": variables}).encode())


async def _typename(app: App) -> int:
    """As many ``{ __typename }`` requests as an agent's transitions (the per-request floor)."""
    for _ in range(2 * STEPS):
        await _call(app, "{ __typename }", {})
    return 2 * STEPS


async def _agent(app: App) -> int:
    steps = [{"stepType": "SEARCH", "instructions": f"step {i}"} for i in range(STEPS)]
    created = await _call(app, CREATE, {"input": {"researchQuestion": "bench", "steps": steps}})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    for _ in range(STEPS):
        step = (await _call(app, START, {"planId": plan_id}))["startNextStep"]["step"]
        submitted = await _call(
            app, SUBMIT, {"input": {"stepId": step["id"], "resultSummary": "ok", "confidence": 0.9}}
        )
        assert submitted["submitStepResult"]["userErrors"] == [], submitted
    return 2 * STEPS


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# The process's CPU seconds when the second round starts and when the last ends; on PostgreSQL, its
# backends' too (``bench.scale.database_cpu``: each backend then alive, one opened meanwhile from zero).
cpu = [0.0, 0.0]
backends: list[dict[int, float]] = [{}, {}]
DATABASE_URL: list[str] = []  # set by --database-url


async def _lifespan(app: App, rounds: int, agent: Callable[[App], Awaitable[int]]) -> int:
    from_app: asyncio.Queue[Message] = asyncio.Queue()
    to_app: asyncio.Queue[Message] = asyncio.Queue()
    task = asyncio.ensure_future(
        app({"type": "lifespan", "asgi": {"version": "3.0"}}, to_app.get, from_app.put)
    )
    await to_app.put({"type": "lifespan.startup"})
    started = await from_app.get()
    if started["type"] != "lifespan.startup.complete":
        raise RuntimeError(started)
    try:
        return await _rounds(rounds, lambda: _together(agent(app) for _ in range(AGENTS)))
    finally:
        await to_app.put({"type": "lifespan.shutdown"})
        await from_app.get()
        await task


async def _rounds(rounds: int, one_round: Callable[[], Awaitable[int]]) -> int:
    """``rounds`` rounds, each the transitions or requests ``one_round`` makes; the process's CPU is
    counted from the second round on (the first warms the caches)."""
    transitions = 0
    for i in range(rounds):
        if i == 1:
            if DATABASE_URL:
                backends[0] = await database_cpu_now(DATABASE_URL[0])
            cpu[0] = _cpu()
        transitions += await one_round()
    cpu[1] = _cpu()
    if DATABASE_URL:
        backends[1] = await database_cpu_now(DATABASE_URL[0])
    return transitions


async def _together(agents: Iterable[Awaitable[int]]) -> int:
    return sum(await asyncio.gather(*agents))


async def _services(settings: Any, rounds: int) -> int:
    """The unit of work alone: each agent's plan created, started and submitted through the services,
    as the mutations call them, in ``unit_of_work`` transactions on the same engine; no GraphQL, no
    request layer."""
    from server.cli import prepare_process
    from server.clock import SystemClock
    from server.db.engine import Database
    from server.services.runtime import Runtime

    from .transitions import service_agent

    prepare_process(settings)  # the collector's threshold as the server has it
    runtime = Runtime(Database(settings.database_url), SystemClock(), settings)
    if settings.gc_freeze:  # as the app's lifespan does once it is made
        gc.collect()
        gc.freeze()
    try:
        return await _rounds(rounds, lambda: _together(service_agent(runtime, STEPS) for _ in range(AGENTS)))
    finally:
        await runtime.db.dispose()


async def _sql(folder: str, rounds: int) -> int:
    """The transitions' statements in raw ``sqlite3`` (``bench.scale.sqlite_statements``): each round
    the same number of plans, steps and transitions as the agents' round."""
    from .scale import CEILING_PLANS, sqlite_statements

    assert CEILING_PLANS == AGENTS

    async def one_round() -> int:
        sqlite_statements(f"{folder}/bench.db", STEPS)
        return AGENTS * 2 * STEPS

    return await _rounds(rounds, one_round)


def _settings(folder: str, database_url: str | None = None) -> Any:
    from server.config import Settings

    return Settings(database_url=database_url or f"sqlite+aiosqlite:///{folder}/bench.db", operation_log=True)


def _app(kind: str, folder: str, settings: Any) -> App:
    """Flightdeck as ``flightdeck serve`` runs it, or one of the floor's reference apps as
    ``bench.floor_apps`` serves it (the same collector threshold and log records)."""
    if kind == "flightdeck":
        from server.app import create_app
        from server.cli import prepare_process

        prepare_process(settings)
        return create_app(settings, freeze_gc=settings.gc_freeze)
    from . import floor_apps

    floor_apps.prepare_process(settings)
    made: App = floor_apps.APPS[kind](f"{folder}/bench.db")
    return made


APPS = ["flightdeck", "mutations", "mutations_sql", "strawberry", "starlette", "services", "sql"]


def _plans_in_database(url: str) -> int:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def count() -> int:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as db:
                return int((await db.execute(text("SELECT count(*) FROM research_plans"))).scalar_one())
        finally:
            await engine.dispose()

    return asyncio.run(count())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--app", choices=APPS, default="flightdeck")
    parser.add_argument("--plans", type=int, default=0, help="plans the bulk loader adds first")
    parser.add_argument(
        "--typename", action="store_true", help="send `{ __typename }` instead of the agents' mutations"
    )
    parser.add_argument(
        "--database-url", help="flightdeck or services on this PostgreSQL database (emptied!), not SQLite"
    )
    args = parser.parse_args()
    if args.app in ("strawberry", "starlette") and not args.typename:
        parser.error(f"the {args.app} app answers only --typename")
    if args.app in ("services", "sql") and args.typename:
        parser.error(f"{args.app} makes transitions, not requests: no --typename")
    if args.database_url and args.app not in ("flightdeck", "services"):
        parser.error("--database-url runs flightdeck or services; the other parts are SQLite's")
    with tempfile.TemporaryDirectory() as folder:
        settings = _settings(folder, args.database_url)
        url = settings.database_url
        if args.database_url:
            from .__main__ import fresh_postgres

            fresh_postgres(url)
        elif args.plans or args.app in ("services", "sql", "mutations_sql"):
            from server.db.migrate import upgrade

            upgrade(url)
        if args.plans:
            from . import loader

            loader.load(url, args.plans)
        if args.database_url:
            DATABASE_URL.append(url)
        if args.app == "services":
            transitions = asyncio.run(_services(settings, args.rounds))
        elif args.app == "sql":
            transitions = asyncio.run(_sql(folder, args.rounds))
        else:
            app = _app(args.app, folder, settings)
            transitions = asyncio.run(_lifespan(app, args.rounds, _typename if args.typename else _agent))
        figures: dict[str, Any] = {"app": args.app, "requests": transitions}
        if args.app in ("flightdeck", "services", "sql", "mutations_sql"):
            figures["plans_in_database"] = _plans_in_database(url)
        if args.rounds > 1:
            # The whole process, the harness's own JSON and ASGI messages included (a few % of it).
            counted = transitions * (args.rounds - 1) / args.rounds
            figures["cpu_us_per_request"] = round((cpu[1] - cpu[0]) / counted * 1e6, 1)
            if args.database_url:
                used = sum(after - backends[0].get(pid, 0.0) for pid, after in backends[1].items())
                figures["database_cpu_us_per_request"] = round(used / counted * 1e6, 1)
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
