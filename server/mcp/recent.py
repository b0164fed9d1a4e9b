"""``resources/list``: the caller's tenant's most recently changed plans, workflows and missions.

Each is a resource of the templates in resources.py (read by the read tool of its kind), listed
newest change first and paged with the MCP cursor, so a client shows what is being worked on now.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..auth import Principal
from ..errors import ServiceError
from ..services.pages import time_cursor
from ..services.recent import recent_roots
from ..services.runtime import Runtime
from .resources import MEDIA_TYPE, SCHEME, SNAPSHOTS

PAGE_SIZE = 50
_TITLES = {s.kind: s.title for s in SNAPSHOTS}


async def list_recent(
    runtime: Runtime, principal: Principal, cursor: str | None
) -> types.ListResourcesResult:
    try:
        async with runtime.db.reader() as session:
            page = await recent_roots(session, principal.tenant_id, PAGE_SIZE, cursor)
    except ServiceError as exc:  # a cursor this server did not issue
        problem = exc.problems[0]
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"{problem.code.value}: {problem.message}",
            data={"code": problem.code.value, "field": ["cursor"]},
        ) from None
    resources = [
        types.Resource(
            uri=f"{SCHEME}{r.kind}/{r.id}",
            name=f"{r.kind}/{r.id}",
            title=f"{_TITLES[r.kind]}: {r.title[:100]}",
            description=f"{_TITLES[r.kind]} {r.status}, last changed {r.updated_at.isoformat()}.",
            mime_type=MEDIA_TYPE,
        )
        for r in page.items
    ]
    last = page.items[-1] if page.items else None
    next_cursor = time_cursor(last.updated_at, last.id) if page.has_next_page and last else None
    return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)
