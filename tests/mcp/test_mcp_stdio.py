"""`flightdeck mcp`: the same tools over stdio, spawned by the SDK's own stdio client."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning

from server.auth import DEV_PRINCIPAL
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.mcp.server import server_version
from server.services.plans import modify as plan_modify
from server.services.plans import queries as plan_queries
from server.services.runtime import Runtime, unit_of_work
from tests.mcp.helpers import ok, steps
from tests.mcp.test_mcp_access import READ_TOOLS, WAIT_TOOLS
from tests.waiting import patient


def _params(db: Path, *args: str) -> StdioServerParameters:
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db}", "FLIGHTDECK_API_KEY": ""}
    return StdioServerParameters(command=sys.executable, args=["-m", "server", "mcp", *args], env=env)


async def test_a_plan_driven_over_stdio_completes_in_the_configured_database(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "stdio.db"
    shutil.copyfile(sqlite_template, db_file)  # flightdeck mcp creates no database
    async with Client(_params(db_file), cache=None) as client:
        created = await ok(client, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
        plan_id = created["planId"]
        for _ in range(2):
            step = (await ok(client, "get_next_step", {"planId": plan_id}))["step"]
            await ok(client, "submit_step_result", {"stepId": step["stepId"], "resultSummary": "done"})
        assert (await ok(client, "get_next_step", {"planId": plan_id}))["status"] == "plan_complete"
    db = Database(f"sqlite+aiosqlite:///{db_file}")
    try:
        async with db.reader() as session:
            plan = await plan_queries.get_plan(session, "default", plan_id)
        assert plan.status == "completed"
    finally:
        await db.dispose()


def _cli(db: Path, *args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db}", "FLIGHTDECK_API_KEY": key or ""}
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=patient(60),
    )


def test_with_keys_stdio_acts_as_the_given_key_and_refuses_to_start_without_one(tmp_path: Path) -> None:
    db_file = tmp_path / "keys.db"
    made = _cli(db_file, "keys", "create", "--tenant", "tenant-v", "--role", "viewer")
    assert made.returncode == 0, made.stderr
    viewer = made.stdout.strip()

    async def listed() -> set[str]:
        async with Client(_params(db_file, "--key", viewer), cache=None) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert asyncio.run(listed()) == READ_TOOLS | WAIT_TOOLS

    refused = _cli(db_file, "mcp")
    assert refused.returncode == 2
    assert "pass --key or set FLIGHTDECK_API_KEY" in refused.stderr
    bad = _cli(db_file, "mcp", key="fdk_nope")
    assert bad.returncode == 2
    assert "not valid or has been revoked" in bad.stderr


async def test_a_resource_subscribed_over_stdio_is_notified_of_changes_from_any_process(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "watch.db"
    shutil.copyfile(sqlite_template, db_file)
    updated: list[str] = []

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            updated.append(message.params.uri)

    async def wait_for(uri: str, count: int) -> None:
        for _ in range(200):  # notices and the feed's polling are asynchronous
            if updated.count(uri) >= count:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{uri} notified {updated.count(uri)} times, not {count}: {updated}")

    async with Client(_params(db_file), cache=None, mode="legacy", message_handler=on_message) as client:
        plan = await ok(client, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
        other = await ok(client, "create_research_plan", {"researchQuestion": "q", "steps": steps(1)})
        uri = f"flightdeck://plans/{plan['planId']}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # resources/subscribe is 2025-11-25's
            await client.subscribe_resource(uri)
        # A change made through this process ...
        await ok(client, "get_next_step", {"planId": plan["planId"]})
        await wait_for(uri, 1)
        # ... and one made by another process on the same database (here: this test's own runtime).
        db = Database(f"sqlite+aiosqlite:///{db_file}")
        runtime = Runtime(db, SystemClock(), Settings(database_url=f"sqlite+aiosqlite:///{db_file}"))
        try:
            async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
                await plan_modify.fail_plan(tx, plan["planId"], "stopped elsewhere")
        finally:
            await db.dispose()
        await wait_for(uri, 2)
        # A plan nobody subscribed to is never announced.
        await ok(client, "get_next_step", {"planId": other["planId"]})
        assert f"flightdeck://plans/{other['planId']}" not in updated


def _clean_env(tmp_path: Path) -> dict[str, str]:
    """The environment of an MCP host: no database or configuration named, its own XDG config home."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "FLIGHTDECK_DATABASE_URL", "FLIGHTDECK_CONFIG", "FLIGHTDECK_API_KEY")
    }
    return {**env, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def test_stdio_from_another_directory_uses_the_user_config_file_and_reports_its_version(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "home.db"
    shutil.copyfile(sqlite_template, db_file)
    config = tmp_path / "xdg" / "flightdeck" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'database_url = "sqlite+aiosqlite:///{db_file}"\n', encoding="utf-8")
    project = tmp_path / "some-project"
    project.mkdir()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "server", "mcp"], env=_clean_env(tmp_path), cwd=str(project)
    )

    async def drive() -> tuple[str | None, str]:
        async with Client(params, cache=None) as client:
            created = await ok(client, "create_research_plan", {"researchQuestion": "q", "steps": steps(1)})
            info = client.server_info
            return (info.version if info else None), created["planId"]

    version, plan_id = asyncio.run(drive())
    assert version == server_version() != ""
    assert list(project.iterdir()) == []  # no stray database in the agent's project

    async def stored() -> str:
        db = Database(f"sqlite+aiosqlite:///{db_file}")
        try:
            async with db.reader() as session:
                return (await plan_queries.get_plan(session, "default", plan_id)).status
        finally:
            await db.dispose()

    assert asyncio.run(stored()) == "planning"


def test_stdio_refuses_a_database_file_that_does_not_exist_and_creates_none(tmp_path: Path) -> None:
    project = tmp_path / "some-project"
    project.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "server", "mcp"],
        env=_clean_env(tmp_path),
        cwd=project,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"flightdeck mcp: no database at {project / 'flightdeck.db'}: set database_url"), (
        line
    )
    assert list(project.iterdir()) == []
