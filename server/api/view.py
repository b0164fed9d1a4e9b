"""GraphQL over HTTP (the GraphQL-over-HTTP spec) and over WebSocket (graphql-transport-ws).

Strawberry does the protocol work; this view adds authentication, the
``application/graphql-response+json`` media type with its status codes, and 405 for a mutation
sent with GET.
"""

from __future__ import annotations

import json
from typing import Any

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLHTTPResponse
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL
from strawberry.types import ExecutionResult

from ..auth import DEV_PRINCIPAL, Authenticator, Principal, bearer_key
from ..key_watch import KeyWatch
from ..services.runtime import Runtime
from .context import Context, make_context
from .fanout import Fanout, FanoutTransportWSHandler
from .revocation import LegacyWSHandler

GRAPHQL_RESPONSE = "application/graphql-response+json"
LEGACY_JSON = "application/json"


class AuthFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _error_response(status: int, message: str, code: str | None, headers: dict[str, str]) -> Response:
    error: dict[str, object] = {"message": message}
    if code is not None:
        error["extensions"] = {"code": code}
    return Response(json.dumps({"errors": [error]}), status, headers=headers, media_type=GRAPHQL_RESPONSE)


def preferred_media_type(accept: str) -> str:
    """``application/json`` only for a client that asks for it and not for the newer type."""
    accept = accept.lower()
    if GRAPHQL_RESPONSE in accept or LEGACY_JSON not in accept:
        return GRAPHQL_RESPONSE
    return LEGACY_JSON


class FlightdeckGraphQL(GraphQL[Context, None]):
    graphql_transport_ws_handler_class = FanoutTransportWSHandler
    graphql_ws_handler_class = LegacyWSHandler

    def __init__(
        self, runtime: Runtime, authenticator: Authenticator, key_watch: KeyWatch, **kwargs: Any
    ) -> None:
        from .schema import build_schema

        super().__init__(
            build_schema(runtime.settings),
            graphql_ide=None,
            subscription_protocols=(
                (GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL)
                if runtime.settings.legacy_graphql_ws
                else (GRAPHQL_TRANSPORT_WS_PROTOCOL,)
            ),
            allowed_origins=runtime.settings.allowed_origins,
            **kwargs,
        )
        self.runtime = runtime
        self.authenticator = authenticator
        self.key_watch = key_watch
        self.fanout = Fanout(self.schema, runtime.settings)  # type: ignore[arg-type]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        # Strawberry answers its request errors in plain text; ours are GraphQL-shaped JSON.
        try:
            response = await self.run(Request(scope, receive))
        except AuthFailed as exc:
            response = _error_response(401, exc.message, "UNAUTHENTICATED", {"WWW-Authenticate": "Bearer"})
        except HTTPException as exc:
            headers = {"Allow": "POST"} if exc.status_code == 405 else {}
            response = _error_response(exc.status_code, exc.reason, None, headers)
        await response(scope, receive, send)

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        if isinstance(request, WebSocket):
            # Authenticated in on_ws_connect from the connection_init payload.
            return make_context(self.runtime, DEV_PRINCIPAL, request, response)
        principal = await self._principal(request.headers.get("authorization"))
        return make_context(self.runtime, principal, request, response)

    async def _principal(self, header: str | None) -> Principal:
        result = await self.authenticator.authenticate(header)
        if isinstance(result, str):
            raise AuthFailed(result)
        return result

    async def on_ws_connect(self, context: Context) -> dict[str, object] | None:
        params = context.connection_params or {}
        header = params.get("Authorization") or params.get("authorization")
        result = await self.authenticator.authenticate(header if isinstance(header, str) else None)
        if isinstance(result, str):
            raise ConnectionRejectionError({"message": result})
        context.principal = result
        context.api_key = bearer_key(header) if isinstance(header, str) and header else None
        return None

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        sub_response = await super().get_sub_response(request)
        sub_response.media_type = preferred_media_type(request.headers.get("accept", ""))
        return sub_response

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        response = await super().process_result(request, result)
        if result.data is None and result.errors and all(e.path is None for e in result.errors):
            # A request error (syntax, validation, variables, limits): execution never started, so
            # the response has no ``data`` entry (GraphQL spec, "Response Format") and, as
            # application/graphql-response+json, becomes a 400 in create_response. Field errors
            # always carry a path and keep ``data: null`` with 200.
            response.pop("data", None)
        return response

    def create_response(
        self, response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse], sub_response: Response
    ) -> Response:
        response = super().create_response(response_data, sub_response)
        media_type = sub_response.media_type or GRAPHQL_RESPONSE
        response.headers["content-type"] = media_type
        request_error = isinstance(response_data, dict) and "data" not in response_data
        if media_type == GRAPHQL_RESPONSE and request_error and response.status_code == 200:
            response.status_code = 400
        return response

    async def execute_single(self, request: Any, request_adapter: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().execute_single(request, request_adapter, *args, **kwargs)
        except HTTPException as exc:
            if isinstance(exc.__cause__, InvalidOperationTypeError) and request_adapter.method == "GET":
                raise HTTPException(405, "mutations are not allowed over GET; use POST") from exc
            raise
