"""Which /mcp requests are answered as a stream: a tool that waits sends progress while it runs.

/mcp answers with JSON (one body per request, the cheapest for the many short calls); a JSON answer
has nowhere to put a notification, so a call of a waiting tool is handed to a second session manager
that answers with server-sent events (the SDK still answers JSON when nothing was sent before the
result). The body is read once here and handed on as it came.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive

STREAMED_TOOLS = frozenset({"wait_for_decision"})


async def read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The request body, up to ``limit`` bytes; and whether it ended within them."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(chunks), False
        if not message.get("more_body", False):
            return b"".join(chunks), True


def replay(body: bytes, complete: bool, receive: Receive) -> Receive:
    """A receive that gives ``body`` first, then (if it was cut short) the rest of the original."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": not complete}
        return await receive()

    return again


def wants_stream(body: bytes) -> bool:
    """A tools/call of a tool that waits (a cheap look first: most bodies name no such tool)."""
    if not any(name.encode() in body for name in STREAMED_TOOLS):
        return False
    try:
        message: Any = json.loads(body)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    params = message.get("params")
    return isinstance(params, dict) and params.get("name") in STREAMED_TOOLS
