"""Relay-style connection parts shared by every domain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import strawberry
from strawberry.types import Info

from .context import Context


class Edge(Protocol):
    cursor: str


@strawberry.type(description="Where a page ends, and whether another follows (Relay cursor connections).")
class PageInfo:
    has_next_page: bool = strawberry.field(description="True when more items follow this page.")
    end_cursor: str | None = strawberry.field(
        description="The cursor of the page's last item: pass it as `after` for the next page; null when "
        "the page is empty."
    )

    @staticmethod
    def of(has_next_page: bool, edges: Sequence[Edge]) -> PageInfo:
        return PageInfo(has_next_page=has_next_page, end_cursor=edges[-1].cursor if edges else None)


def capped(info: Info[Context, Any], first: int) -> int:
    """``first`` within 1 and the server's FLIGHTDECK_MAX_PAGE_SIZE."""
    return max(1, min(first, info.context.runtime.settings.max_page_size))
