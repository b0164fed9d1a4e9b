"""A typed client for one Flightdeck server: HTTP for queries and mutations, WebSocket for streams."""

from __future__ import annotations

from typing import Any, Protocol, cast

import httpx

from .errors import ClientError
from .generated.async_base_client import HttpClient
from .generated.client import FlightdeckGraphQL


class _Problem(Protocol):
    code: Any
    message: str
    field: list[str]


def connect(url: str, token: str | None = None, *, timeout: float = 30.0) -> FlightdeckGraphQL:
    """``url`` is the server's base (``http://127.0.0.1:8000``) or its ``/graphql`` endpoint."""
    endpoint = url.rstrip("/")
    if not endpoint.endswith("/graphql"):
        endpoint += "/graphql"
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return FlightdeckGraphQL(
        url=endpoint,
        headers=headers,
        http_client=cast(HttpClient, httpx.AsyncClient(headers=headers, timeout=timeout)),
        ws_url=endpoint.replace("http://", "ws://", 1).replace("https://", "wss://", 1),
        ws_connection_init_payload={"Authorization": f"Bearer {token}"} if token else None,
    )


def raise_for(errors: list[Any]) -> None:
    """Turn a payload's userErrors into a ``ClientError`` (the first one's code)."""
    if errors:
        first: _Problem = errors[0]
        code = getattr(first.code, "value", first.code)
        raise ClientError(str(code), "; ".join(e.message for e in errors), list(first.field))
