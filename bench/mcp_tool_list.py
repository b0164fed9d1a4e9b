"""The MCP tool list's size, per toolset and for everything, as an admin key sees it: the bytes of the
tools/list answer a host puts (near enough) into its model's context. Deterministic, not a timing."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from server.mcp.toolsets import Toolset

from .mcp_transitions import MCP_HEADERS
from .server_process import ServerProcess

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


async def tool_list_bytes(http: httpx.AsyncClient, toolsets: str | None = None) -> int:
    """The bytes of one tools/list answer from ``http``'s server (``toolsets`` as the query gives it)."""
    response = await http.post(
        "/mcp", params={"toolsets": toolsets} if toolsets else None, json=LIST, headers=MCP_HEADERS
    )
    response.raise_for_status()
    assert "tools" in response.json()["result"], response.text
    return len(response.content)


async def sizes(base_url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        results = {f"mcp_tools_list_kb_{t.value}": await tool_list_bytes(http, t.value) for t in Toolset}
        results["mcp_tools_list_kb_all"] = await tool_list_bytes(http)
    return {name: round(size / 1024, 1) for name, size in results.items()}


def measure(database_url: str) -> dict[str, Any]:
    with ServerProcess(database_url) as server:  # dev mode: the admin sees every tool
        return asyncio.run(sizes(server.url))
