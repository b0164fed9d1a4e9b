"""Shared fixtures: real databases (SQLite files, PostgreSQL), a fake clock, and a real uvicorn server."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy.engine import make_url

from server.app import create_app
from server.auth import DEV_PRINCIPAL, Principal, Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.migrate import upgrade
from server.services.runtime import Runtime
from tests.waiting import patient

POSTGRES_ENV = "FLIGHTDECK_TEST_POSTGRES_URL"
REQUIRE_ENV = "FLIGHTDECK_REQUIRE_SERVICES"


# What each missing part of the machine costs and how to get it: `make test` ends with one line per part
# that was missing (pytest_terminal_summary), never with a silent count of skips.
HOW_TO_GET = {
    "PostgreSQL": f"export {POSTGRES_ENV}=postgresql+asyncpg://postgres@127.0.0.1:5432/test "
    "(a server with trust auth; .ci/run sets it)",
    "Redis": "export FLIGHTDECK_TEST_REDIS_URL=redis://127.0.0.1:6379/0 "
    "(a running redis-server; .ci/run sets it)",
    "Chromium": "apt-get install -y chromium (Debian's package; the tests drive /usr/bin/chromium)",
    "redis-server": "apt-get install -y redis-server",
    "nginx": "apt-get install -y nginx",
    "postgresql-client": "apt-get install -y postgresql-client",
}
_SKIP_MARK = "missing "


def services_required() -> bool:
    """CI (CI=true) and FLIGHTDECK_REQUIRE_SERVICES=1 turn every missing part into a failure."""
    return os.environ.get("CI") == "true" or os.environ.get(REQUIRE_ENV) == "1"


def _service_missing(reason: str, service: str = "PostgreSQL") -> None:
    if services_required():
        pytest.fail(f"{reason} (CI=true or {REQUIRE_ENV}=1 makes a missing {service} a failure)")
    pytest.skip(f"{_SKIP_MARK}{service}: {reason}")


def pytest_collection_finish(session: pytest.Session) -> None:
    # What collection imported (the server, the libraries, every test module) lives as long as the run:
    # moved out of the collector's reach, it is not walked again by every full collection, which
    # otherwise took ~0.5 s each and grew with the run.
    gc.collect()
    gc.freeze()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per missing part of the machine, with how to get it, instead of silent skips."""
    missing: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
        reason = reason.removeprefix("Skipped: ")
        if reason.startswith(_SKIP_MARK):
            service = reason[len(_SKIP_MARK) :].split(":", 1)[0]
            missing[service] = missing.get(service, 0) + 1
    for service, count in sorted(missing.items()):
        how = HOW_TO_GET.get(service, "see docs/development.md")
        terminalreporter.write_line(f"{service} is missing: {count} tests skipped; to run them: {how}")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _postgres_base_url() -> Any:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        _service_missing(
            f"PostgreSQL tests need {POSTGRES_ENV}, e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test"
        )
    return make_url(str(base))


async def _admin(sql: str) -> None:
    import asyncpg

    url = _postgres_base_url()
    admin_dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        conn = await asyncpg.connect(admin_dsn)
    except (OSError, asyncpg.PostgresError) as exc:
        _service_missing(f"PostgreSQL at {url.host}:{url.port} is not reachable: {exc}")
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def upgrade_in_thread(url: str) -> None:
    with ThreadPoolExecutor(1) as pool:
        pool.submit(upgrade, url).result()


def _pg_url(name: str) -> str:
    return str(_postgres_base_url().set(database=name).render_as_string(hide_password=False))


def _off_loop(coro_fn: Any, *args: Any) -> Any:
    """Run a coroutine function to completion on a thread of its own.

    Session fixtures are first requested from inside a test's running event loop, where
    ``asyncio.run`` may not be called.
    """
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(coro_fn(*args))).result()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file per session; each test gets a copy (migrating per test is slow)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade_in_thread(f"sqlite+aiosqlite:///{path}")
    return path


