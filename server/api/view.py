"""GraphQL over HTTP (the GraphQL-over-HTTP spec) and over WebSocket (graphql-transport-ws).

Strawberry does the protocol work; this view adds authentication, the
``application/graphql-response+json`` media type with its status codes, strict JSON both ways,
GraphQL-shaped errors for malformed requests, 405 for a mutation sent with GET and a 400 for a
subscription sent over HTTP.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cross_web import HTTPException
from graphql import GraphQLError, OperationDefinitionNode
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError, MissingQueryError
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from ..auth import DEV_PRINCIPAL, Authenticator, Principal, Refusal, bearer_key, is_access_token
from ..key_watch import KeyWatch
from ..origins import origin_allowed
from ..realtime.fanout import Fanout, FanoutTransportWSHandler
from ..services.runtime import Runtime
from . import wire_json
from .context import Context, make_context
from .operation_hooks import cached_parse
from .revocation import LegacyWSHandler

GRAPHQL_RESPONSE = "application/graphql-response+json"
LEGACY_JSON = "application/json"
# extensions.code of the errors this view answers itself, by HTTP status.
REQUEST_ERROR_CODES = {
    400: "BAD_REQUEST",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "NOT_ACCEPTABLE",
    415: "UNSUPPORTED_MEDIA_TYPE",
}
# The media types a response can have; an Accept header must allow one (GraphQL-over-HTTP spec).
ANSWERABLE = frozenset({GRAPHQL_RESPONSE, LEGACY_JSON, "application/*", "*/*"})
NOT_ACCEPTABLE = (
    f"this endpoint answers in {GRAPHQL_RESPONSE} or {LEGACY_JSON}; the Accept header allows neither"
)
UNSUPPORTED_MEDIA_TYPE = f"a GraphQL POST body is JSON: send it with Content-Type {LEGACY_JSON}"
SUBSCRIPTION_OVER_HTTP = (
    "subscriptions are served over WebSocket (graphql-transport-ws) at /graphql, not over HTTP"
)


class AuthFailed(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def _error_response(
    request: Request, status: int, message: str, code: str | None, headers: dict[str, str]
) -> Response:
    error: dict[str, object] = {"message": message}
    if code is not None:
        error["extensions"] = {"code": code}
    media_type = preferred_media_type(request.headers.get("accept", ""))
    return Response(wire_json.dumps({"errors": [error]}), status, headers=headers, media_type=media_type)


# Clients send the same few Accept headers on every request: each is parsed once.
@lru_cache(maxsize=128)
def _accepted_ranges(accept: str) -> frozenset[str]:
    """The media ranges of an Accept header, without those it refuses (``q=0``)."""
    ranges = set()
    for part in accept.split(","):
        media, *params = (p.strip().lower() for p in part.split(";"))
        refused = any(p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params)
        if media and not refused:
            ranges.add(media)
    return frozenset(ranges)


def request_problem(request: Request) -> HTTPException | None:
    """415 for a POST body that is not JSON, 406 for an Accept header that takes no JSON: refused before
    the body is read (GraphQL-over-HTTP spec)."""
    if request.method == "POST":
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media != LEGACY_JSON:
            return HTTPException(415, UNSUPPORTED_MEDIA_TYPE)
    accept = request.headers.get("accept", "").strip()
    if accept and not _accepted_ranges(accept) & ANSWERABLE:
        return HTTPException(406, NOT_ACCEPTABLE)
    return None


@lru_cache(maxsize=128)
def preferred_media_type(accept: str) -> str:
    """``application/graphql-response+json`` whenever the client takes it; ``application/json`` for a
    client that asks for it and not for the newer type, and for one that sends no Accept or only
    ``*/*``: the GraphQL-over-HTTP spec's advice for clients from before its watershed."""
    ranges = {part.split(";")[0].strip().lower() for part in accept.split(",")} - {""}
    if GRAPHQL_RESPONSE in ranges:
        return GRAPHQL_RESPONSE
    if not ranges or ranges & {LEGACY_JSON, "application/*", "*/*"}:
        return LEGACY_JSON
    return GRAPHQL_RESPONSE


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a string" if isinstance(value, str) else "a number"


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

    def _origin_allowed(self, scope: Scope) -> bool:
        """Strawberry's own check compares host and port only; ours compares the scheme too."""
        headers = Headers(scope=scope)
        return origin_allowed(
            headers.get("origin"),
            scope.get("scheme", "ws"),
            headers.get("host"),
            self.allowed_origins,
            headers.get("sec-fetch-site"),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and not self._origin_allowed(scope):
            # Closing before accepting answers the handshake with HTTP 403.
            await send({"type": "websocket.close", "code": 1008, "reason": "Origin not allowed"})
            return
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        # Strawberry answers its request errors in plain text; ours are GraphQL-shaped JSON.
        request = Request(scope, receive)
        try:
            if (problem := request_problem(request)) is not None:
                raise problem
            response = await self.run(request)
        except AuthFailed as exc:
            refused = exc.refusal
            response = _error_response(
                request,
                refused.status,
                refused.message,
                refused.code,
                {"WWW-Authenticate": refused.challenge},
            )
        except HTTPException as exc:
            headers = {"Allow": "POST"} if exc.status_code == 405 else {}
            code = REQUEST_ERROR_CODES.get(exc.status_code)
            response = _error_response(request, exc.status_code, exc.reason, code, headers)
        await response(scope, receive, send)

    def parse_json(self, data: str | bytes) -> Any:
        """A request body (or GET ``variables``): strict JSON, and an object (a list is a batch)."""
        try:
            value = wire_json.loads(data)
        except wire_json.BadJSON as exc:
            raise HTTPException(400, exc.reason) from None
        if not isinstance(value, dict | list):
            raise HTTPException(400, f"expected a JSON object with a query, got {_json_kind(value)}")
        return value

    async def parse_http_body(self, request: Any) -> Any:
        """A POST's one operation, read without parsing its Content-Type again (``request_problem`` has
        refused every POST body that is not JSON; Strawberry builds an email message to parse it).
        Anything else (GET, a batch, a member of the wrong kind, an Accept that asks for a stream) takes
        Strawberry's own path and its answers; Starlette keeps the body, so it is read once."""
        if request.method == "POST" and "multipart" not in request.headers.get("accept", "").lower():
            data = self.parse_json(await request.get_body())
            if isinstance(data, dict):
                query, variables = data.get("query"), data.get("variables")
                extensions = data.get("extensions")
                if (
                    isinstance(query, str | None)
                    and isinstance(variables, dict | None)
                    and isinstance(extensions, dict | None)
                ):
                    return GraphQLRequestData(query, variables, data.get("operationName"), extensions)
        return await super().parse_http_body(request)

    def decode_json(self, data: str | bytes) -> object:
        return wire_json.loads(data)

    def encode_json(self, data: object) -> str:
        return wire_json.dumps(data)

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        if isinstance(request, WebSocket):
            # Authenticated in on_ws_connect from the connection_init payload.
            return make_context(self.runtime, DEV_PRINCIPAL, request, response)
        principal = await self._principal(request.headers.get("authorization"))
        return make_context(self.runtime, principal, request, response)

    async def _principal(self, header: str | None) -> Principal:
        result = await self.authenticator.authenticate(header)
        if isinstance(result, Refusal):
            raise AuthFailed(result)
        return result

    async def on_ws_connect(self, context: Context) -> dict[str, object] | None:
        params = context.connection_params or {}
        header = params.get("Authorization") or params.get("authorization")
        result = await self.authenticator.authenticate(header if isinstance(header, str) else None)
        if isinstance(result, Refusal):
            raise ConnectionRejectionError({"message": result.message, "code": result.code})
        context.principal = result
        # Watched for revocation: API keys only (an access token is no row to revoke).
        key = bearer_key(header) if isinstance(header, str) and header else None
        context.api_key = key if key is not None and not is_access_token(key) else None
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

    async def execute_single(
        self,
        request: Any,
        request_adapter: Any,
        sub_response: Any,
        context: Context,
        root_value: None,
        request_data: Any,
    ) -> ExecutionResult:
        # Strawberry lets a subscription through over GET and POST for its multipart protocol, which
        # this server does not offer: executed as a query, it failed as "Unexpected error.".
        method = request_adapter.method
        if request_data.operation_name is None and request_data.query:
            _check_one_operation(request_data.query, self.runtime.settings.max_tokens)
        allowed = OperationType.from_http(method) - {OperationType.SUBSCRIPTION}
        if method == "GET" and not self.allow_queries_via_get:
            allowed -= {OperationType.QUERY}
        try:
            return await self.schema.execute(
                request_data.query,
                root_value=root_value,
                variable_values=request_data.variables,
                context_value=context,
                operation_name=request_data.operation_name,
                allowed_operation_types=allowed,
                operation_extensions=request_data.extensions,
            )
        except InvalidOperationTypeError as exc:
            if exc.operation_type is OperationType.SUBSCRIPTION:
                raise HTTPException(400, SUBSCRIPTION_OVER_HTTP) from exc
            raise HTTPException(405, f"{exc.as_http_error_reason(method)}; use POST") from exc
        except CannotGetOperationTypeError as exc:
            raise HTTPException(400, exc.as_http_error_reason()) from exc
        except MissingQueryError as exc:
            raise HTTPException(400, "No GraphQL query found in the request") from exc


def _check_one_operation(query: str, max_tokens: int) -> None:
    """A document of several operations needs ``operationName`` (GraphQL spec, GetOperation): Strawberry
    would run the first one. Parsed through the schema's own parse cache (the same key), so the document
    is parsed once; a document that does not parse is left for the execution to report."""
    try:
        document = cached_parse(query, max_tokens=max_tokens)
    except GraphQLError:
        return
    names = [
        d.name.value if d.name else "(anonymous)"
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode)
    ]
    if len(names) > 1:
        listed = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
        raise HTTPException(
            400, f"the document has {len(names)} operations ({listed}): say which to run with operationName"
        )
