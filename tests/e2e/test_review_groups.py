"""The Reviews page with 500 open reviews in headless Chromium on a real server (both databases): one
group per domain, each a page of 20 one-line items read by cursor, the nearest deadline first and then
the longest waiting, each naming its plan, workflow or mission, "select all" above each group's items,
and the whole page at most 3,000 px tall at 1280 px wide."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from playwright.async_api import Locator, expect

from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.checks import assert_axe_clean, assert_control_names_unique
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import DESKTOP, assert_clean, create_plan, open_dashboard, request_review, start_next
from tests.e2e.missions import propose_mission
from tests.e2e.workflows import create_workflow, start_workflow

DASH = "\u2013"  # the count line says a range with an en dash


def counted(first: int, last: int, total: int) -> str:
    return f"{first}{DASH}{last} of {total} plan steps, the nearest deadline first"


pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]

TALLEST = 3000  # px at 1280 px wide, whatever waits
TERMS = """
mutation($id: ID!) {
  setDecisionTerms(decisionId: $id, terms: {deadlineSeconds: 600, defaultOutcome: APPROVE}) {
    userErrors { code }
  }
}
"""


async def give_deadline(client: GraphQLClient, subject_id: str) -> None:
    about = await client.execute(
        "query($id: ID!) { decisionsAbout(subjectId: $id) { id } }", {"id": subject_id}
    )
    answer = await client.execute(TERMS, {"id": about["decisionsAbout"][0]["id"]})
    assert answer["setDecisionTerms"]["userErrors"] == []


async def ids(items: Locator, attribute: str) -> list[Any]:
    return await items.evaluate_all(f"els => els.map(e => e.getAttribute('{attribute}'))")


async def test_five_hundred_reviews_are_grouped_paged_by_deadline_and_the_page_stays_short(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    steps = []
    for i in range(150):
        step_id = await start_next(client, await create_plan(client, 1, title=f"Plan {i:03}"))
        await request_review(client, step_id, f"Plan {i:03}: which source?", [])
        steps.append(step_id)
        live_server.clock.advance(timedelta(seconds=1))  # each waits a second longer than the next
    await give_deadline(client, steps[-1])  # the newest step, with the only deadline: it comes first
    gates = [{"name": f"gate-{i:03}", "approval": True} for i in range(150)]
    await start_workflow(client, await create_workflow(client, {"name": "many-gates", "steps": gates}))
    missions = []
    for i in range(200):
        missions.append(await propose_mission(client, f"Mission {i:03}"))
        live_server.clock.advance(timedelta(seconds=1))

    await page.set_viewport_size(DESKTOP)
    await open_dashboard(browser_page, f"{live_server.url}/#/reviews")
    plans = page.get_by_test_id("plan-reviews")
    plan_items = plans.locator("[data-review-step]")
    for section, attribute, total, what in (
        (plans, "data-review-step", 150, "plan steps"),
        (page.get_by_test_id("workflow-reviews"), "data-gate-step", 150, "workflow approvals"),
        (page.get_by_test_id("mission-reviews"), "data-review-id", 200, "mission proposals"),
    ):
        await expect(section.locator(f"[{attribute}]")).to_have_count(20)
        select_all = section.get_by_role(
            "checkbox", name=f"Select all 20 {what} on this page (of {total} waiting)"
        )
        # "Select all" sits above the group's first item.
        top = await select_all.bounding_box()
        first = await section.locator(f"[{attribute}]").first.bounding_box()
        assert top is not None
        assert first is not None
        assert top["y"] < first["y"], what
    await expect(plans.get_by_test_id("group-count")).to_have_text(counted(1, 20, 150))
    # The only deadline first, then the longest waiting; each row names its plan.
    assert await ids(plan_items, "data-review-step") == [steps[-1], *steps[:19]]
    await expect(plan_items.first.locator(".due")).to_contain_text(re.compile(r"^due in \d+m"))
    await expect(plan_items.first.get_by_role("heading")).to_contain_text("Plan 149")
    await expect(plan_items.nth(1).locator(".due")).to_have_text("no deadline")
    # The decision terms above the groups: the nearest five of all 500, the one deadline first.
    terms = page.get_by_test_id("decision-terms").locator("li[data-decision]")
    await expect(terms).to_have_count(5)
    await expect(terms.first.get_by_role("link", name=re.compile("^plan “Plan 149”"))).to_be_visible()
    mission_ids = await ids(
        page.get_by_test_id("mission-reviews").locator("[data-review-id]"), "data-review-id"
    )
    assert mission_ids == missions[:20]

    height = await page.evaluate("document.documentElement.scrollHeight")
    assert height <= TALLEST, f"the Reviews page is {height} px tall with 500 open reviews"
    await assert_control_names_unique(page)
    await assert_axe_clean(page, "the Reviews page with 500 open reviews")
    await browser_page.screenshot("dashboard-reviews-500-1280")

    # The next page by cursor, and back.
    await plans.get_by_role("button", name="Next page of plan steps").click()
    await expect(plans.get_by_test_id("group-count")).to_have_text(counted(21, 40, 150))
    assert await ids(plan_items, "data-review-step") == steps[19:39]
    await plans.get_by_role("button", name="Previous page of plan steps").click()
    await expect(plan_items.first).to_have_attribute("data-review-step", steps[-1])

    # A row opens to its details and decision; approving it there takes it off the page.
    row = plan_items.first
    await row.get_by_text("Review and decide").click()
    await row.get_by_role("button", name=re.compile("^Approve step 1 of “Plan 149”")).click()
    await expect(plans.get_by_test_id("group-count")).to_have_text(counted(1, 20, 149))
    await expect(plan_items.first).to_have_attribute("data-review-step", steps[0])
    assert_clean(browser_page)
