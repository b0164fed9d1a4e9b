"""A request id for every HTTP request and WebSocket connection, so a log line and a response can be matched.

The client's ``X-Request-ID`` is kept when it is short and plain (letters, digits and ``._:-``, at most
128 characters); otherwise the server makes one. It is answered in the ``X-Request-ID`` header, carried
by the "Unexpected error." a client receives, and named in the log line of that error.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = "x-request-id"
LONGEST = 128
_PLAIN = re.compile(r"[A-Za-z0-9._:-]+")

logger = logging.getLogger("server.requests")

_CURRENT: ContextVar[str | None] = ContextVar("request_id", default=None)


def current_request_id() -> str | None:
    """The id of the request (or WebSocket connection) being served, if any."""
    return _CURRENT.get()


def request_id_from(headers: list[tuple[bytes, bytes]]) -> str:
    for name, value in headers:
        if name.lower() == HEADER.encode():
            text = value.decode("latin-1")
            if len(text) <= LONGEST and _PLAIN.fullmatch(text):
                return text
            break
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Sets the request id for everything that serves the request, answers it in a header, and logs
    (with it) an exception nothing else handled."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(scope.get("headers", []))
        token = _CURRENT.set(request_id)
        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] in ("http.response.start", "websocket.accept"):
                started = True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != HEADER.encode()]
                message = {**message, "headers": [*headers, (HEADER.encode(), request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            logger.exception("unexpected error [request %s]", request_id)
            if scope["type"] != "http":
                raise
            if not started:  # else the server closes the connection, the response unfinished
                await _internal_error(send, request_id)
        finally:
            _CURRENT.reset(token)


async def _internal_error(send: Send, request_id: str) -> None:
    error = {"message": "Unexpected error.", "extensions": {"requestId": request_id}}
    body = json.dumps({"errors": [error]}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (HEADER.encode(), request_id.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
