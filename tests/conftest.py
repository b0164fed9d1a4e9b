"""Shared fixtures: real databases (SQLite files, PostgreSQL), a fake clock, and a real uvicorn server."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy.engine import make_url

from server.app import create_app
from server.auth import DEV_PRINCIPAL, Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.migrate import upgrade_async
from server.services.runtime import Runtime

POSTGRES_ENV = "FLIGHTDECK_TEST_POSTGRES_URL"
REQUIRE_ENV = "FLIGHTDECK_REQUIRE_SERVICES"


def _service_missing(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRE_ENV}=1 makes this a failure instead of a skip)")
    pytest.skip(reason)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def _create_pg_database() -> tuple[str, str]:
    """A fresh database of our own on the shared PostgreSQL server: (its URL, the admin URL)."""
    import asyncpg

    base = os.environ.get(POSTGRES_ENV)
    if not base:
        _service_missing(
            f"PostgreSQL tests need {POSTGRES_ENV}, e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test"
        )
    assert base is not None
    url = make_url(base)
    name = f"fd_test_{uuid.uuid4().hex[:12]}"
    admin_dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        conn = await asyncpg.connect(admin_dsn)
    except (OSError, asyncpg.PostgresError) as exc:
        _service_missing(f"PostgreSQL at {url.host}:{url.port} is not reachable: {exc}")
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return url.set(database=name).render_as_string(hide_password=False), admin_dsn


async def _drop_pg_database(db_url: str, admin_dsn: str) -> None:
    import asyncpg

    name = make_url(db_url).database
    conn = await asyncpg.connect(admin_dsn)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[str]:
    """A migrated, empty database: a SQLite file, then a PostgreSQL database of its own."""
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'flightdeck.db'}"
        await upgrade_async(url)
        yield url
        return
    url, admin = await _create_pg_database()
    try:
        await upgrade_async(url)
        yield url
    finally:
        await _drop_pg_database(url, admin)


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

    @property
    def graphql_url(self) -> str:
        return f"{self.url}/graphql"

    @property
    def ws_url(self) -> str:
        return self.graphql_url.replace("http://", "ws://")


def start_server(settings: Settings, clock: FakeClock) -> LiveServer:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(settings, clock, migrate=False), log_level="warning", lifespan="on", ws="websockets-sansio"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    return LiveServer(f"http://127.0.0.1:{port}", clock, settings, thread, server)


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
        self.http = httpx.AsyncClient(base_url=url, headers=headers, timeout=30)

    async def post(self, query: str, variables: dict[str, Any] | None = None, **kw: Any) -> httpx.Response:
        return await self.http.post("/graphql", json={"query": query, "variables": variables or {}}, **kw)

    async def execute(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``data`` of a successful response; fails the test on any top-level error."""
        response = await self.post(query, variables)
        body = response.json()
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
