"""Streamable HTTP at /mcp, in the GraphQL server's process and lifespan, with its keys.

Stateless: every POST is served on its own, so any process behind a proxy can answer any request,
and nothing about a client lives in one process (docs/decisions.md, "MCP over HTTP is stateless").
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..auth import Authenticator
from ..origins import check_allowed_origins, origin_allowed
from ..services.runtime import Runtime
from .server import PRINCIPAL_SCOPE_KEY, build_server, principal_from_request

# JSON-RPC error codes for refusals before any MCP message is read (the server-defined range).
UNAUTHENTICATED = -32001
FORBIDDEN_ORIGIN = -32003
MIN_BODY_BYTES = 4 * 1024 * 1024


class McpHttp:
    """The /mcp endpoint: Origin check, then the key, then the SDK's stateless session manager."""

    def __init__(self, runtime: Runtime, authenticator: Authenticator) -> None:
        settings = runtime.settings
        self.authenticator = authenticator
        self.allowed_origins = check_allowed_origins(settings.allowed_origins)
        self.server = build_server(runtime, principal_from_request)
        self.manager = StreamableHTTPSessionManager(
            app=self.server,
            stateless=True,
            json_response=True,
            # Host is checked by the app's HostCheck (dev mode) and Origin here, as for GraphQL.
            security_settings=None,
            max_request_body_size=max(MIN_BODY_BYTES, 3 * settings.max_result_bytes),
        )

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await Response(status_code=404)(scope, receive, send)
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
        if isinstance(principal, str):
            response = _error(401, UNAUTHENTICATED, principal, "UNAUTHENTICATED")
            response.headers["www-authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        await self.manager.handle_request({**scope, PRINCIPAL_SCOPE_KEY: principal}, receive, send)

    def origin_allowed(self, origin: str | None, scope: Scope, host: str | None) -> bool:
        """No Origin (not a browser), the server's own, or one of allowed_origins (as GraphQL's WebSocket)."""
        return origin_allowed(origin, scope.get("scheme", "http"), host, self.allowed_origins)


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
