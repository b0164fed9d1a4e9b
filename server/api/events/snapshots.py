"""Live snapshots of one aggregate root (a plan, a mission): the object now, then after every change.

A subscription passes how to load its row and render it; this follows the tenant's event feed from the
moment before the first read, so no change between the read and the tail is missed, and sends a new
snapshot per batch of events of that root (several events committed together give one snapshot).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeVar

from graphql import GraphQLError
from sqlalchemy.ext.asyncio import AsyncSession
from strawberry.types import Info

from ..context import Context
from ..errors import run_query

R = TypeVar("R")
T = TypeVar("T")


async def root_snapshots(
    info: Info[Context, Any],
    what: str,
    root_id: str,
    load: Callable[[AsyncSession], Awaitable[R]],
    render: Callable[[R], T],
) -> AsyncGenerator[T, None]:
    ctx = info.context
    tenant = ctx.principal.tenant_id

    async def snapshot() -> T:
        row = await run_query(info, load)
        if row is None:
            raise GraphQLError(f"{what} {root_id} not found", extensions={"code": "NOT_FOUND"})
        return render(row)

    start = await ctx.runtime.feed.position(tenant)
    yield await snapshot()
    async with aclosing(ctx.runtime.feed.follow(tenant, start)) as batches:
        async for batch in batches:
            if any(e.root_id == root_id for e in batch):
                yield await snapshot()
