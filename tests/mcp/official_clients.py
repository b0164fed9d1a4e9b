"""The official MCP clients as the tests drive them: the Python SDK's, and the TypeScript SDK's run by
node (tests/mcp/ts/client.mjs), over streamable HTTP or stdio, behind one small interface."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.waiting import patient

TS_DIR = Path(__file__).with_name("ts")
TS_CLIENT = TS_DIR / "client.mjs"


@dataclass(frozen=True)
class Outcome:
    """A tools/call answer as the client hands it to its caller."""

    is_error: bool
    text: str
    data: dict[str, Any] | None


class ProtocolRefusal(Exception):
    """The client raised instead of returning a result (a JSON-RPC error, or its own schema check)."""

    def __init__(self, code: int | None, message: str) -> None:
        self.code = code
        super().__init__(f"{code}: {message}")


class McpAgent(Protocol):
    server_version: str | None

    async def list_tools(self) -> list[dict[str, Any]]: ...

    async def call(self, name: str, arguments: dict[str, Any]) -> Outcome: ...


@dataclass(frozen=True)
class Target:
    """Where a client connects: ``url`` (HTTP, with ``token``) or a ``flightdeck mcp`` process."""

    url: str | None = None
    token: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    cwd: str | None = None

    @staticmethod
    def stdio(env: dict[str, str], *args: str, cwd: str | None = None) -> Target:
        return Target(args=("-m", "server", "mcp", *args), env={**os.environ, **env}, cwd=cwd)


class PythonAgent:
    def __init__(self, client: Client) -> None:
        self.client = client
        info = client.server_info
        self.server_version = info.version if info else None

    async def list_tools(self) -> list[dict[str, Any]]:
        listed = await self.client.list_tools()
        return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]

    async def call(self, name: str, arguments: dict[str, Any]) -> Outcome:
        try:
            result = await self.client.call_tool(name, arguments)
        except MCPError as exc:
            raise ProtocolRefusal(exc.error.code, exc.error.message) from None
        except RuntimeError as exc:  # the SDK's output-schema check
            raise ProtocolRefusal(None, str(exc)) from None
        first = result.content[0] if result.content else None
        text = first.text if isinstance(first, types.TextContent) else ""
        return Outcome(bool(result.is_error), text, result.structured_content)


class TypeScriptAgent:
    """The TypeScript SDK's Client in a node process, one JSON line per request (see client.mjs)."""

    def __init__(self, process: asyncio.subprocess.Process, version: str | None) -> None:
        self.process = process
        self.server_version = version

    async def request(self, message: dict[str, Any]) -> Any:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()
        answer = json.loads(await self.process.stdout.readline())
        if "error" in answer:
            raise ProtocolRefusal(answer["error"]["code"], answer["error"]["message"])
        return answer["ok"]

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = (await self.request({"op": "list"}))["tools"]
        return tools

    async def call(self, name: str, arguments: dict[str, Any]) -> Outcome:
        result = await self.request({"op": "call", "name": name, "arguments": arguments})
        content = result.get("content") or [{}]
        return Outcome(
            bool(result.get("isError")), content[0].get("text", ""), result.get("structuredContent")
        )


def node_client_missing() -> str | None:
    """Why the TypeScript client cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (TS_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return f"the TypeScript MCP SDK is not installed in {TS_DIR}: run `make install` (npm ci there)"
    return None


@asynccontextmanager
async def python_agent(target: Target) -> AsyncIterator[PythonAgent]:
    async with AsyncExitStack() as stack:
        if target.url is not None:
            headers = {"authorization": f"Bearer {target.token}"} if target.token else {}
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=patient(60)))
            transport: Any = streamable_http_client(target.url, http_client=http)
        else:
            transport = StdioServerParameters(
                command=sys.executable, args=list(target.args), env=target.env, cwd=target.cwd
            )
        client = await stack.enter_async_context(Client(transport, cache=None))
        yield PythonAgent(client)


@asynccontextmanager
async def typescript_agent(target: Target) -> AsyncIterator[TypeScriptAgent]:
    missing = node_client_missing()
    assert missing is None, missing
    if target.url is not None:
        connection: dict[str, Any] = {"http": {"url": target.url, "token": target.token}}
    else:
        stdio = {"command": sys.executable, "args": list(target.args), "env": target.env, "cwd": target.cwd}
        connection = {"stdio": stdio}
    process = await asyncio.create_subprocess_exec(
        "node",
        str(TS_CLIENT),
        json.dumps(connection),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=16 * 1024 * 1024,
    )
    try:
        assert process.stdout is not None
        hello = json.loads(await asyncio.wait_for(process.stdout.readline(), patient(120)))
        assert "ready" in hello, hello
        yield TypeScriptAgent(process, (hello["ready"] or {}).get("version"))
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()


AGENTS = {"python": python_agent, "typescript": typescript_agent}