def sqlite_copy(template: Path, folder: Path) -> str:
    """The URL of a fresh copy of the migrated template in ``folder``."""
    path = folder / "flightdeck.db"
    shutil.copyfile(template, path)
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """One migrated PostgreSQL database per session, used as the TEMPLATE of each test's database."""
    name = f"fd_tmpl_{uuid.uuid4().hex[:12]}"
    _off_loop(_admin, f'CREATE DATABASE "{name}"')
    try:
        upgrade_in_thread(_pg_url(name))
        yield name
    finally:
        _off_loop(_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class _PostgresDatabases:
    """Test databases copied from the template ahead of the tests that take them, and dropped after.

    CREATE DATABASE (a copy of the template) and DROP DATABASE take ~0.15 s and ~0.05 s on an idle
    machine and several times that on a busy one: run on a thread of their own while the previous test
    runs, they leave every PostgreSQL test's set-up and teardown. Each test still gets a database
    nobody used before; one is made ahead at a time, so creations never run two at once.
    """

    def __init__(self, template: str) -> None:
        self._template = template
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="pg-databases", daemon=True)
        self._thread.start()
        self._next = self._submit(self._create())
        self._drops: list[Future[None]] = []

    def _submit(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    async def _create(self) -> str:
        name = f"fd_test_{uuid.uuid4().hex[:12]}"
        await _admin(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"')
        return name

    async def take(self) -> str:
        ready, self._next = self._next, None
        try:
            return await asyncio.wrap_future(ready)
        finally:
            self._next = self._submit(self._create())

    def give_back(self, name: str) -> None:
        for finished in [d for d in self._drops if d.done()]:
            finished.result()  # a drop that failed fails the test in whose teardown it is found
        self._drops = [d for d in self._drops if not d.done()]
        self._drops.append(self._submit(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')))

    def close(self) -> None:
        try:
            if self._next is not None:
                self.give_back(self._next.result(patient(60)))
            for drop in self._drops:
                drop.result(patient(60))
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(patient(10))
            self._loop.close()


@pytest.fixture(scope="session")
def postgres_databases(postgres_template: str) -> Iterator[_PostgresDatabases]:
    databases = _PostgresDatabases(postgres_template)
    yield databases
    databases.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A migrated, empty database of this test's own: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        yield sqlite_copy(request.getfixturevalue("sqlite_template"), tmp_path)
        return
    databases: _PostgresDatabases = request.getfixturevalue("postgres_databases")
    name = await databases.take()
    try:
        yield _pg_url(name)
    finally:
        databases.give_back(name)


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, operation_log=True)


@pytest.fixture
async def runtime(settings: Settings, clock: FakeClock) -> AsyncIterator[Runtime]:
    db = Database(settings.database_url)
    yield Runtime(db=db, clock=clock, settings=settings)
    await db.dispose()


@pytest.fixture
def principal() -> Principal:
    return DEV_PRINCIPAL


# -- a real server --


@dataclass
class LiveServer:
    url: str
    clock: FakeClock
    settings: Settings
    thread: threading.Thread
    server: uvicorn.Server
    app: Any

    def call(self, coro: Any, within: float = 30) -> Any:
        """Run a coroutine on the server's own event loop (to inspect its state) and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.app.state.loop).result(within)

    @property
    def graphql_url(self) -> str:
        return f"{self.url}/graphql"

    @property
    def ws_url(self) -> str:
        return self.graphql_url.replace("http://", "ws://")


class _PromptServer(uvicorn.Server):
    """uvicorn's server, ending as soon as it is told to.

    Stock uvicorn looks at ``should_exit`` every 0.1 s and sleeps 0.1 s more before it waits for open
    connections: about 0.2 s a stop, which over the two thousand servers the suite starts is minutes of
    CI. This one looks every 10 ms and waits for connections and tasks the same way, polling sooner;
    the lifespan shutdown (the application's own) is unchanged.
    """

    async def main_loop(self) -> None:
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            await asyncio.sleep(0.01)
            should_exit = await self.on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        deadline = time.monotonic() + patient(20)
        # uvicorn's state has no event to wait on: polled, as uvicorn itself does.
        while (self.server_state.connections or self.server_state.tasks) and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.005)
        for task in self.server_state.tasks:
            task.cancel()
        for server in self.servers:
            await server.wait_closed()
        await self.lifespan.shutdown()


def start_server(settings: Settings, clock: FakeClock, *, keepalive: bool = True) -> LiveServer:
    """A real uvicorn on 127.0.0.1 in a thread. ``keepalive=False`` turns off uvicorn's WebSocket pings:
    a test that stalls a reader on purpose would otherwise have the connection closed (1011) once the
    stall outlasts ping interval plus timeout, as it can on a loaded machine."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(settings, clock, migrate=False)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_ping_interval=20.0 if keepalive else None,
    )
    server = _PromptServer(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + patient(20)
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    return LiveServer(f"http://127.0.0.1:{port}", clock, settings, thread, server, app)


def stop_server(live: LiveServer) -> None:
    live.server.should_exit = True
    live.thread.join(timeout=20)


@pytest.fixture
def live_server(settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    live = start_server(settings, clock)
    yield live
    stop_server(live)


class GraphQLClient:
    """A plain HTTP GraphQL client for tests (application/graphql-response+json)."""

    def __init__(self, url: str, token: str | None = None) -> None:
        headers = {"accept": "application/graphql-response+json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self.http = httpx.AsyncClient(base_url=url, headers=headers, timeout=patient(30))

    async def post(self, query: str, variables: dict[str, Any] | None = None, **kw: Any) -> httpx.Response:
        return await self.http.post("/graphql", json={"query": query, "variables": variables or {}}, **kw)

    async def execute(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``data`` of a successful response; fails the test on any top-level error."""
        response = await self.post(query, variables)
        try:
            body = response.json()
        except ValueError:  # a proxy's or a stopping server's page: say what came back
            raise AssertionError(f"not JSON ({response.status_code}): {response.text[:500]!r}") from None
        assert response.status_code == 200, body
        assert "errors" not in body, body["errors"]
        data: dict[str, Any] = body["data"]
        return data

    async def aclose(self) -> None:
        await self.http.aclose()


@pytest.fixture
async def client(live_server: LiveServer) -> AsyncIterator[GraphQLClient]:
    c = GraphQLClient(live_server.url)
    yield c
    await c.aclose()


async def keys_per_role(database_url: str, now: datetime) -> dict[Role, str]:
    """One API key per role in tenant "t", named t-<role>. Made before the server starts, it starts
    with keys (not in dev mode)."""
    db = Database(database_url)
    made = {role: (await create_key(db, "t", role, f"t-{role}", now))[1] for role in Role}
    await db.dispose()
    return made
