"""List pages in every order with 100,000 plans: each order reads its own index, so
a page costs the same in every order, including DURATION (an index on a generated column,
server/db/duration.py). Pages of 50 are read one after another through the cursor, as the dashboard's
tables page; the figures are the service call's wall time (one read transaction each)."""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from bench.loader import load
from server.auth import DEV_TENANT
from server.db.engine import Database
from server.services import listing
from server.services.listing import ListOrder, ListQuery
from server.services.plans.queries import PLANS

PLAN_COUNT = 100_000
PAGES = 20
FIRST = 50


async def page_times(url: str, pages: int = PAGES) -> dict[str, Any]:
    db = Database(url)
    results: dict[str, Any] = {}
    try:
        for order in ListOrder:
            for descending in (True, False):
                query = ListQuery(order=order, descending=descending)
                after: str | None = None
                times: list[float] = []
                for _ in range(pages):
                    started = time.perf_counter()
                    async with db.reader() as session:
                        page = await listing.list_page(session, PLANS, DEV_TENANT, query, FIRST, after)
                    times.append((time.perf_counter() - started) * 1000)
                    after = listing.list_cursor(PLANS, query, page.items[-1])
                name = f"{order.name.lower()}_{'desc' if descending else 'asc'}"
                results[f"lists_{name}_page_p50_ms"] = round(statistics.median(times), 2)
                results[f"lists_{name}_page_max_ms"] = round(max(times), 2)
    finally:
        await db.dispose()
    return results


def run(url: str, plans: int = PLAN_COUNT) -> dict[str, Any]:
    loaded = load(url, plans)
    results: dict[str, Any] = {"lists_plans": loaded.plans}
    results.update(asyncio.run(page_times(url)))
    return results
