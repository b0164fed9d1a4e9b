"""The dashboard as a person uses it, in headless Chromium against a real server.

Plans are driven through the GraphQL API (as an agent would) while the page is open; every check is
on what the page shows, without reloading it.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import pytest
from playwright.async_api import WebSocketRoute, expect

from server.auth import Role, create_key
from server.config import Settings
from server.db.engine import Database
from server.loops.stalls import scan_stalls
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import (
    assert_clean,
    assert_not_reloaded,
    create_plan,
    event_seqs,
    look,
    open_dashboard,
    request_review,
    shown_seqs,
    start_next,
    submit,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


async def test_a_plan_created_through_the_api_appears_and_progresses_without_reload(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    await open_dashboard(browser_page, live_server.url)
    empty = page.get_by_test_id("empty-state")
    await expect(empty).to_contain_text("No research plans yet")
    await expect(empty).to_contain_text("docs/tutorial/plans.md")
    await expect(empty.get_by_role("link", name="GraphiQL")).to_have_attribute("href", "/graphql")
    await look(browser_page, "empty")

    plan_id = await create_plan(client, 3)
    card = page.locator(f"[data-plan-id='{plan_id}']")
    await expect(card).to_be_visible()
    await expect(card.locator("[data-status]").first).to_have_text("planning")
    await expect(card.get_by_test_id("step-counts")).to_have_text("0 of 3 steps done")

    step_id = await start_next(client, plan_id)
    await expect(card.get_by_test_id("step-counts")).to_have_text("0 of 3 steps done · 1 running")
    await submit(client, step_id, "12 sources found", 0.7)
    await expect(card.get_by_test_id("step-counts")).to_have_text("1 of 3 steps done")
    await expect(card.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "33")
    await expect(card).to_have_attribute("data-status", "executing")
    await create_plan(client, 2)
    await expect(page.locator("[data-plan-id]")).to_have_count(2)
    await assert_not_reloaded(browser_page)
    await look(browser_page, "overview")

    await page.get_by_role("link", name="State machines").click()
    for entity in ("plan", "step", "skill_execution"):
        await expect(page.locator(f"figure[data-entity={entity}]")).to_be_visible()
    await look(browser_page, "machines")
    assert_clean(browser_page)


async def test_approving_a_review_in_the_inbox_completes_the_plan_on_screen(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    plan_id = await create_plan(client, 2)
    first = await start_next(client, plan_id)
    await submit(client, first, "found 12 sources", 0.8)
    await open_dashboard(browser_page, f"{live_server.url}/#/reviews")
    await expect(page.get_by_text("Nothing waiting")).to_be_visible()

    second = await start_next(client, plan_id)
    await request_review(client, second, "Which chemistry matters?", ["LFP or NMC?"])
    item = page.locator(f"[data-review-step='{second}']")
    await expect(item).to_contain_text("Which chemistry matters?")
    await expect(item).to_contain_text("LFP or NMC?")
    await expect(page.get_by_test_id("review-count")).to_have_text("1")
    await look(browser_page, "inbox")

    # Modify without feedback: the server refuses, and the person is told why in words.
    await item.get_by_role("button", name="Modify").click()
    await expect(item.get_by_role("alert")).to_contain_text("The input was not accepted: Check feedback.")

    # Keyboard only: focus the Approve button and press Enter.
    await item.get_by_role("button", name="Approve").focus()
    await page.keyboard.press("Enter")
    decided = page.locator(f"[data-decided-step='{second}']")
    await expect(decided).to_contain_text("step now completed")
    await expect(decided).to_contain_text("plan now completed")
    await expect(item).to_have_count(0)
    await expect(page.get_by_test_id("review-count")).to_have_count(0)

    await decided.get_by_role("link", name="Open the plan").click()
    detail = page.locator(f"article[data-plan-id='{plan_id}']")
    await expect(detail).to_have_attribute("data-status", "completed")
    plan_diagram = page.locator("figure[data-entity=plan]")
    await expect(plan_diagram.locator("[data-current=true]")).to_have_attribute("data-state", "completed")
    step_diagram = page.locator("figure[data-entity=step]")
    await expect(step_diagram.locator("[data-current=true]")).to_have_attribute("data-state", "completed")
    timeline = page.locator(f"[data-step-id='{first}']")
    await expect(timeline).to_contain_text("found 12 sources")
    await expect(timeline).to_contain_text("80%")
    await expect(page.locator("table.events")).to_contain_text("decision: approve")
    await assert_not_reloaded(browser_page)
    await look(browser_page, "plan-detail")
    assert_clean(browser_page)


async def test_a_modify_decision_shows_the_feedback_in_the_steps_instructions(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    plan_id = await create_plan(client, 1)
    step_id = await start_next(client, plan_id)
    await request_review(client, step_id, "Which chemistry?", [])
    await open_dashboard(browser_page, f"{live_server.url}/#/plans/{plan_id}")

    step = page.locator(f"[data-step-id='{step_id}']")
    await expect(step).to_have_attribute("data-status", "awaiting_input")
    await step.get_by_label("Feedback for the agent").fill("Focus on LFP.")
    await step.get_by_role("button", name="Modify").click()

    await expect(step).to_have_attribute("data-status", "in_progress")
    await expect(step.locator(".feedback")).to_have_text("User feedback: Focus on LFP.")
    await expect(page.locator("article")).to_have_attribute("data-status", "executing")
    assert_clean(browser_page)


async def test_a_stall_raises_an_alert_and_highlights_the_plan(
    stall_server: LiveServer, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    client = GraphQLClient(stall_server.url)
    try:
        await open_dashboard(browser_page, stall_server.url)
        plan_id = await create_plan(client, 2)
        await start_next(client, plan_id)
        card = page.locator(f"[data-plan-id='{plan_id}']")
        await expect(card).to_have_attribute("data-status", "executing")
        await expect(page.locator(".alert")).to_have_count(0)

        stall_server.clock.advance(timedelta(seconds=61))
        found = stall_server.call(scan_stalls(stall_server.app.state.runtime))
        assert [f.plan_id for f in found] == [plan_id]

        alert = page.locator(f"[data-alert-plan='{plan_id}']")
        await expect(alert).to_contain_text("1 step running longer than 1m 0s (longest 1m 1s)")
        await expect(card).to_have_attribute("data-status", "stalled")
        await expect(card).to_have_class(re.compile(r"\bplan-stalled\b"))
        await expect(card).to_contain_text("A step has run longer than its stall threshold")
        await assert_not_reloaded(browser_page)
        await look(browser_page, "stall-alert")
    finally:
        await client.aclose()
    assert_clean(browser_page)


async def test_a_dropped_socket_resumes_from_the_last_seq_without_loss_or_repeats(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    sockets: list[tuple[WebSocketRoute, WebSocketRoute]] = []
    online = asyncio.Event()
    online.set()

    async def through(ws: WebSocketRoute) -> None:
        if not online.is_set():  # the network is still down: the attempt fails, the page retries later
            await ws.close(code=1012, reason="still offline")
            return
        sockets.append((ws, ws.connect_to_server()))

    await page.route_web_socket(re.compile(r"/graphql$"), through)
    plan_id = await create_plan(client, 4)
    first = await start_next(client, plan_id)
    await open_dashboard(browser_page, f"{live_server.url}/#/plans/{plan_id}")
    before = await event_seqs(client, plan_id)
    await expect(page.get_by_test_id("event-count")).to_have_text(f"{len(before)} events")
    await submit(client, first, "live before the drop", 0.5)
    await expect(page.locator(f"[data-step-id='{first}']")).to_have_attribute("data-status", "completed")

    # Drop the connection (as a flaky network would) and produce events while it is down.
    online.clear()
    to_page, to_server = sockets[0]
    await to_page.close(code=1012, reason="network dropped")
    await to_server.close(code=1012, reason="network dropped")
    await expect(page.locator("[data-connection=reconnecting]")).to_be_visible()
    second = await start_next(client, plan_id)
    await submit(client, second, "made while offline", 0.9)
    third = await start_next(client, plan_id)
    assert len(sockets) == 1
    online.set()

    await expect(page.locator("[data-connection=live]")).to_be_visible(timeout=15_000)
    assert len(sockets) == 2
    await submit(client, third, "live after the reconnect", 0.4)
    expected = await event_seqs(client, plan_id)
    await expect(page.get_by_test_id("event-count")).to_have_text(f"{len(expected)} events")
    await expect(page.locator(f"[data-step-id='{third}']")).to_have_attribute("data-status", "completed")
    await expect(page.locator(f"[data-step-id='{second}']")).to_contain_text("made while offline")
    assert await shown_seqs(page) == expected
    await assert_not_reloaded(browser_page)
    assert_clean(browser_page)


@pytest.fixture
async def keyed_server(settings: Settings, clock: Any) -> Any:
    """A server with API keys (no dev mode): a reviewer's key for the person, an agent's for the API."""
    db = Database(settings.database_url)
    keys = {
        "reviewer": (await create_key(db, "acme", Role.REVIEWER, "person", clock.now()))[1],
        "agent": (await create_key(db, "acme", Role.AGENT, "agent", clock.now()))[1],
    }
    await db.dispose()
    live = start_server(settings.model_copy(update={"auth_cache_seconds": 0.0}), clock)
    yield live, keys
    stop_server(live)


async def test_with_api_keys_the_key_is_asked_once_and_kept_for_the_browser_session(
    keyed_server: Any, browser_page: BrowserPage
) -> None:
    live, keys = keyed_server
    page = browser_page.page
    await page.goto(live.url)
    form = page.get_by_role("heading", name="Flightdeck needs an API key")
    await expect(form).to_be_visible()
    await look(browser_page, "api-key")

    # The refused key's HTTP requests are held until the next key is entered: a refusal that arrives
    # late answers a key no longer held and must not bring the form back.
    release = asyncio.Event()
    held: list[str] = []

    async def hold_refused_key(route: Any) -> None:
        if route.request.headers.get("authorization") == "Bearer fdk_not-a-real-key":
            held.append(route.request.url)
            await release.wait()
        await route.continue_()

    await page.route("**/graphql", hold_refused_key)
    await page.get_by_label("API key").fill("fdk_not-a-real-key")
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("alert")).to_contain_text("The server refused that key")
    assert held, "the dashboard sent no HTTP request with the refused key"

    await page.get_by_label("API key").fill(keys["reviewer"])
    await page.get_by_role("button", name="Connect").click()
    await expect(page.locator("[data-connection=live]")).to_be_visible()
    release.set()
    await expect(page.get_by_test_id("empty-state")).to_be_visible()
    await expect(form).to_have_count(0)
    await expect(page.get_by_test_id("empty-state")).to_be_visible()

    agent = GraphQLClient(live.url, keys["agent"])
    try:
        plan_id = await create_plan(agent, 1)
        step_id = await start_next(agent, plan_id)
        await request_review(agent, step_id, "Go ahead?", [])
    finally:
        await agent.aclose()
    await expect(page.locator(f"[data-plan-id='{plan_id}']")).to_be_visible()

    await page.reload()  # same tab, same session: no second prompt
    await expect(page.locator("[data-connection=live]")).to_be_visible()
    await expect(form).to_have_count(0)
    await page.get_by_role("link", name=re.compile("^Reviews")).click()
    await page.locator(f"[data-review-step='{step_id}']").get_by_role("button", name="Approve").click()
    await expect(page.locator(f"[data-decided-step='{step_id}']")).to_contain_text("plan now completed")

    browser_page.assert_only_loopback()
    uncaught = [e for e in browser_page.console_errors if "uncaught" in e]
    assert not uncaught, uncaught
