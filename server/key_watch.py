"""Open WebSockets follow the key they authenticated with: once it is revoked, they are closed.

A WebSocket authenticates once, in ``connection_init``; without this it would keep streaming after its
key was revoked. Each open connection registers its key here, and one background loop (``run_once``
every ``auth_cache_seconds``) asks the database in one query which of the watched keys are still
active and closes every connection whose key is not, all at once: a connection
whose close cannot go out (a reader that reads nothing) holds up neither the others nor the next pass,
because each close is given at most ``close_within`` seconds and the connection is then cut.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable

from .auth import active_key_hashes, hash_key
from .db.engine import Database

logger = logging.getLogger(__name__)

Close = Callable[[], Awaitable[None]]  # closes the connection as it should be closed (4403)
Cut = Callable[[], None]  # drops it at once, for a close that cannot go out


class KeyWatch:
    def __init__(self, db: Database, close_within: float) -> None:
        self._db = db
        self._close_within = close_within
        self._ids = itertools.count()
        self._watched: dict[str, dict[int, tuple[Close, Cut]]] = {}  # key hash -> connection -> ...

    @property
    def connections(self) -> int:
        return sum(len(by_connection) for by_connection in self._watched.values())

    def watch(self, key: str, close: Close, cut: Cut) -> Callable[[], None]:
        """Once the key is found revoked, call ``close``, and ``cut`` if it is not done within
        ``close_within`` seconds (or fails). Returns the function that stops watching."""
        key_hash = hash_key(key)
        connection = next(self._ids)
        self._watched.setdefault(key_hash, {})[connection] = (close, cut)

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
        revoked = [
            connection
            for key_hash in asked
            if key_hash not in active
            for connection in self._watched.pop(key_hash, {}).values()
        ]
        await asyncio.gather(*(self.close_or_cut(close, cut) for close, cut in revoked))
        return len(revoked)

    async def close_or_cut(self, close: Close, cut: Cut) -> None:
        """``close``, or ``cut`` when it is not done within ``close_within`` seconds (or fails)."""
        try:
            async with asyncio.timeout(self._close_within):
                await close()
        except TimeoutError:
            logger.warning(
                "a WebSocket of a revoked key or an expired token took its close too long: dropped"
            )
            cut()
        except Exception:  # one connection that fails to close must not keep the others open
            logger.exception("closing a WebSocket of a revoked key or an expired token failed: dropped")
            cut()
