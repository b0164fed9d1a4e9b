"""The overview page (`#/`) and the Reviews page with every domain at once, in headless Chromium.

Research plans, missions and workflows are driven through the GraphQL API while the page is open; each
has its own section of the overview, and each section follows its domain live, without a reload.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.async_api import expect

from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import (
    assert_clean,
    create_plan,
    go,
    look,
    look_and_finish,
    open_dashboard,
    request_review,
    start_next,
)
from tests.e2e.missions import propose_mission
from tests.e2e.workflows import GATED, claim, complete, create_workflow, start_workflow

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


async def test_the_overview_shows_plans_missions_and_workflows_each_in_its_section_and_live(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    await open_dashboard(browser_page, live_server.url)
    nav = page.get_by_role("navigation", name="Dashboard")
    await expect(nav.get_by_role("link")).to_have_text(
        [
            "Overview",
            "Plans",
            "Missions",
            "Workflows",
            "Reviews",
            "Activity",
            "Webhooks",
            "State machines",
            "GraphiQL",
        ]
    )
    plans = page.get_by_test_id("plans-overview")
    missions = page.get_by_test_id("missions-overview")
    workflows = page.get_by_test_id("workflows-overview")
    await expect(plans).to_contain_text("No research plans yet")
    await expect(missions).to_contain_text("No missions yet")
    await expect(workflows).to_contain_text("No workflows yet")

    plan_id = await create_plan(client, 2)
    mission_id = await propose_mission(client, "Cold batteries", "Explain why batteries fade in the cold.")
    workflow_id = await create_workflow(client, GATED)
    plan = plans.locator(f"[data-plan-id='{plan_id}']")
    mission = missions.locator(f"[data-mission-id='{mission_id}']")
    workflow = workflows.locator(f"[data-workflow-id='{workflow_id}']")
    await expect(plan).to_have_attribute("data-status", "planning")
    await expect(mission).to_have_attribute("data-status", "proposed")
    await expect(workflow).to_have_attribute("data-status", "idle")
    await expect(page.get_by_test_id("missions-summary")).to_have_text("1 mission")

    # Each domain moves on; its section follows. A plan review, the mission proposal and the workflow's
    # approval gate all wait on the one Reviews page, and the nav badge adds them up.
    step_id = await start_next(client, plan_id)
    await request_review(client, step_id, "12 sources found", ["Which chemistry?"])
    await start_workflow(client, workflow_id)
    draft = await claim(client, workflow_id)
    await complete(client, str(draft["id"]))
    await expect(plan).to_have_attribute("data-status", "awaiting_review")
    await expect(workflow).to_have_attribute("data-status", "blocked")
    await expect(workflow.get_by_test_id("step-counts")).to_contain_text("1 of 3 steps done")
    await expect(page.get_by_test_id("review-count")).to_have_text("3")
    await look(browser_page, "overview-all-domains")

    await go(page, "Reviews")
    await expect(page.get_by_test_id("reviews-summary")).to_have_text("3 decisions waiting for you")
    await expect(
        page.get_by_test_id("plan-reviews").locator(f"[data-review-step='{step_id}']")
    ).to_be_visible()
    proposal = page.get_by_test_id("mission-reviews").locator(f"[data-review-id='{mission_id}']")
    await expect(proposal).to_contain_text("Explain why batteries fade in the cold.")
    await expect(page.get_by_test_id("workflow-reviews").locator("[data-gate-step]")).to_contain_text(
        "sign-off"
    )
    await look(browser_page, "reviews-all-domains")
    await proposal.get_by_role("button", name="Approve").click()
    await expect(page.get_by_test_id("review-count")).to_have_text("2")

    await go(page, "Overview")
    await expect(mission).to_have_attribute("data-status", "approved")
    await expect(page.get_by_test_id("missions-summary")).to_have_text("1 mission")
    await look_and_finish(browser_page, "overview-after-review")


async def test_the_overview_summarises_counts_and_what_needs_a_person_and_stays_short(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """Counts by state for every domain (not the cards: those are the newest few), what needs a person
    now, kept live; with more plans than cards the page stays short, and axe finds nothing serious."""
    from tests.api import operations as ops
    from tests.e2e.checks import assert_axe_clean

    page = browser_page.page
    plans = [await create_plan(client, 2) for _ in range(12)]
    await client.execute(ops.FAIL_PLAN, {"planId": plans[0], "reason": "no data"})
    for i in range(7):
        await create_workflow(client, {**GATED, "name": f"flow-{i}"})
    await open_dashboard(browser_page, live_server.url)

    glance = page.get_by_test_id("glance-plans")
    await expect(glance).to_contain_text("12")
    await expect(glance.locator("[data-status=failed]")).to_contain_text("1")
    await expect(glance.locator("[data-status=planning]")).to_contain_text("11")
    await expect(page.get_by_test_id("glance-workflows").locator("[data-status=idle]")).to_contain_text("7")
    await expect(page.get_by_test_id("failed-last-hour")).to_have_text("1 failed in the last hour")
    await expect(page.locator("[data-plan-id]")).to_have_count(5)
    await expect(page.locator("[data-workflow-id]")).to_have_count(5)

    # Live: a plan fails and a review opens while the page is open.
    await client.execute(ops.FAIL_PLAN, {"planId": plans[1], "reason": "gone"})
    await request_review(client, await start_next(client, plans[2]), "Which one?", [])
    await expect(glance.locator("[data-status=failed]")).to_contain_text("2")
    await expect(page.get_by_test_id("failed-last-hour")).to_have_text("2 failed in the last hour")
    await expect(page.get_by_test_id("needs-person")).to_contain_text("1 waiting for review")

    height = await page.evaluate("document.documentElement.scrollHeight")
    assert height <= 3000, f"the overview is {height}px tall at 1280px"
    for theme in ("light", "dark"):
        await page.emulate_media(color_scheme=theme)
        await assert_axe_clean(page, f"overview ({theme})")
    await look_and_finish(browser_page, "overview-glance")


def _operations(browser_page: BrowserPage) -> list[tuple[str, int | None]]:
    """Every GraphQL operation the page sent over HTTP from now on: (name, its `first`), as recorded."""
    sent: list[tuple[str, int | None]] = []

    def on_request(request: Any) -> None:
        if not request.url.endswith("/graphql") or request.method != "POST":
            return
        body = json.loads(request.post_data or "{}")
        name = re.search(r"(?:query|mutation)\s+(\w+)", body.get("query", ""))
        sent.append((name.group(1) if name else "?", (body.get("variables") or {}).get("first")))

    browser_page.page.on("request", on_request)
    return sent


async def test_no_page_loads_a_list_it_does_not_show(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """The navigation's review badge is a count; the plans table reads its page and counts, not the
    overview's lists; the overview reads the newest few of each domain, as many as it shows."""
    page = browser_page.page
    plan_id = await create_plan(client, 2)
    await request_review(client, await start_next(client, plan_id), "Which one?", [])
    for i in range(7):
        await create_workflow(client, {**GATED, "name": f"flow-{i}"})
    sent = _operations(browser_page)
    await page.goto(f"{live_server.url}/#/plans")
    await expect(page.locator("[data-connection=live]")).to_be_visible()
    await expect(page.get_by_test_id("review-count")).to_have_text("1")
    await expect(page.get_by_test_id("plans-count")).to_be_visible()
    on_table = {name for name, _ in sent}
    assert on_table.isdisjoint({"Plans", "Missions", "Workflows", "ReviewInbox", "WorkflowGates"}), sent
    assert {"PlanReviewCount", "WorkflowGateCount", "MissionReviewCount"} <= on_table, sent

    sent.clear()
    await go(page, "Overview")
    await expect(page.locator("[data-workflow-id]")).to_have_count(5)
    await expect(page.get_by_test_id("glance-workflows").locator("[data-status=idle]")).to_contain_text("7")
    lists = {name: first for name, first in sent if name in {"Plans", "Missions", "Workflows"}}
    assert lists == {"Plans": 5, "Missions": 5, "Workflows": 5}, sent
    assert not {name for name, _ in sent} & {"ReviewInbox", "WorkflowGates"}, sent
    await expect(page.get_by_test_id("workflows-summary")).to_have_text("7 workflows")
    assert_clean(browser_page)
