"""Brokers for the realtime tests: the shared Redis, and private redis-servers a test may kill."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import _service_missing
from tests.realtime.instances import StartInstances, instances_on
from tests.realtime.processes import Child, free_port, spawn, tail_of, until

REDIS_ENV = "FLIGHTDECK_TEST_REDIS_URL"


@pytest.fixture
async def redis_url() -> str:
    """The shared Redis of the development machines (FLIGHTDECK_TEST_REDIS_URL)."""
    from redis import asyncio as redis

    url = os.environ.get(REDIS_ENV)
    if not url:
        _service_missing(f"Redis tests need {REDIS_ENV}, e.g. redis://127.0.0.1:6379/0", "Redis")
    conn = redis.Redis.from_url(str(url))
    try:
        await conn.ping()
    except Exception as exc:
        _service_missing(f"Redis at {url} is not reachable: {exc}", "Redis")
    finally:
        await conn.aclose()
    return str(url)


class PrivateRedis(Child):
    """A redis-server of this test's own on a free port: it may be killed and restarted at will."""

    def __init__(self, binary: str, directory: Path) -> None:
        self.binary = binary
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = directory / "redis.log"
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        argv = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        argv += ["--dir", str(self.directory)]
        self.proc = spawn(argv, dict(os.environ), self.log)

        async def pong() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"redis-server exited:\n{tail_of(self.log)}")
            with contextlib.suppress(OSError):
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(b"PING\r\n")
                answer = await reader.readline()
                writer.close()
                await writer.wait_closed()
                return answer == b"+PONG\r\n"
            return False

        await until(pong, 10, f"redis-server on port {self.port} answering")


@pytest.fixture
def redis_server_binary() -> str:
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).is_file():
        _service_missing("the Redis restart test needs redis-server", "redis-server")
    return binary


@pytest.fixture
async def private_redis(redis_server_binary: str, tmp_path: Path) -> AsyncIterator[PrivateRedis]:
    server = PrivateRedis(redis_server_binary, tmp_path)
    try:
        await server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
async def start_instances(db_url: str, tmp_path: Path) -> AsyncIterator[StartInstances]:
    """Starts `flightdeck serve` processes on this test's database and a channel of its own."""
    async for start in instances_on(db_url, tmp_path, f"fd_test_{uuid.uuid4().hex[:16]}"):
        yield start
