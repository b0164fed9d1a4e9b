"""An MCP client for tests: the SDK's own, over streamable HTTP to a real server, with an API key."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.waiting import patient


@asynccontextmanager
async def mcp_client(
    base_url: str, token: str | None = None, *, mode: str = "auto", query: str = ""
) -> AsyncIterator[Client]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    url = f"{base_url}/mcp" + (f"?{query}" if query else "")
    async with (
        httpx2.AsyncClient(headers=headers, timeout=patient(60)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, cache=None) as client,
    ):
        yield client


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured result of a call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    data = result.structured_content
    assert isinstance(data, dict)
    return data


async def refused(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The first error of a call that must be refused as a tool error (isError), with its text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    # Structured content is the tool's output, checked against its output schema: a refusal has none.
    assert result.structured_content is None
    text = result.content[0].text  # type: ignore[union-attr]
    errors = refusal_errors(text)
    assert text.startswith(f"{errors[0]['code']}: {errors[0]['message']}"), text
    first: dict[str, Any] = errors[0]
    return first


def refusal_errors(text: str) -> list[dict[str, Any]]:
    """The userErrors a refusal's text carries on its last line, as ``{"errors": [...]}``."""
    errors: list[dict[str, Any]] = json.loads(text.rsplit("\n", 1)[1])["errors"]
    return errors


def steps(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"stepType": "search", "instructions": f"do step {i + 1}", **extra} for i in range(n)]
