"""A request id for every HTTP request and WebSocket connection, so a log line and a response can be matched.

The client's ``X-Request-ID`` is kept when it is short and plain (letters, digits and ``._:-``, at most
128 characters); otherwise the server makes one. It is answered in the ``X-Request-ID`` header, carried
by the "Unexpected error." a client receives, and named in the log line of that error (all done by the
request layer, ``request_layer.py``).
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from contextvars import ContextVar, Token

from starlette.types import Send

HEADER = "x-request-id"
LONGEST = 128
_PLAIN = re.compile(r"[A-Za-z0-9._:-]+")

_CURRENT: ContextVar[str | None] = ContextVar("request_id", default=None)


def current_request_id() -> str | None:
    """The id of the request (or WebSocket connection) being served, if any."""
    return _CURRENT.get()


def bind_request_id(request_id: str) -> Token[str | None]:
    """Make ``request_id`` the current one until ``unbind_request_id(token)``."""
    return _CURRENT.set(request_id)


def unbind_request_id(token: Token[str | None]) -> None:
    _CURRENT.reset(token)


def plain_request_id(given: bytes | None) -> str:
    """The client's id when it is short and plain, else a new one."""
    if given is not None:
        text = given.decode("latin-1")
        if len(text) <= LONGEST and _PLAIN.fullmatch(text):
            return text
    return f"{_PROCESS}{next(_SERIAL):016x}"


# A made id: 16 random hex digits for this process, then a count (32 hex digits, like a UUID's). One
# request after another needs a different id, not an unguessable one, and a UUID4 cost a system call.
_PROCESS = secrets.token_hex(8)
_SERIAL = itertools.count(1)


async def internal_error(send: Send, request_id: str) -> None:
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
