"""The control room's tables and graph, in headless Chromium: honest time columns, filters that stay true,
short searches refused in words, activity rows that link, and 100- and 200-step DAGs laid out off the main
thread with a fit that shows every step (axe at 1280 and 390 px in both themes)."""

from __future__ import annotations

import re
from typing import cast

import pytest
from playwright.async_api import expect

from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.checks import assert_axe_clean
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import DESKTOP, PHONE, assert_clean, create_plan, open_dashboard, start_next
from tests.e2e.workflows import GATED, claim, create_workflow, start_workflow

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]

# Every main-thread task over 50 ms, from before the page's first script.
LONG_TASKS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: 'longtask', buffered: true });
"""


def wide_dag(steps: int) -> dict[str, object]:
    """``steps`` steps in layers of ten, each depending on two of the layer before."""
    named = [f"s{i:03d}" for i in range(steps)]
    return {
        "name": f"dag-{steps}",
        "steps": [
            {
                "name": name,
                **(
                    {"dependsOn": [named[i - 10], named[i - 10 + (1 if i % 10 < 9 else -1)]]}
                    if i >= 10
                    else {}
                ),
            }
            for i, name in enumerate(named)
        ],
    }


async def test_workflow_times_are_honest_and_a_filtered_row_that_stops_matching_is_marked_live(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    idle = await create_workflow(client, {**GATED, "name": "never started"})
    started = await create_workflow(client, {**GATED, "name": "started one"})
    await start_workflow(client, started)
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows/all")
    table = page.get_by_test_id("workflows-table")
    await expect(table.locator(f"[data-workflow-row='{idle}']")).to_be_visible()
    headers = await table.locator("thead th").all_inner_texts()
    assert [h.strip(" ▲▼") for h in headers][:8] == [
        "Name",
        "Status",
        "Progress",
        "Created",
        "Started",
        "Ended",
        "Updated",
        "Duration",
    ]
    idle_row = table.locator(f"[data-workflow-row='{idle}'] td")
    await expect(idle_row.nth(4)).to_have_text("not started")
    await expect(idle_row.nth(7)).to_have_text("\N{EN DASH}")
    running = table.locator(f"[data-workflow-row='{started}'] td")
    await expect(running.nth(4)).to_contain_text(re.compile(r"^(just now|\d+ (s|min) ago)"))
    # The relative time carries the absolute one (with its zone) in its tooltip.
    title = await running.nth(3).locator("time").get_attribute("title")
    assert title is not None
    assert re.search(r"\d{1,2}:\d\d:\d\d", title), title

    # Under "Planning", a plan that starts stays in place, marked and counted as leaving.
    plans = [await create_plan(client, 2) for _ in range(3)]
    await page.goto(f"{live_server.url}/#/plans?status=PLANNING")
    count = page.get_by_test_id("plans-count")
    await expect(count).to_have_text("1\N{EN DASH}3 of 3 plans")
    await start_next(client, plans[1])
    row = page.locator(f"[data-plan-row='{plans[1]}']")
    await expect(row).to_have_attribute("data-leaving", "true")
    await expect(row).to_contain_text("no longer matches the filter")
    await expect(count).to_have_text("1\N{EN DASH}3 of 2 plans")
    leaving = page.get_by_test_id("leaving")
    await expect(leaving).to_have_text("1 no longer matches the filter — refresh")
    for theme in ("light", "dark"):
        await page.emulate_media(color_scheme=theme)
        await assert_axe_clean(page, f"plans table with a leaving row ({theme})")
    await leaving.click()
    await expect(count).to_have_text("1\N{EN DASH}2 of 2 plans")
    await expect(row).to_have_count(0)

    # A search shorter than the index supports says so instead of listing everything.
    await page.goto(f"{live_server.url}/#/plans?q=ab")
    await expect(page.get_by_test_id("plans-search-short")).to_contain_text("3 characters or more")
    await expect(page.locator("[data-plan-row]")).to_have_count(0)

    # Activity rows link to their object.
    await page.goto(f"{live_server.url}/#/activity")
    link = page.locator("table.events tbody tr").first.get_by_role("link")
    await expect(link).to_have_attribute("href", re.compile(r"#/(plans|workflows)/[0-9a-f-]+$"))
    assert_clean(browser_page)


async def open_laid_out(browser_page: BrowserPage, url: str, steps: int) -> None:
    """Open a workflow's page and wait for its ``steps`` nodes: the layout ran in its Web Worker (the
    longest main-thread task is printed), and Fit shows every node at 1280 and 390 px with no sideways
    scroll."""
    page = browser_page.page
    await page.context.add_init_script(LONG_TASKS)
    await open_dashboard(browser_page, url)
    await expect(page.locator("[data-step-name]")).to_have_count(steps, timeout=60_000)
    longest = float(await page.evaluate("Math.max(0, ...window.__longTasks)"))
    # A figure, not a bound (a loaded machine stretches every task): bench.dashboard holds the target.
    print(f"\nlongest main-thread task while a {steps}-step DAG loaded and laid out: {longest:.0f} ms")
    workers = await page.evaluate(
        "performance.getEntriesByType('resource').filter(e => /elkWorker/.test(e.name)).length"
    )
    assert workers >= 1, "the layout did not run in its Web Worker"
    for size in (DESKTOP, PHONE):
        await page.set_viewport_size(size)
        await page.get_by_role("button", name="Fit the graph").click()
        await expect(page.get_by_test_id("dag-cut")).to_have_count(0)
        overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the DAG page scrolls sideways by {overflow}px at {size['width']}px"


async def test_a_100_step_dag_lays_out_off_the_main_thread_and_fit_shows_every_step(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    # 100: one full page of the steps connection.
    workflow_id = await create_workflow(client, wide_dag(100))
    await open_laid_out(browser_page, f"{live_server.url}/#/workflows/{workflow_id}", 100)

    # The state diagrams can be scrolled from the keyboard at phone width, in both themes.
    await page.goto(f"{live_server.url}/#/machines")
    await expect(page.locator(".diagram").first).to_be_visible()
    for theme in ("light", "dark"):
        await page.emulate_media(color_scheme=theme)
        await assert_axe_clean(page, f"state diagrams at 390px ({theme})")
    await page.set_viewport_size(DESKTOP)
    assert_clean(browser_page)


async def test_a_200_step_dag_shows_every_step_fits_them_all_and_stays_live(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """200 steps (the server's default largest workflow) are two pages of the steps connection: the
    page reads both before the layout, fit shows all of them, and a change to a step on the second
    page shows live."""
    page = browser_page.page
    # 199 steps in layers, their roots for one agent; the 200th, on the second page, a root of its own.
    definition = wide_dag(199)
    steps = cast(list[dict[str, object]], definition["steps"])
    for root in steps[:10]:
        root["agent"] = "worker-1"
    steps.append({"name": "s199", "agent": "late-worker"})
    workflow_id = await create_workflow(client, definition)
    await start_workflow(client, workflow_id)
    await open_laid_out(browser_page, f"{live_server.url}/#/workflows/{workflow_id}", 200)
    nodes = page.locator("[data-step-name]")

    # The last step, on the second page, shows its claim live.
    last = page.locator("[data-step-name='s199']")
    await expect(last).not_to_have_attribute("data-status", "running")
    assert (await claim(client, workflow_id, agent="late-worker"))["name"] == "s199"
    await expect(last).to_have_attribute("data-status", "running")
    await expect(nodes).to_have_count(200)
    assert_clean(browser_page)
