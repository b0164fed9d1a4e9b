"""The transports' edges: lines and bodies that are no JSON-RPC message, GET /mcp, stateless logging."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.mcp_transitions import MCP_HEADERS
from tests.conftest import LiveServer

UNPARSABLE_LINES = {
    "not JSON": b"hello",
    "null": b"null",
    "an empty object": b"{}",
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "a lone surrogate": b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "\\ud800"}}',
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


async def _answer(process: asyncio.subprocess.Process) -> dict[str, Any]:
    assert process.stdout is not None
    # A hang guard, not a timing: a line that gets no answer would otherwise block the test forever.
    line = await asyncio.wait_for(process.stdout.readline(), 120)
    assert line, "the server closed its output"
    answer: dict[str, Any] = json.loads(line)
    return answer


async def test_stdio_answers_every_unparsable_line_with_a_parse_error_and_keeps_serving(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "edges.db"
    shutil.copyfile(sqlite_template, db_file)
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db_file}", "FLIGHTDECK_API_KEY": ""}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server",
        "mcp",
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=1024 * 1024,
    )
    assert process.stdin is not None
    try:
        process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        assert (await _answer(process))["id"] == "init"
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for name, line in UNPARSABLE_LINES.items():
            process.stdin.write(line + b"\n")
            answer = await _answer(process)
            assert answer["id"] is None, name
            assert answer["error"]["code"] == -32700, (name, answer)
            assert answer["error"]["message"].startswith(
                "Parse error: the line is not a JSON-RPC 2.0 message"
            )
        process.stdin.write(b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}\n')
        assert await _answer(process) == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 120)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_http_refuses_bodies_that_are_no_message_in_its_own_words(live_server: LiveServer) -> None:
    cases = {
        b"hello": (-32700, "Parse error: the body is not JSON text"),
        b"[" * 100_000 + b"]" * 100_000: (-32700, "Parse error: the body is not JSON text"),
        b"null": (-32600, "Invalid Request: the body is not a JSON-RPC 2.0 message"),
        b'{"jsonrpc": "2.0", "id": 1}': (-32600, "Invalid Request: the body is not a JSON-RPC 2.0 message"),
    }
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        for body, (code, words) in cases.items():
            response = await http.post("/mcp", content=body, headers=MCP_HEADERS)
            assert response.status_code == 400, body[:20]
            error = response.json()["error"]
            assert (error["code"], error["data"]) == (code, {"code": "VALIDATION_FAILED"}), body[:20]
            assert error["message"].startswith(words), error
            assert "validation error" not in error["message"].lower()
            assert int(response.headers["content-length"]) == len(response.content)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_get_mcp_opens_no_stream_and_a_request_logs_no_session_end(
    live_server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        response = await http.get("/mcp", headers={"accept": "text/event-stream"})
        assert response.status_code == 405
        assert response.headers["allow"] == "POST, DELETE"
        assert response.json()["error"]["data"] == {"code": "METHOD_NOT_ALLOWED"}
        with caplog.at_level(logging.INFO, logger="mcp.server.streamable_http"):
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            assert (await http.post("/mcp", json=ping, headers=MCP_HEADERS)).status_code == 200
    assert not [r for r in caplog.records if "Terminating session" in r.getMessage()]
