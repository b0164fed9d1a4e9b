"""The plans table, the stall-alert history and the activity page (3), in headless Chromium.

Plans are driven through the GraphQL API; the table's view (filter, sort, page) lives in the URL and
survives a reload; live changes update the rows shown in place, and what is not on the page only counts
towards the "new since you looked" cue.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.async_api import expect

from bench.dashboard import PROBES, drive_events, longest_task_ms, overview_first_render_ms
from server.loops.stalls import scan_stalls
from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.checks import assert_axe_clean
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import assert_clean, create_plan, look, open_dashboard, start_next

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


def showing(first: int, last: int, total: int) -> str:
    """The table's count line: rows first to last (an en dash between) of all that match."""
    return f"{first}\N{EN DASH}{last} of {total} plans"


TOPICS = ["lithium cold", "sodium heat", "zebra cells", "solid state", "flow battery"]


async def test_the_plans_table_filters_sorts_pages_by_url_and_merges_live_changes_in_place(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    ids = []
    for topic in TOPICS:  # a second apart: newest first is the reverse of this order
        ids.append(await create_plan(client, 2, researchQuestion=f"What about {topic}?"))
        live_server.clock.advance(timedelta(seconds=1))
    newest_first = ids[::-1]
    await open_dashboard(browser_page, f"{live_server.url}/#/plans?size=2")
    table = page.get_by_test_id("plans-table")
    rows = table.locator("tbody tr")
    count = page.get_by_test_id("plans-count")
    await expect(count).to_have_text(showing(1, 2, 5))
    assert await rows.evaluate_all("rs => rs.map(r => r.dataset.planRow)") == newest_first[:2]

    # Page 2, then a reload: the URL holds the page.
    await page.get_by_role("button", name="Next page").click()
    await expect(count).to_have_text(showing(3, 4, 5))
    assert "at=" in page.url
    await page.reload()
    await expect(count).to_have_text(showing(3, 4, 5))
    assert await rows.evaluate_all("rs => rs.map(r => r.dataset.planRow)") == newest_first[2:4]
    await page.get_by_role("button", name="Previous page").click()
    await expect(count).to_have_text(showing(1, 2, 5))

    # Oldest first by clicking the sorted column; the sort is in the URL.
    await table.get_by_role("button", name="Created").click()
    await expect(rows.first).to_have_attribute("data-plan-row", ids[0])
    assert "sort=CREATED_AT.ASC" in page.url

    # Search and status filters are the server's, and its count.
    await page.get_by_role("searchbox", name="Search").fill("zebra")
    await page.get_by_role("button", name="Search").click()
    await expect(count).to_have_text(showing(1, 1, 1))
    await expect(rows.first).to_have_attribute("data-plan-row", ids[2])
    await start_next(client, ids[2])
    await expect(rows.first).to_contain_text("executing")  # updated in place, live
    await page.goto(f"{live_server.url}/#/plans?size=2&status=EXECUTING")
    await expect(count).to_have_text(showing(1, 1, 1))
    await expect(page.get_by_role("combobox", name="Status")).to_have_value("EXECUTING")

    # Live on the default view: a row on the page updates where it stands; a new plan does not insert
    # itself, it raises the cue, which reads the page again when clicked.
    await page.goto(f"{live_server.url}/#/plans?size=2")
    await expect(count).to_have_text(showing(1, 2, 5))
    await start_next(client, ids[3])
    on_page = table.locator(f"[data-plan-row='{ids[3]}']")
    await expect(on_page).to_contain_text("executing")
    assert await rows.evaluate_all("rs => rs.map(r => r.dataset.planRow)") == newest_first[:2]
    new_id = await create_plan(client, 2, researchQuestion="What about a brand new chemistry?")
    cue = page.get_by_test_id("new-since")
    await expect(cue).to_have_text("1 new or changed since you looked — show")
    assert await rows.evaluate_all("rs => rs.map(r => r.dataset.planRow)") == newest_first[:2]
    await expect(count).to_have_text(showing(1, 2, 5))
    await cue.click()
    await expect(count).to_have_text(showing(1, 2, 6))
    await expect(rows.first).to_have_attribute("data-plan-row", new_id)
    await expect(cue).to_have_count(0)
    await assert_axe_clean(page, "the plans table")
    await look(browser_page, "plans-table")
    assert_clean(browser_page)


async def test_stall_history_shows_alerts_from_before_the_page_opened_and_activity_filters_and_tails(
    stall_server: LiveServer, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    client = GraphQLClient(stall_server.url)
    try:
        plan_id = await create_plan(client, 2)
        other_id = await create_plan(client, 2)
        await start_next(client, plan_id)
        stall_server.clock.advance(timedelta(seconds=61))
        found = stall_server.call(scan_stalls(stall_server.app.state.runtime))
        assert [f.plan_id for f in found] == [plan_id]

        # The stall happened before the page opened: it is read from the log.
        await open_dashboard(browser_page, stall_server.url)
        alert = page.locator(f"[data-alert-plan='{plan_id}']")
        await expect(alert).to_contain_text("1 step running longer than 1m 0s")

        # The activity page: the log, newest first, filtered by kind (in the URL), then live.
        await page.goto(f"{stall_server.url}/#/activity?kinds=plan_stalled")
        events = page.locator("table.events tbody tr")
        await expect(events).to_have_count(1)
        await expect(events.first).to_contain_text("plan_stalled")
        await page.goto(f"{stall_server.url}/#/activity?entity={other_id}")
        await expect(events).to_have_count(1)  # the plan's creation
        await start_next(client, other_id)  # the live tail: events about the plan itself
        await expect(events.first).to_contain_text("executing")
        shown = await events.evaluate_all("rs => rs.map(r => Number(r.dataset.seq))")
        assert len(shown) >= 2
        assert shown == sorted(shown, reverse=True)
        await assert_axe_clean(page, "the activity page")
        await look(browser_page, "activity")
        # The missions' and workflows' tables are the same table with their own columns.
        for path, noun in (("/missions/all", "missions"), ("/workflows/all", "workflows")):
            await page.goto(f"{stall_server.url}/#{path}")
            await expect(page.get_by_test_id(f"{noun}-count")).to_have_text(f"No {noun} match")
            await assert_axe_clean(page, f"the {noun} table")
    finally:
        await client.aclose()
    assert_clean(browser_page)


# The figures are the browser's: one database is enough (CI time); the other tests here run on both.
async def test_fifty_events_a_second_for_ten_seconds_reach_the_overview(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """`python -m bench.dashboard` (two minutes, 100k plans) in short: the page keeps up, figures printed."""
    page = browser_page.page
    await page.context.add_init_script(PROBES)
    await open_dashboard(browser_page, live_server.url)
    await create_plan(client, 1)
    first_render = await overview_first_render_ms(page)
    await page.evaluate("window.__longTasks = []")
    created = await drive_events(live_server.url, rate=50, seconds=10)
    # The page has caught up (the overview's count is the server's at load plus what it saw created).
    await expect(page.get_by_test_id("plans-summary")).to_have_text(
        re.compile(r"^5\d\d plans"), timeout=30_000
    )
    longest = await longest_task_ms(page)
    print(f"\nfirst render {first_render:.0f} ms; {created} plans in 10 s; longest task {longest:.0f} ms")
    # The main thread's longest task is a figure (`python -m bench.dashboard` holds its 200 ms target):
    # on a loaded machine every task stretches, so no bound on it here.
    assert created == 500
    assert_clean(browser_page)
