"""Live snapshots of one aggregate: now, then again after every batch of events under its root.

``researchPlanUpdated`` and ``workflowUpdated`` are this with their own snapshot function.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar

from graphql import GraphQLError
from strawberry.types import Info

from ..context import Context

T = TypeVar("T")


async def root_snapshots(
    info: Info[Context, Any], what: str, root_id: str, load: Callable[[], Awaitable[T | None]]
) -> AsyncGenerator[T, None]:
    """``load()`` first, then once per batch of committed events whose root is ``root_id``.

    The log position is read before the first snapshot, so a change committed in between is not lost.
    A root that does not exist (or is another tenant's) is a NOT_FOUND error.
    """

    async def snapshot() -> T:
        value = await load()
        if value is None:
            raise GraphQLError(f"{what} {root_id} not found", extensions={"code": "NOT_FOUND"})
        return value

    ctx = info.context
    tenant = ctx.principal.tenant_id
    start = await ctx.runtime.feed.position(tenant)
    yield await snapshot()
    async with aclosing(ctx.runtime.feed.follow(tenant, start)) as batches:
        async for batch in batches:
            if any(e.root_id == root_id for e in batch):
                yield await snapshot()
