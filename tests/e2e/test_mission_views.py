"""The mission views as a person uses them, in headless Chromium against a real server.

Missions are driven through the GraphQL API (as an agent would) while the page is open; decisions are
taken on the page; every check is on what the page shows, without reloading it. Time is the server's
fake clock: the asset test advances it and runs the expiry timer's pass itself, it never waits for a TTL.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import pytest
from playwright.async_api import Locator, Page, expect

from server.config import Settings
from server.loops.asset_expiry import expire_assets
from tests.api import mission_operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import (
    assert_clean,
    assert_not_reloaded,
    go,
    look,
    look_and_finish,
    open_dashboard,
    shown_seqs,
)
from tests.e2e.missions import (
    act,
    approve_mission,
    complete_step,
    propose_asset,
    propose_hop,
    propose_implementation,
    propose_mission,
    register_search_tool,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


@pytest.fixture
def mission_server(settings: Settings, clock: Any) -> Iterator[LiveServer]:
    """A server whose own expiry timer stays out of the way: the asset test runs the pass itself."""
    live = start_server(settings.model_copy(update={"asset_expiry_scan_interval_seconds": 3600.0}), clock)
    yield live
    stop_server(live)


@pytest.fixture
async def agent(mission_server: LiveServer) -> AsyncIterator[GraphQLClient]:
    client = GraphQLClient(mission_server.url)
    yield client
    await client.aclose()


async def open_page(browser: BrowserPage, url: str) -> Page:
    await open_dashboard(browser, url)
    return browser.page


async def send_an_empty_reason(
    page: Page, where: Locator, toggle: str, question: str, submit: str
) -> Locator:
    """Keyboard only: open the reason form, send it empty, read the refusal in words; the reason box."""
    await where.get_by_role("button", name=re.compile(toggle)).focus()
    await page.keyboard.press("Enter")
    reason = where.get_by_label(question)
    await expect(reason).to_be_focused()
    await page.keyboard.press("Tab")
    await expect(where.get_by_role("button", name=submit)).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(where.get_by_role("alert")).to_have_text(
        "The input was not accepted: Check reason. reason must not be empty"
    )
    return reason


async def test_a_proposed_mission_appears_in_the_overview_and_moves_on_when_approved_in_the_inbox(
    mission_server: LiveServer, agent: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = await open_page(browser_page, mission_server.url)
    await expect(page.get_by_test_id("missions-empty")).to_contain_text("No missions yet")

    mission_id = await propose_mission(agent, "Cold batteries", "Explain why batteries fade in the cold.")
    card = page.locator(f"li[data-mission-id='{mission_id}']")
    await expect(card).to_have_attribute("data-status", "proposed")
    await expect(card.get_by_test_id("current-hop")).to_have_text("No hop in progress")
    await expect(card.get_by_test_id("mission-counts")).to_have_text("no hops yet")
    await expect(page.get_by_test_id("review-count")).to_have_text("1")
    await look(browser_page, "missions-overview")

    await go(page, "Reviews")
    item = page.locator(f"[data-review-kind=mission][data-review-id='{mission_id}']")
    await expect(item).to_contain_text("Explain why batteries fade in the cold.")
    await expect(page.get_by_text("1 decision waiting for you")).to_be_visible()
    await look(browser_page, "missions-inbox")
    await item.get_by_role("button", name="Approve").click()

    decided = page.locator(f"[data-decided-kind=mission][data-decided-id='{mission_id}']")
    await expect(decided).to_contain_text("Approved — mission “Cold batteries”: now approved")
    await expect(item).to_have_count(0)
    await expect(page.get_by_test_id("review-count")).to_have_count(0)
    await expect(page.get_by_text("Nothing waiting", exact=True)).to_be_visible()

    # The agent goes on; the decided entry and the overview follow without a reload.
    await propose_hop(agent, mission_id, "Gather sources", final=True)
    await expect(decided.locator("[data-status]")).to_have_text("building hop")
    await go(page, "Overview")
    await expect(card).to_have_attribute("data-status", "building_hop")
    current_hop = card.get_by_test_id("current-hop")
    await expect(current_hop).to_have_text("Hop 1 · Gather sources (final): plan proposed")
    await expect(card.get_by_test_id("mission-counts")).to_have_text("0 of 1 hop completed")
    await assert_not_reloaded(browser_page)
    assert_clean(browser_page)


async def test_a_hop_approved_in_the_inbox_and_run_through_the_api_completes_the_mission_on_screen(
    mission_server: LiveServer, agent: GraphQLClient, browser_page: BrowserPage
) -> None:
    await register_search_tool(agent)
    mission_id = await propose_mission(agent, "Cold batteries")
    await approve_mission(agent, mission_id)
    page = await open_page(browser_page, f"{mission_server.url}/#/missions/{mission_id}")
    article = page.locator(f"article[data-mission-id='{mission_id}']")
    await expect(article).to_have_attribute("data-status", "approved")

    hop_id = await propose_hop(agent, mission_id, "Gather sources", final=True)
    hop = page.locator(f"[data-hop-id='{hop_id}']")
    await expect(hop).to_have_attribute("data-status", "plan_proposed")

    await go(page, "Reviews")
    plan = page.locator(f"[data-review-kind=hopPlan][data-review-id='{hop_id}']")
    await expect(plan).to_contain_text("Gather sources: search, then summarise.")
    await plan.get_by_role("button", name="Approve").click()
    plan_decided = page.locator(f"[data-decided-kind=hopPlan][data-decided-id='{hop_id}']")
    await expect(plan_decided).to_contain_text("now ready for implementation, mission now building hop")

    steps = await propose_implementation(agent, hop_id, ["lithium cold", "LFP capacity"])
    implementation = page.locator(f"[data-review-kind=hopImplementation][data-review-id='{hop_id}']")
    await expect(implementation).to_contain_text("Search lithium cold")
    await expect(implementation).to_contain_text('{"query":"LFP capacity"}')
    await look(browser_page, "missions-inbox-implementation")
    await implementation.get_by_role("button", name="Approve").click()
    decided = page.locator(f"[data-decided-kind=hopImplementation][data-decided-id='{hop_id}']")
    await expect(decided).to_contain_text("now ready for execution, mission now hop ready")

    await decided.get_by_role("link", name="Open the mission").click()
    await expect(hop).to_have_attribute("data-status", "ready_for_execution")
    # Keyboard only: a person starts the hop.
    await hop.get_by_role("button", name=re.compile("^Start hop 1")).focus()
    await page.keyboard.press("Enter")
    await expect(hop).to_have_attribute("data-status", "executing")
    await expect(article).to_have_attribute("data-status", "executing_hop")

    first = page.locator(f"[data-tool-step-id='{steps[0]}']")
    await expect(first).to_have_attribute("data-status", "executing")
    await complete_step(agent, steps[0], {"papers": 12})
    await expect(first).to_have_attribute("data-status", "completed")
    await expect(first.get_by_test_id("tool-step-result")).to_contain_text('"papers": 12')
    await expect(article).to_have_attribute("data-status", "executing_hop")
    tool_steps = page.locator("figure[data-entity=tool_step]")
    await expect(tool_steps.locator("figcaption")).to_have_text("Tool steps — now: completed, executing")

    await complete_step(agent, steps[1], {"papers": 3})
    await expect(article).to_have_attribute("data-status", "completed")
    await expect(hop).to_have_attribute("data-status", "completed")
    mission_diagram = page.locator("figure[data-entity=mission]")
    await expect(mission_diagram.locator("[data-current=true]")).to_have_attribute("data-state", "COMPLETED")
    await expect(tool_steps.locator("[data-current=true]")).to_have_attribute("data-state", "COMPLETED")
    await expect(page.locator("table.events")).to_contain_text("mission executing hop → completed")
    history = await agent.execute(ops.mission_events_query(), {"id": mission_id})
    expected = [e["node"]["seq"] for e in history["events"]["edges"]]
    await expect(page.get_by_test_id("event-count")).to_have_text(f"{len(expected)} events")
    assert await shown_seqs(page) == expected
    await look_and_finish(browser_page, "mission-completed")


async def test_an_asset_counts_down_and_expires_on_screen_when_the_expiry_timer_runs(
    mission_server: LiveServer, agent: GraphQLClient, browser_page: BrowserPage
) -> None:
    mission_id = await propose_mission(agent, "Cold batteries")
    await approve_mission(agent, mission_id)
    page = await open_page(browser_page, f"{mission_server.url}/#/missions/{mission_id}")
    asset_id = await propose_asset(agent, mission_id, "Battery report", ttl_seconds=120)

    asset = page.locator(f"[data-asset-id='{asset_id}']")
    ttl = asset.get_by_test_id("asset-ttl")
    await expect(ttl).to_have_text(re.compile(r"^Expires in (2m 00s|1m [0-5]\ds)"))
    await asset.get_by_role("button", name="Accept").click()
    await expect(asset).to_have_attribute("data-status", "pending")
    await expect(ttl).to_have_text(re.compile(r"^Expires in (2m 00s|1m [0-5]\ds)"))
    await look(browser_page, "mission-asset-countdown")

    mission_server.clock.advance(timedelta(seconds=121))
    expired = mission_server.call(expire_assets(mission_server.app.state.runtime))
    assert [e.asset_id for e in expired] == [asset_id]

    await expect(asset).to_have_attribute("data-status", "expired")
    await expect(ttl).to_have_attribute("data-phase", "expired")
    await expect(page.locator("figure[data-entity=asset] [data-current=true]")).to_have_attribute(
        "data-state", "EXPIRED"
    )
    history = page.locator("table.events")
    await expect(history).to_contain_text("asset “Battery report” expired: its TTL ran out")
    await go(page, "Missions")
    card = page.locator(f"li[data-mission-id='{mission_id}']")
    await expect(card.get_by_test_id("mission-counts")).to_have_text("no hops yet · 1 asset (1 expired)")
    await assert_not_reloaded(browser_page)
    assert_clean(browser_page)


async def test_a_rejection_needs_a_reason_and_the_reason_is_shown(
    mission_server: LiveServer, agent: GraphQLClient, browser_page: BrowserPage
) -> None:
    mission_id = await propose_mission(agent, "Cold batteries")
    await approve_mission(agent, mission_id)
    hop_id = await propose_hop(agent, mission_id, "Gather everything", final=False)
    other_id = await propose_mission(agent, "Warm batteries")
    page = await open_page(browser_page, f"{mission_server.url}/#/reviews")

    item = page.locator(f"[data-review-kind=hopPlan][data-review-id='{hop_id}']")
    reason = await send_an_empty_reason(
        page, item, "^Reject the plan of hop 1", "Why reject it?", "Reject with this reason"
    )
    await reason.fill("Too broad: narrow it to LFP cells.")
    await item.get_by_role("button", name="Reject with this reason").click()
    decided = page.locator(f"[data-decided-kind=hopPlan][data-decided-id='{hop_id}']")
    await expect(decided).to_contain_text(
        "Rejected — the plan of hop 1 “Gather everything” of mission “Cold batteries”: now cancelled"
    )
    await expect(decided).to_contain_text("mission now approved")

    proposal = page.locator(f"[data-review-kind=mission][data-review-id='{other_id}']")
    await proposal.get_by_role("button", name=re.compile("^Reject mission")).click()
    await proposal.get_by_label("Why reject it?").fill("Out of scope this quarter.")
    await look(browser_page, "missions-reject")
    await proposal.get_by_role("button", name="Reject with this reason").click()
    await expect(page.locator(f"[data-decided-id='{other_id}']")).to_contain_text("now cancelled")

    await go(page, "Missions")
    rejected = page.locator(f"li[data-mission-id='{other_id}']")
    await expect(rejected).to_have_attribute("data-status", "cancelled")
    await expect(rejected).to_contain_text("Out of scope this quarter.")
    card = page.locator(f"li[data-mission-id='{mission_id}']")
    await card.get_by_role("link", name="Cold batteries").click()
    hop = page.locator(f"[data-hop-id='{hop_id}']")
    await expect(hop).to_have_attribute("data-status", "cancelled")
    await expect(hop.get_by_test_id("hop-reason")).to_have_text("Too broad: narrow it to LFP cells.")
    reason = page.get_by_test_id("mission-reason")
    await expect(reason).to_have_text("Why it is approved: Too broad: narrow it to LFP cells.")
    await expect(page.locator("table.events")).to_contain_text(
        "hop 1 “Gather everything” plan rejected: Too broad: narrow it to LFP cells."
    )
    await look_and_finish(browser_page, "mission-rejected-hop")


async def test_a_running_hop_cancelled_on_the_mission_page_frees_the_mission_for_another_hop(
    mission_server: LiveServer, agent: GraphQLClient, browser_page: BrowserPage
) -> None:
    await register_search_tool(agent)
    mission_id = await propose_mission(agent, "Cold batteries")
    await approve_mission(agent, mission_id)
    hop_id = await propose_hop(agent, mission_id, "Gather sources", final=True)
    await act(agent, ops.hop_act("approveHopPlan"), {"id": hop_id})
    done_id, running_id = await propose_implementation(agent, hop_id, ["lithium cold", "LFP capacity"])
    await act(agent, ops.hop_act("approveHopImplementation"), {"id": hop_id})
    await act(agent, ops.hop_act("startHop"), {"id": hop_id})
    await complete_step(agent, done_id, {"papers": 12})
    page = await open_page(browser_page, f"{mission_server.url}/#/missions/{mission_id}")
    article = page.locator(f"article[data-mission-id='{mission_id}']")
    hop = page.locator(f"[data-hop-id='{hop_id}']")
    await expect(hop).to_have_attribute("data-status", "executing")

    submit = "Cancel the hop with this reason"
    reason = await send_an_empty_reason(page, hop, "^Cancel hop 1", "Why cancel this hop?", submit)
    await expect(hop).to_have_attribute("data-status", "executing")
    await reason.fill("The sources are paywalled; try another route.")
    await look(browser_page, "mission-cancel-hop")
    await hop.get_by_role("button", name=submit).click()

    await expect(hop).to_have_attribute("data-status", "cancelled")
    why = "The sources are paywalled; try another route."
    await expect(hop.get_by_test_id("hop-reason")).to_have_text(why)
    step = "[data-tool-step-id='{}']".format
    await expect(page.locator(step(done_id))).to_have_attribute("data-status", "completed")
    await expect(page.locator(step(running_id))).to_have_attribute("data-status", "cancelled")
    await expect(hop.get_by_role("button", name=re.compile("^Cancel hop 1"))).to_have_count(0)
    await expect(article).to_have_attribute("data-status", "approved")
    await expect(page.locator("table.events")).to_contain_text(f"hop 1 “Gather sources” cancelled: {why}")
    # The agent proposes the next hop, and the page follows.
    next_hop = await propose_hop(agent, mission_id, "Ask the makers", final=True)
    next_item = page.locator(f"[data-hop-id='{next_hop}']")
    await expect(next_item).to_have_attribute("data-status", "plan_proposed")
    await expect(article).to_have_attribute("data-status", "building_hop")
    await look_and_finish(browser_page, "mission-cancelled-hop")
