"""WebSocket handlers that close their connection (4403) once the key it authenticated with is revoked,
or the access token it authenticated with expires."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from strawberry.subscriptions.protocols.graphql_ws.handlers import BaseGraphQLWSHandler

from ..key_watch import KeyWatch
from ..realtime.frames import cut
from .context import Context
from .strawberry_internals import websocket_scope

logger = logging.getLogger(__name__)


class ClosesOnRevocation:
    """Mixed into a Strawberry WebSocket handler: watches the connection's key from its ack on."""

    context: Context
    view: Any
    websocket: Any
    connection_acknowledged: bool
    _unwatch: Callable[[], None] | None = None
    _expiry: asyncio.Task[None] | None = None

    async def handle(self) -> None:
        try:
            await super().handle()  # type: ignore[misc]
        finally:
            if self._unwatch is not None:
                self._unwatch()
                self._unwatch = None
            if self._expiry is not None:
                self._expiry.cancel()
                self._expiry = None

    async def handle_connection_init(self, message: Any) -> None:
        await super().handle_connection_init(message)  # type: ignore[misc]
        if self.connection_acknowledged and self.context.api_key and self._unwatch is None:
            key_watch: KeyWatch = self.view.key_watch
            self._unwatch = key_watch.watch(self.context.api_key, self._close_revoked, self._cut)
        expires_at = self.context.principal.expires_at
        if self.connection_acknowledged and expires_at is not None and self._expiry is None:
            self._expiry = asyncio.create_task(self._close_when_expired(expires_at))

    async def _close_when_expired(self, expires_at: float) -> None:
        # Access tokens cannot be revoked here; their expiry is the one end they have. Wall time, as
        # the token's exp is checked against it.
        await asyncio.sleep(max(0.0, expires_at - time.time()))
        key_watch: KeyWatch = self.view.key_watch
        await key_watch.close_or_cut(self._close_revoked, self._cut)

    async def _close_revoked(self) -> None:
        # graphql-ws clients take 4403 as final ("Forbidden") and do not reconnect with the same key.
        with contextlib.suppress(RuntimeError):  # the connection closed in the meantime
            await self.websocket.close(code=4403, reason="Forbidden")

    def _cut(self) -> None:
        # The close waits for room in the send buffer; a reader that reads nothing never makes any.
        if not cut(websocket_scope(self)):
            logger.warning("cannot drop a WebSocket of a revoked key under this server; it stays open")


class LegacyWSHandler(ClosesOnRevocation, BaseGraphQLWSHandler[Context, None]):
    """The legacy graphql-ws protocol (``legacy_graphql_ws``), with the same revocation rule."""
