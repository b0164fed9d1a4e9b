"""The tool list (names, descriptions, schemas, annotations) is pinned: a change to it is deliberate."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client

SNAPSHOT = Path(__file__).with_name("tools.snapshot.json")
UPDATE = "FLIGHTDECK_UPDATE_SNAPSHOTS"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_the_tool_list_matches_its_snapshot(live_server: LiveServer) -> None:
    async with mcp_client(live_server.url) as client:  # dev mode: the admin sees every tool
        listed = await client.list_tools()
    tools: list[dict[str, Any]] = [
        t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools
    ]
    current = json.dumps(tools, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get(UPDATE) == "1":
        SNAPSHOT.write_text(current, encoding="utf-8")
    assert SNAPSHOT.is_file(), f"{SNAPSHOT.name} is missing: run this test with {UPDATE}=1"
    assert current == SNAPSHOT.read_text(encoding="utf-8"), (
        f"the MCP tools changed: review the difference, then run this test with {UPDATE}=1 and commit "
        f"{SNAPSHOT.name}"
    )
