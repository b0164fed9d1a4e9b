"""Streamable HTTP at /mcp, in the GraphQL server's process and lifespan, with its keys.

Stateless: every POST is served on its own, so any process behind a proxy can answer any request,
and nothing about a client lives in one process (docs/decisions/0015-agents-over-mcp.md).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers, QueryParams
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from ..auth import Authenticator, Refusal
from ..origins import check_allowed_origins, origin_allowed
from ..services.runtime import Runtime
from .server import PRINCIPAL_SCOPE_KEY, TOOLSETS_SCOPE_KEY, build_server, principal_from_request
from .streaming import read_body, replay, wants_stream
from .toolsets import UnknownToolset, parse_toolsets

# JSON-RPC error codes for refusals before any MCP message is read (the server-defined range).
UNAUTHENTICATED = -32001
FORBIDDEN_ORIGIN = -32003
FORBIDDEN = -32003
MIN_BODY_BYTES = 4 * 1024 * 1024


class McpHttp:
    """The /mcp endpoint: Origin check, then the key, then the SDK's stateless session manager."""

    def __init__(self, runtime: Runtime, authenticator: Authenticator) -> None:
        settings = runtime.settings
        self.authenticator = authenticator
        self.allowed_origins = check_allowed_origins(settings.allowed_origins)
        self.server = build_server(runtime, principal_from_request)
        self.body_limit = max(MIN_BODY_BYTES, 3 * settings.max_result_bytes)
        self.manager, self.streaming = (
            StreamableHTTPSessionManager(
                app=self.server,
                stateless=True,
                json_response=json_response,
                # Host is checked by the app's HostCheck (dev mode) and Origin here, as for GraphQL.
                security_settings=None,
                max_request_body_size=self.body_limit,
            )
            for json_response in (True, False)  # the second for tools that wait (streaming.py)
        )

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        async with self.manager.run(), self.streaming.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await Response(status_code=404)(scope, receive, send)
            return
        if scope["method"] == "GET":
            # A GET opens a stream for messages the server sends unasked; a stateless server has none
            # to send, and each open stream would only hold a connection and a task.
            message = "GET /mcp: this server is stateless and sends nothing unasked; POST each message"
            response = _error(405, types.INVALID_REQUEST, message, "METHOD_NOT_ALLOWED")
            response.headers["allow"] = "POST, DELETE"
            await response(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if not self.origin_allowed(headers.get("origin"), scope, headers.get("host")):
            message = (
                "this Origin may not call /mcp: only the server's own origin and those listed in "
                "allowed_origins"
            )
            await _error(403, FORBIDDEN_ORIGIN, message, "FORBIDDEN")(scope, receive, send)
            return
        principal = await self.authenticator.authenticate(headers.get("authorization"))
        if isinstance(principal, Refusal):
            code = UNAUTHENTICATED if principal.status == 401 else FORBIDDEN
            response = _error(principal.status, code, principal.message, principal.code)
            response.headers["www-authenticate"] = principal.challenge
            await response(scope, receive, send)
            return
        try:
            toolsets = parse_toolsets(QueryParams(scope.get("query_string", b"")).get("toolsets"))
        except UnknownToolset as exc:
            await _error(400, types.INVALID_PARAMS, str(exc), "VALIDATION_FAILED")(scope, receive, send)
            return
        manager = self.manager
        if scope["method"] == "POST":
            body, complete = await read_body(receive, self.body_limit)
            manager = self.streaming if complete and wants_stream(body) else manager
            receive = replay(body, complete, receive)
        scope = {**scope, PRINCIPAL_SCOPE_KEY: principal, TOOLSETS_SCOPE_KEY: toolsets}
        await manager.handle_request(scope, receive, reworded(send))

    def origin_allowed(self, origin: str | None, scope: Scope, host: str | None) -> bool:
        """No Origin (not a browser), the server's own, or one of allowed_origins (as GraphQL's WebSocket)."""
        return origin_allowed(origin, scope.get("scheme", "http"), host, self.allowed_origins)


# The SDK's answers to a body it cannot read quote its parser ("4 validation errors for union[...]").
_OWN_WORDS = {
    "Parse error": (
        types.PARSE_ERROR,
        "Parse error: the body is not JSON text (UTF-8, nested at most as deep as the server parses)",
    ),
    "Validation error": (
        types.INVALID_REQUEST,
        "Invalid Request: the body is not a JSON-RPC 2.0 message (an "
        'object with "jsonrpc": "2.0", and a method, or a result or error, with an id)',
    ),
}


def reworded(send: Send) -> Send:
    """``send``, with the SDK's 400 answers about an unreadable body said in the API's own words."""
    held: Message | None = None

    async def wrapped(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start" and message["status"] == 400:
            held = message
            return
        if held is None or message["type"] != "http.response.body":
            await send(message)
            return
        start, held = held, None
        body = _reword(message.get("body", b""))
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({**message, "body": body})

    return wrapped


def _reword(body: bytes) -> bytes:
    try:
        answer = json.loads(body)
        said = str(answer["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return body
    for prefix, (code, words) in _OWN_WORDS.items():
        if said.startswith(prefix):
            answer["error"].update(code=code, message=words, data={"code": "VALIDATION_FAILED"})
            return json.dumps(answer, separators=(",", ":")).encode()
    return body


class _QuietStatelessEnd(logging.Filter):
    """Drops the SDK's "Terminating session: None", logged at the end of every stateless request."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Terminating session: None"


logging.getLogger("mcp.server.streamable_http").addFilter(_QuietStatelessEnd())


def _error(status: int, code: int, message: str, stable: str) -> Response:
    body = types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message, data={"code": stable})
    )
    return Response(
        body.model_dump_json(by_alias=True, exclude_unset=True),
        status_code=status,
        media_type="application/json",
    )


def mcp_state(app_state: Any) -> McpHttp:
    endpoint: McpHttp = app_state.mcp
    return endpoint
