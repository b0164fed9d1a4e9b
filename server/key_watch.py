"""Open WebSockets follow the key they authenticated with: once it is revoked, they are closed.

A WebSocket authenticates once, in ``connection_init``; without this it would keep streaming after its
key was revoked. Each open connection registers its key here, and one background loop (``run_once``
every ``auth_cache_seconds``) asks the database in one query which of the watched keys are still
active and calls the ``on_revoked`` of every connection whose key is not.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable

from .auth import active_key_hashes, hash_key
from .db.engine import Database

logger = logging.getLogger(__name__)

OnRevoked = Callable[[], Awaitable[None]]


class KeyWatch:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._ids = itertools.count()
        self._watched: dict[str, dict[int, OnRevoked]] = {}  # key hash -> connection -> on_revoked

    @property
    def connections(self) -> int:
        return sum(len(by_connection) for by_connection in self._watched.values())

    def watch(self, key: str, on_revoked: OnRevoked) -> Callable[[], None]:
        """Call ``on_revoked`` once the key is found revoked; returns the function that stops watching."""
        key_hash = hash_key(key)
        connection = next(self._ids)
        self._watched.setdefault(key_hash, {})[connection] = on_revoked

        def unwatch() -> None:
            by_connection = self._watched.get(key_hash)
            if by_connection is not None:
                by_connection.pop(connection, None)
                if not by_connection:
                    del self._watched[key_hash]

        return unwatch

    async def run_once(self) -> int:
        """Close the connections of revoked keys; returns how many were closed."""
        if not self._watched:
            return 0
        asked = list(self._watched)  # keys watched from now on are checked next time
        active = await active_key_hashes(self._db, asked)
        closed = 0
        for key_hash in [h for h in asked if h not in active]:
            for on_revoked in self._watched.pop(key_hash, {}).values():
                try:
                    await on_revoked()
                except Exception:  # one connection that fails to close must not keep the others open
                    logger.exception("closing a WebSocket of a revoked key failed")
                closed += 1
        return closed
