"""In headless Chromium: the mission review list filtered, paged and
counted by the server with its view in the URL; the tables sorted by duration; the overview's count
equal to the API's totalCount when an old plan it does not hold changes."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.async_api import expect

from tests.api import mission_operations as mops
from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.checks import assert_axe_clean, assert_control_names_unique
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import assert_clean, create_plan, look, open_dashboard, start_next
from tests.e2e.missions import act, approve_mission, propose_asset, propose_hop, propose_mission

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]

TOTAL = "query($f: MissionReviewFilter) { missionReviews(filter: $f) { totalCount } }"


def showing(first: int, last: int, total: int) -> str:
    return f"{first}\N{EN DASH}{last} of {total} proposal{'' if total == 1 else 's'}"


async def api_total(client: GraphQLClient, given: dict[str, object] | None = None) -> int:
    return int((await client.execute(TOTAL, {"f": given}))["missionReviews"]["totalCount"])


async def test_mission_proposals_are_filtered_paged_and_counted_by_the_server_with_the_view_in_the_url(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    clock = live_server.clock
    survey = await propose_mission(client, "Reef survey")
    clock.advance(timedelta(minutes=1))
    birds = await propose_mission(client, "Bird count")
    clock.advance(timedelta(minutes=1))
    census = await propose_mission(client, "Reef census")
    await approve_mission(client, census)
    hop_id = await propose_hop(client, census, "Count", final=True)
    clock.advance(timedelta(minutes=1))
    asset_id = await propose_asset(client, census, "tallies", 3600)
    # The longest waiting first: survey, birds, the hop plan, the asset.
    order = [survey, birds, hop_id, asset_id]

    await open_dashboard(browser_page, f"{live_server.url}/#/reviews?msize=2")
    section = page.get_by_test_id("mission-reviews")
    items = section.locator("li.review")
    count = section.get_by_test_id("mission-reviews-count")
    shown = "rs => rs.map(r => r.dataset.reviewId)"
    await expect(count).to_have_text(showing(1, 2, 4))
    assert await items.evaluate_all(shown) == order[:2]
    # The nav badge and the page's summary are the server's count too.
    await expect(page.get_by_test_id("review-count")).to_have_text(str(await api_total(client)))

    # Page 2, in the URL: a reload shows it again; Previous goes back.
    await section.get_by_role("button", name="Next page of mission proposals").click()
    await expect(count).to_have_text(showing(3, 4, 4))
    assert "mat=" in page.url
    await page.wait_for_load_state("networkidle")  # a reload would abort the page's reads in flight
    await page.reload()
    await expect(count).to_have_text(showing(3, 4, 4))
    assert await items.evaluate_all(shown) == order[2:]
    await section.get_by_role("button", name="Previous page of mission proposals").click()
    await expect(count).to_have_text(showing(1, 2, 4))

    # The most recent first; a kind; a search on the mission's title (the server's count each time).
    await section.get_by_role("combobox", name="Order mission proposals").select_option("newest")
    await expect(items.first).to_have_attribute("data-review-id", asset_id)
    assert "morder=newest" in page.url
    await section.get_by_role("combobox", name="Kind mission proposals").select_option("ASSET")
    await expect(count).to_have_text(showing(1, 1, 1))
    await expect(items.first).to_have_attribute("data-review-kind", "asset")
    await section.get_by_role("combobox", name="Kind mission proposals").select_option("")
    await section.get_by_role("searchbox", name="Search mission proposals").fill("reef")
    await section.get_by_role("button", name="Search mission proposals").click()
    await expect(count).to_have_text(showing(1, 2, 3))
    assert await api_total(client, {"search": "reef"}) == 3
    assert await items.evaluate_all(shown) == [asset_id, hop_id]
    await assert_axe_clean(page, "the Reviews page with a filtered, paged mission list")
    await assert_control_names_unique(page)
    await look(browser_page, "reviews-missions-filtered")

    # Live: a new proposal that matches is counted at once; one decided here leaves the list.
    clock.advance(timedelta(minutes=1))
    newest = await propose_mission(client, "Reef lagoon")
    await expect(count).to_have_text(showing(1, 2, 4))
    await expect(items.first).to_have_attribute("data-review-id", newest)
    item = section.locator(f"[data-review-kind=mission][data-review-id='{newest}']")
    await item.get_by_role("button", name=re.compile(r"^Approve")).click()
    await expect(count).to_have_text(showing(1, 2, 3))
    await expect(page.get_by_test_id("review-count")).to_have_text(str(await api_total(client)))

    # A view that matches nothing says so; a hostile search is only text.
    await page.wait_for_load_state("networkidle")
    await page.goto(f"{live_server.url}/#/reviews?mq=%22%20OR%201%3D1%20--&mkind=HOP_IMPLEMENTATION")
    await expect(count).to_have_text("No proposal matches")
    await look(browser_page, "reviews-missions-none")
    assert_clean(browser_page)


async def test_the_overview_counts_what_the_api_counts_and_the_tables_sort_by_duration(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    clock = live_server.clock
    # 105 plans: the overview holds the newest 100 and says 105, as the API does; a change to an old plan
    # it does not hold is not a new plan (it used to be counted again: "107 plans" below).
    plans = []
    for _ in range(105):  # a second apart: plans[0] is the oldest, not among the 100 the overview holds
        plans.append(await create_plan(client, 2))
        clock.advance(timedelta(seconds=1))
    assert (await client.execute("{ researchPlans { totalCount } }"))["researchPlans"]["totalCount"] == 105
    await open_dashboard(browser_page, live_server.url)
    summary = page.get_by_test_id("plans-summary")
    await expect(summary).to_have_text("105 plans")
    await start_next(client, plans[0])  # the oldest: not on the overview
    newest = await create_plan(client, 2)  # its events follow the old plan's
    await expect(page.locator(f"[data-plan-id='{newest}']")).to_be_visible()  # both events were handled
    await expect(summary).to_have_text("106 plans")
    assert (await client.execute("{ researchPlans { totalCount } }"))["researchPlans"]["totalCount"] == 106
    await look(browser_page, "overview-106-plans")

    long_done = await propose_mission(client, "Ran twelve minutes")
    clock.advance(timedelta(minutes=1))
    running = await propose_mission(client, "Still running")
    clock.advance(timedelta(minutes=1))
    short_done = await propose_mission(client, "Ran one minute")
    clock.advance(timedelta(minutes=1))
    await act(client, mops.mission_act("cancelMission", reason=True), {"id": short_done, "reason": "enough"})
    clock.advance(timedelta(minutes=9))
    await act(client, mops.mission_act("cancelMission", reason=True), {"id": long_done, "reason": "enough"})

    # Links followed in the same document (a reload would abort the live lists' reads in flight).
    await page.evaluate("location.hash = '/missions/all'")
    table = page.get_by_test_id("missions-table")
    rows = table.locator("tbody tr")
    shown = "rs => rs.map(r => r.dataset.missionRow)"
    await table.get_by_role("button", name="Duration").click()
    await expect(rows.first).to_have_attribute("data-mission-row", running)
    assert "sort=DURATION.DESC" in page.url
    assert await rows.evaluate_all(shown) == [running, long_done, short_done]
    assert await table.locator("th[aria-sort=descending]").inner_text() == "Duration ▼"
    # The time range cannot go with this sort: its inputs say so instead of sending a refused request.
    await expect(page.get_by_label("Created from")).to_be_disabled()
    await table.get_by_role("button", name="Duration").click()
    await expect(rows.first).to_have_attribute("data-mission-row", short_done)
    assert await rows.evaluate_all(shown) == [short_done, long_done, running]
    await page.wait_for_load_state("networkidle")
    await page.reload()
    await expect(rows.first).to_have_attribute("data-mission-row", short_done)
    assert await rows.evaluate_all(shown) == [short_done, long_done, running]
    await assert_axe_clean(page, "the missions table sorted by duration")
    await look(browser_page, "missions-table-duration")

    # The plans and workflows tables sort by duration too (the same column).
    for path, noun in (("/plans", "plans"), ("/workflows/all", "workflows")):
        await page.evaluate(f"location.hash = '{path}?sort=DURATION.ASC'")
        await expect(page.get_by_test_id(f"{noun}-table").locator("th[aria-sort=ascending]")).to_have_text(
            "Duration ▲"
        )
        await assert_axe_clean(page, f"the {noun} table sorted by duration")
        await look(browser_page, f"{noun}-table-duration")
    assert_clean(browser_page)
