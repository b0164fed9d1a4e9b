"""The one Relay-style connection every list returns, and the helpers that build it.

``Connection[N]`` is generic: Strawberry names each use after its node type (``Connection[WorkflowType]``
is ``WorkflowConnection``, with ``WorkflowEdge``), so every list has the same shape and no domain writes
its own edge and connection classes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, TypeVar

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession
from strawberry.types import Info
from strawberry.types.nodes import SelectedField

from ..services.pages import Page
from .context import Context
from .descriptions import CURSOR, EDGES, PAGE_INFO, TOTAL_COUNT
from .errors import run_query

N = TypeVar("N")
R = TypeVar("R")


@strawberry.type(description="Where a page ends, and whether another follows (Relay cursor connections).")
class PageInfo:
    has_next_page: bool = strawberry.field(description="True when more items follow this page.")
    end_cursor: str | None = strawberry.field(
        description="The cursor of the page's last item: pass it as `after` for the next page; null when "
        "the page is empty."
    )


@strawberry.type(description="An item and its position in the list.")
class Edge(Generic[N]):
    cursor: str = strawberry.field(description=CURSOR)
    node: N = strawberry.field(description="The item at this position.")


@strawberry.type(description="A page of a list, in the list's order.")
class Connection(Generic[N]):
    edges: list[Edge[N]] = strawberry.field(description=EDGES)
    page_info: PageInfo = strawberry.field(description=PAGE_INFO)
    total_count: int = strawberry.field(description=TOTAL_COUNT)

    @classmethod
    def of(
        cls,
        rows: Sequence[R],
        has_next_page: bool,
        cursor: Callable[[R], str],
        node: Callable[[R], N],
        total_count: int = 0,
        *,
        edge_cursors: bool = True,
    ) -> Connection[N]:
        """Edges for ``rows`` (their cursors and nodes), and where the page ends.

        ``edge_cursors=False`` when the query does not select ``edges { cursor }``: only the page's end
        cursor is made, and the edges' cursors (never sent) are empty.
        """
        if edge_cursors:
            edges = [Edge(cursor=cursor(row), node=node(row)) for row in rows]
            end = edges[-1].cursor if edges else None
        else:
            edges = [Edge(cursor="", node=node(row)) for row in rows]
            end = cursor(rows[-1]) if rows else None
        return cls(
            edges=edges,
            page_info=PageInfo(has_next_page=has_next_page, end_cursor=end),
            total_count=total_count,
        )


def selects(info: Info[Context, Any], *path: str) -> bool:
    """Whether the query asked for the field at ``path`` in this field's result (directly or in a
    fragment): ``selects(info, "totalCount")``, ``selects(info, "edges", "cursor")``.

    Counting every row of a list costs as much as the list grows; ``totalCount`` is computed only when
    selected, and is 0 (never sent) otherwise.
    """

    def found(selections: Sequence[Any], path: tuple[str, ...]) -> bool:
        for selection in selections:
            if isinstance(selection, SelectedField):
                if selection.name == path[0] and (len(path) == 1 or found(selection.selections, path[1:])):
                    return True
            elif found(selection.selections, path):  # a fragment spread or an inline fragment
                return True
        return False

    return any(found(field.selections, path) for field in info.selected_fields)


def capped(info: Info[Context, Any], first: int) -> int:
    """``first`` within 1 and the server's FLIGHTDECK_MAX_PAGE_SIZE."""
    return max(1, min(first, info.context.runtime.settings.max_page_size))


async def list_connection(
    info: Info[Context, Any],
    page: Callable[[AsyncSession, int], Awaitable[Page[R]]],
    count: Callable[[AsyncSession], Awaitable[int]],
    cursor: Callable[[R], str],
    node: Callable[[R], N],
    first: int,
) -> Connection[N]:
    """One page of a list read from the database, in one read transaction.

    ``page`` reads ``first`` (capped) rows; ``count`` runs only when the query selects ``totalCount``,
    and each edge's cursor is made only when the query selects it (the end cursor always is).
    """
    size = capped(info, first)
    counted = selects(info, "totalCount")
    edge_cursors = selects(info, "edges", "cursor")

    async def read(session: AsyncSession) -> Connection[N]:
        found = await page(session, size)
        total = await count(session) if counted else 0
        return Connection.of(found.items, found.has_next_page, cursor, node, total, edge_cursors=edge_cursors)

    result = await run_query(info, read)
    assert result is not None
    return result


def child_connection(
    rows: Sequence[R], page: Page[R], cursor: Callable[[R], str], node: Callable[[R], N]
) -> Connection[N]:
    """A page of a child list already loaded whole (a workflow's steps, a mission's hops): counted as is."""
    return Connection.of(page.items, page.has_next_page, cursor, node, len(rows))
