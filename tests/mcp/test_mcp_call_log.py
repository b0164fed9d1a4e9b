"""Seed 003's mcp_tool_call_log: every tool call recorded off the reply path, read by admins only
(GraphQL and CLI), kept as the operation log is."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from sqlalchemy import select
from typer.testing import CliRunner

from server.auth import Role, create_key
from server.cli import app
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import McpToolCallLog
from server.services import operation_log
from tests.conftest import GraphQLClient, LiveServer
from tests.mcp.helpers import mcp_client, ok, refused, steps

LOG = """
query($filter: McpToolCallFilter, $after: String, $first: Int) {
  mcpToolCallLog(filter: $filter, after: $after, first: $first) {
    edges { cursor node { tool actor sessionId transport durationMs error errorCode argumentBytes
      resultBytes createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


async def rows_of(settings: Settings, count: int) -> list[McpToolCallLog]:
    """The log once ``count`` records are written (the writer batches every ~50 ms)."""
    db = Database(settings.database_url)
    try:
        for _ in range(200):
            async with db.reader() as session:
                rows = list((await session.scalars(select(McpToolCallLog).order_by(McpToolCallLog.id))).all())
            if len(rows) >= count:
                return rows
            await asyncio.sleep(0.05)
        raise AssertionError(f"only {len(rows)} of {count} tool calls were logged")
    finally:
        await db.dispose()


async def test_every_tool_call_is_logged_with_its_sizes_and_outcome(
    live_server: LiveServer, settings: Settings, client: GraphQLClient, clock: FakeClock
) -> None:
    async with mcp_client(live_server.url) as mcp:
        await mcp.list_tools()  # not a tool call (nor is ping): not logged
        plan = await ok(
            mcp, "create_research_plan", {"researchQuestion": "q", "steps": steps(2), "sessionId": "s-1"}
        )
        await refused(mcp, "get_next_step", {"planId": "00000000-0000-0000-0000-000000000000"})
        with pytest.raises(MCPError):
            await mcp.call_tool("no_such_tool", {})
    rows = await rows_of(settings, 3)
    assert [(r.tool, r.error, r.error_code, r.session_id, r.transport) for r in rows] == [
        ("create_research_plan", False, None, "s-1", "http"),
        ("get_next_step", True, "NOT_FOUND", None, "http"),
        ("no_such_tool", True, "UNKNOWN_TOOL", None, "http"),
    ]
    assert all(r.tenant_id == "default" and r.actor == "dev" for r in rows)
    assert rows[0].argument_bytes > 40
    assert rows[0].result_bytes > len(plan["planId"])
    assert all(r.duration_ms > 0 for r in rows)

    # Admins read it through GraphQL, newest first, filtered and paged.
    page = (await client.execute(LOG, {"first": 2}))["mcpToolCallLog"]
    assert [e["node"]["tool"] for e in page["edges"]] == ["no_such_tool", "get_next_step"]
    assert page["pageInfo"]["hasNextPage"] is True
    rest = (await client.execute(LOG, {"after": page["pageInfo"]["endCursor"]}))["mcpToolCallLog"]
    assert [e["node"]["tool"] for e in rest["edges"]] == ["create_research_plan"]
    errors = await client.execute(LOG, {"filter": {"errorsOnly": True, "tool": "get_next_step"}})
    assert [e["node"]["errorCode"] for e in errors["mcpToolCallLog"]["edges"]] == ["NOT_FOUND"]
    by_session = (await client.execute(LOG, {"filter": {"sessionId": "s-1"}}))["mcpToolCallLog"]["edges"]
    assert [e["node"]["tool"] for e in by_session] == ["create_research_plan"]

    # Other roles and tenants read nothing.
    db = Database(settings.database_url)
    try:
        agent = (await create_key(db, "default", Role.AGENT, "agent", clock.now()))[1]
        other = (await create_key(db, "other", Role.ADMIN, "other-admin", clock.now()))[1]
    finally:
        await db.dispose()
    as_agent, as_other = GraphQLClient(live_server.url, agent), GraphQLClient(live_server.url, other)
    try:
        body: dict[str, Any] = (await as_agent.post(LOG, {})).json()
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        assert body["errors"][0]["message"] == "only admin keys may read the MCP tool-call log"
        theirs = await as_other.execute(LOG, {})
        assert theirs["mcpToolCallLog"]["edges"] == []
    finally:
        await as_agent.aclose()
        await as_other.aclose()


def test_retention_and_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'calls.db'}"
    monkeypatch.setenv("FLIGHTDECK_DATABASE_URL", url)
    runner = CliRunner()
    assert runner.invoke(app, ["migrate"]).exit_code == 0

    async def fill() -> None:
        db = Database(url)
        try:
            async with db.transaction() as session:
                for i, age_days in enumerate([100, 2, 1]):
                    session.add(
                        McpToolCallLog(
                            tenant_id="default",
                            tool=f"tool{i}",
                            actor="dev",
                            session_id=None,
                            transport="stdio",
                            duration_ms=1.5,
                            error=i == 1,
                            error_code="CONFLICT" if i == 1 else None,
                            argument_bytes=10,
                            result_bytes=20,
                            created_at=datetime.now(UTC) - timedelta(days=age_days),
                        )
                    )
        finally:
            await db.dispose()

    asyncio.run(fill())
    listed = runner.invoke(app, ["mcp-log", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert [json.loads(line)["tool"] for line in listed.output.splitlines()] == ["tool2", "tool1", "tool0"]
    failed = runner.invoke(app, ["mcp-log", "list", "--errors"])
    assert failed.exit_code == 0
    assert len(failed.output.splitlines()) == 1
    assert "CONFLICT" in failed.output

    # The server prunes both logs by the same settings; the CLI does it at once.
    pruned = runner.invoke(app, ["mcp-log", "prune"])
    assert pruned.exit_code == 0, pruned.output
    assert "deleted 1 records past the age limit and 0 past the size limit" in pruned.output
    assert "tool0" not in runner.invoke(app, ["mcp-log", "list"]).output

    async def prune_both() -> list[operation_log.Pruned]:
        db = Database(url)
        try:
            return await operation_log.prune_logs(db, datetime.now(UTC), timedelta(days=30), 1)
        finally:
            await db.dispose()

    assert [(p.by_age, p.by_size) for p in asyncio.run(prune_both())] == [(0, 0), (0, 1)]
