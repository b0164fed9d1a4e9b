"""How both examples reach Flightdeck: streamable HTTP at <url>/mcp, or a `flightdeck mcp` child over stdio.

Both use the official MCP SDK's client and nothing of Flightdeck's own code: an agent in another
process, language or framework does the same.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def arguments(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--url", default="http://127.0.0.1:8000", help="A running `flightdeck serve`.")
    where.add_argument(
        "--stdio", action="store_true", help="Launch `flightdeck mcp` on the configured database."
    )
    parser.add_argument(
        "--key", default=os.environ.get("FLIGHTDECK_API_KEY"), help="API key (default: none, dev mode)."
    )
    return parser


@asynccontextmanager
async def connect(options: argparse.Namespace) -> AsyncIterator[Client]:
    if options.stdio:
        env = {**os.environ, "FLIGHTDECK_API_KEY": options.key or ""}
        params = StdioServerParameters(command=sys.executable, args=["-m", "server", "mcp"], env=env)
        async with Client(params) as client:
            yield client
        return
    headers = {"authorization": f"Bearer {options.key}"} if options.key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{options.url.rstrip('/')}/mcp", http_client=http)) as client,
    ):
        yield client


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's structured result; a refusal stops the example with the server's own words."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        text = result.content[0].text if result.content else "?"  # type: ignore[union-attr]
        raise SystemExit(f"{tool} was refused: {text}")
    data: dict[str, Any] = result.structured_content or {}
    return data
