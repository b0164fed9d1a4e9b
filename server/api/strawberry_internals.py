"""Every reach past Strawberry's public API, in one place, checked against one Strawberry version.

Strawberry documents its schema, views, extensions and permissions; what the shared subscription path
and the WebSocket handlers need beyond that is here (or named here), and ``tests/test_library_pins.py``
fails when the installed Strawberry is not ``VERIFIED_WITH``: re-check each item below against the new
release's source, then move the pin.

- ``Schema._schema``: the graphql-core schema Strawberry built. The fan-out executes a subscription
  once per group of identical subscribers with graphql-core's ``Executor`` against it (no public
  accessor exists): ``graphql_core_schema``.
- ``strawberry.schema.schema.validate_document``: what Strawberry validates a document with (graphql-core's
  ``validate`` plus Strawberry's own rules); ``operation_hooks.py`` caches it, as Strawberry's
  ``ValidationCache`` does, inside the one extension that replaced Strawberry's cache extensions.
- ``handler.websocket.ws``: the Starlette WebSocket under Strawberry's ASGI adapter, which the fan-out
  writes each rendered event to (``websocket_send_text``), and its ASGI scope (``websocket_scope``).
- The WebSocket protocol handlers (``graphql_ws_handler_class`` and ``graphql_transport_ws_handler_class``
  on the view) are subclassed in ``fanout.py`` and ``revocation.py``: they override ``handle``,
  ``handle_connection_init`` and ``run_operation`` and read ``operations``, ``Operation.completed``,
  ``connection_acknowledged`` and ``handle_task_exception``. ``HANDLER_HOOKS`` lists them for the test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from graphql import GraphQLSchema
from strawberry import Schema

VERIFIED_WITH = "0.341.2"  # strawberry-graphql

# (module, class, attributes) the handler subclasses override or read.
HANDLER_HOOKS = (
    (
        "strawberry.subscriptions.protocols.graphql_transport_ws.handlers",
        "BaseGraphQLTransportWSHandler",
        ("handle", "handle_connection_init", "run_operation", "handle_task_exception"),
    ),
    (
        "strawberry.subscriptions.protocols.graphql_ws.handlers",
        "BaseGraphQLWSHandler",
        ("handle", "handle_connection_init"),
    ),
    ("strawberry.subscriptions.protocols.graphql_transport_ws.handlers", "Operation", ("completed",)),
)


def graphql_core_schema(schema: Schema) -> GraphQLSchema:
    """The graphql-core schema behind a Strawberry schema."""
    core = schema._schema
    if not isinstance(core, GraphQLSchema):  # pragma: no cover - only on an unchecked upgrade
        raise TypeError(f"Strawberry {VERIFIED_WITH} kept its graphql-core schema in Schema._schema")
    return core


def websocket_scope(handler: Any) -> dict[str, Any]:
    """The ASGI scope of the Starlette WebSocket a Strawberry protocol handler serves."""
    scope: dict[str, Any] = handler.websocket.ws.scope
    return scope


def websocket_send_text(handler: Any) -> Callable[[str], Awaitable[None]]:
    """The ``send_text`` of the Starlette WebSocket a Strawberry protocol handler serves."""
    send: Callable[[str], Awaitable[None]] = handler.websocket.ws.send_text
    return send
