"""Relay-style connection parts shared by every domain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import strawberry
from strawberry.types import Info
from strawberry.types.nodes import SelectedField

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


def selects(info: Info[Context, Any], name: str) -> bool:
    """Whether the query asked for ``name`` on this field's result (directly or in a fragment).

    Counting every row of a list costs as much as the list grows; ``totalCount`` is computed only when
    selected, and is 0 (never sent) otherwise.
    """

    def found(selections: Sequence[Any]) -> bool:
        for selection in selections:
            if isinstance(selection, SelectedField):
                if selection.name == name:
                    return True
            elif found(selection.selections):  # a fragment spread or an inline fragment
                return True
        return False

    return any(found(field.selections) for field in info.selected_fields)


def capped(info: Info[Context, Any], first: int) -> int:
    """``first`` within 1 and the server's FLIGHTDECK_MAX_PAGE_SIZE."""
    return max(1, min(first, info.context.runtime.settings.max_page_size))
