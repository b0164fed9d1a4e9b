"""The workflow views as a person uses them, in headless Chromium against a real server.

Workflows are driven through the GraphQL API (as workers and the timer loop would) while the page is
open; every check is on what the page shows, without reloading it. The server's own timer loop is held
back: the tests advance the fake clock and run the timers themselves.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.async_api import Route, WebSocketRoute, expect

from server.config import Settings
from server.loops.workflow_timers import run_workflow_timers
from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import (
    create_plan,
    event_seqs,
    look,
    look_and_finish,
    open_dashboard,
    request_review,
    start_next,
)
from tests.e2e.workflows import (
    GATED,
    claim,
    complete,
    create_from_yaml,
    create_workflow,
    fail,
    node,
    start_workflow,
    undo,
)
from tests.services.workflow_helpers import seed_4_3_yaml

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, workflow_timer_interval_seconds=3600)


# Seed 002 §5.1's diamond, with a gate before the last step.
DIAMOND = {
    "name": "release",
    "timeout": "30m",
    "steps": [
        {"name": "build", "timeout": "5m"},
        {"name": "test-unit", "dependsOn": ["build"]},
        {"name": "test-e2e", "dependsOn": ["build"], "onFailure": "SKIP"},
        {"name": "package", "dependsOn": ["test-unit", "test-e2e"]},
    ],
}


async def test_a_workflow_created_through_the_api_appears_and_its_dag_changes_live(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows")
    empty = page.get_by_test_id("workflows-empty-state")
    await expect(empty).to_contain_text("No workflows yet")
    await look(browser_page, "workflows-empty")

    workflow_id = await create_workflow(client, DIAMOND)
    card = page.locator(f"[data-workflow-id='{workflow_id}']")
    await expect(card).to_have_attribute("data-status", "idle")
    await expect(card.get_by_test_id("step-counts")).to_have_text("0 of 4 steps done")
    await start_workflow(client, workflow_id)
    await expect(card).to_have_attribute("data-status", "executing")

    await card.get_by_role("link", name="release").click()
    detail = page.locator(f"article[data-workflow-id='{workflow_id}']")
    await expect(detail).to_have_attribute("data-status", "executing")
    for name in ("build", "test-unit", "test-e2e", "package"):
        await expect(node(page, name)).to_have_attribute("data-status", "pending")
    # Laid out by depth: build, then the two tests one above the other, then package.
    boxes = {n: await node(page, n).bounding_box() for n in ("build", "test-unit", "test-e2e", "package")}
    assert all(boxes.values())
    x = {n: b["x"] for n, b in boxes.items() if b}
    assert x["build"] < x["test-unit"] == x["test-e2e"] < x["package"]
    await expect(page.locator(".dag [data-edge]")).to_have_count(4)

    build = await claim(client, workflow_id)
    await expect(node(page, "build")).to_have_attribute("data-status", "running")
    await expect(node(page, "build").locator("[data-fact=attempt]")).to_have_text("attempt 1 of 4")
    await expect(node(page, "build").locator("[data-fact=timeout]")).to_have_text(
        re.compile(r"^times out in [45]m")
    )
    await complete(client, build["id"])
    await expect(node(page, "build")).to_have_attribute("data-status", "completed")
    await expect(page.locator(".dag [data-edge='build>test-unit']")).to_have_class(
        re.compile(r"dag-edge-done")
    )

    # Parallel branches go to different workers, and both show as running at once.
    unit = await claim(client, workflow_id, "worker-1")
    e2e = await claim(client, workflow_id, "worker-2")
    assert {unit["name"], e2e["name"]} == {"test-unit", "test-e2e"}
    await expect(node(page, "test-unit")).to_have_attribute("data-status", "running")
    await expect(node(page, "test-e2e")).to_have_attribute("data-status", "running")
    await fail(client, e2e["id"], "VALIDATION", "browser crashed", "worker-2")
    await expect(node(page, "test-e2e")).to_have_attribute("data-status", "skipped")
    await expect(node(page, "test-e2e").locator("[data-fact=error]")).to_have_text("last error: validation")
    await complete(client, unit["id"], "worker-1")
    await expect(node(page, "package")).to_have_attribute("data-status", "pending")
    await expect(detail.get_by_test_id("step-counts")).to_have_text("3 of 4 steps done · 1 skipped")

    # Selecting a node (keyboard) shows everything about its step.
    await node(page, "test-e2e").focus()
    await page.keyboard.press("Enter")
    await expect(node(page, "test-e2e")).to_have_attribute("aria-pressed", "true")
    panel = page.locator("[data-panel-step='test-e2e']")
    await expect(panel).to_contain_text("validation: browser crashed")
    await expect(panel).to_contain_text("On failure")

    expected = await event_seqs(client, workflow_id)
    await expect(page.get_by_test_id("event-count")).to_have_text(f"{len(expected)} events")
    await expect(page.locator("table.events")).to_contain_text(
        "“test-e2e” failed (validation, attempt 1): browser crashed"
    )
    await look(browser_page, "workflow-dag")

    last = await claim(client, workflow_id)
    await complete(client, last["id"])
    await expect(detail).to_have_attribute("data-status", "completed")
    await expect(detail.get_by_test_id("outcome-banner")).to_contain_text("Succeeded")
    await page.get_by_role("link", name="← All workflows").click()
    await expect(card).to_have_attribute("data-status", "completed")
    await expect(card).to_contain_text("succeeded")
    await expect(card.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")
    await look_and_finish(browser_page, "workflows-overview")


RETRYING = {
    "name": "fetch-and-summarise",
    "steps": [
        {
            "name": "fetch",
            "timeout": "5m",
            "retryPolicy": {"maxRetries": 2, "backoff": "CONSTANT", "initialDelay": "30s"},
        },
        {"name": "summarise", "dependsOn": ["fetch"], "timeout": "1m", "onFailure": "SKIP"},
    ],
}


async def test_a_failing_step_shows_its_retry_and_a_timeout_shows_on_its_node(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    runtime = live_server.app.state.runtime
    workflow_id = await create_workflow(client, RETRYING)
    await start_workflow(client, workflow_id)
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows/{workflow_id}")
    fetch = node(page, "fetch")
    await expect(fetch).to_have_attribute("data-status", "pending")

    first = await claim(client, workflow_id)
    await expect(fetch.locator("[data-fact=attempt]")).to_have_text("attempt 1 of 3")
    # The page counts down against the browser's own clock: line the server's fake clock up with it
    # here, so the seconds a slow set-up took (PostgreSQL, a loaded machine) do not eat the countdown.
    live_server.clock.set(max(live_server.clock.now(), datetime.now(UTC)))
    await fail(client, first["id"], "TRANSIENT", "429 Too Many Requests")
    # The retry: back to pending, the error category, and when the next attempt may start.
    await expect(fetch).to_have_attribute("data-status", "pending")
    await expect(fetch.locator("[data-fact=error]")).to_have_text("last error: transient")
    await expect(fetch.locator("[data-fact=next]")).to_have_text(re.compile(r"^next attempt in (2\d|30)s$"))
    await expect(page.locator("table.events")).to_contain_text("“fetch” will be retried: attempt 2 in 30s")
    await look(browser_page, "workflow-retry")

    live_server.clock.advance(timedelta(seconds=30))
    done = live_server.call(run_workflow_timers(runtime))
    assert done.retries_due == [first["id"]]
    await expect(fetch.locator("[data-fact=next]")).to_have_count(0)
    await expect(page.locator("table.events")).to_contain_text(
        "“fetch” back-off over: attempt 2 may be claimed"
    )
    second = await claim(client, workflow_id)
    assert second["attempt"] == 2
    await expect(fetch).to_have_attribute("data-status", "running")
    await expect(fetch.locator("[data-fact=attempt]")).to_have_text("attempt 2 of 3")
    await complete(client, second["id"])
    await expect(fetch).to_have_attribute("data-status", "completed")

    # The next step hangs: the timer fails it at its timeout, and onFailure skips it.
    summarise = await claim(client, workflow_id)
    await expect(node(page, "summarise")).to_have_attribute("data-status", "running")
    live_server.clock.advance(timedelta(minutes=1))
    done = live_server.call(run_workflow_timers(runtime))
    assert done.steps_timed_out == [summarise["id"]]
    await expect(node(page, "summarise")).to_have_attribute("data-status", "skipped")
    await expect(node(page, "summarise").locator("[data-fact=error]")).to_have_text("last error: timeout")
    await expect(page.locator("table.events")).to_contain_text("“summarise” timed out after 1m")
    await expect(page.locator("article")).to_have_attribute("data-status", "completed")
    await look_and_finish(browser_page, "workflow-timeout")


async def test_a_compensating_workflow_shows_each_undo_in_order_and_the_outcome(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    workflow_id = await create_from_yaml(client, seed_4_3_yaml())  # seed 002 §4.3, verbatim
    await start_workflow(client, workflow_id)
    steps = {s["name"]: s["id"] for s in [await claim(client, workflow_id, f"w{i}") for i in range(4)]}
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows/{workflow_id}")
    compensation = page.get_by_test_id("compensation")
    await expect(compensation).to_contain_text("Nothing undone")

    await complete(client, steps["create-account"], "w0")
    await complete(client, steps["provision-workspace"], "w1")
    await fail(client, steps["setup-analytics"], "VALIDATION", "bad config", "w2")
    article = page.locator("article")
    await expect(article).to_have_attribute("data-status", "compensating")
    await expect(node(page, "send-welcome")).to_have_attribute("data-status", "failed")
    await expect(node(page, "send-welcome").locator("[data-fact=error]")).to_have_text("cancelled")
    # Last completed first: provision-workspace, then create-account.
    undos = compensation.locator("[data-undo-step]")
    await expect(undos).to_have_count(2)
    assert await undos.evaluate_all("items => items.map(i => i.dataset.undoStep)") == [
        "provision-workspace",
        "create-account",
    ]
    await expect(page.get_by_test_id("compensation-summary")).to_have_text("Compensating: 0 of 2 undone")
    await expect(node(page, "provision-workspace").locator("[data-fact=undo]")).to_have_text(
        "undo #1: pending"
    )

    assert await undo(client, workflow_id, "product-analyst") == "provision-workspace"
    await expect(compensation.locator("[data-undo-step='provision-workspace']")).to_have_attribute(
        "data-status", "completed"
    )
    await expect(page.get_by_test_id("compensation-summary")).to_have_text("Compensating: 1 of 2 undone")
    await expect(node(page, "provision-workspace").locator("[data-fact=undo]")).to_have_text(
        "undo #1: completed"
    )
    await look(browser_page, "workflow-compensating")

    assert await undo(client, workflow_id, "growth-optimizer") == "create-account"
    await expect(article).to_have_attribute("data-status", "completed")
    await expect(page.get_by_test_id("compensation-summary")).to_have_text(
        "Compensation: 2 of 2 undone — outcome: rolled back"
    )
    await expect(page.get_by_test_id("outcome-banner")).to_contain_text("Rolled back")
    # Coloured as rolled back, not as a success: the page, its status badge, and the steps that were undone.
    await expect(article).to_have_attribute("data-outcome", "rolled_back")
    await expect(article.locator(".status-line .badge[data-status=completed]")).to_have_class(
        re.compile(r"badge-rolled_back")
    )
    for undone in ("provision-workspace", "create-account"):
        await expect(node(page, undone)).to_have_attribute("data-undo", "undone")
    await expect(page.locator("table.events")).to_contain_text(
        "compensation planned: undo “provision-workspace”, then “create-account”"
    )
    await expect(page.locator("figure[data-entity=workflow] [data-current=true]")).to_have_attribute(
        "data-state", "completed"
    )
    await page.get_by_role("link", name="Workflows", exact=True).click()
    card = page.locator(f"[data-workflow-id='{workflow_id}']")
    await expect(card.get_by_test_id("compensation-counts")).to_have_text("Compensation: 2 of 2 undone")
    await expect(card).to_contain_text("rolled back")
    await expect(card).to_have_attribute("data-outcome", "rolled_back")
    await look_and_finish(browser_page, "workflow-rolled-back")


async def test_an_approval_gate_waits_in_the_review_inbox_and_approving_it_unblocks_the_workflow(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    workflow_id = await create_workflow(client, GATED)
    await start_workflow(client, workflow_id)
    await open_dashboard(browser_page, f"{live_server.url}/#/reviews")
    await expect(page.get_by_test_id("reviews-summary")).to_have_text("Nothing waiting")

    draft = await claim(client, workflow_id)
    await complete(client, draft["id"])
    gate_id = await open_gate_id(client, workflow_id)
    item = page.locator(f"[data-gate-step='{gate_id}']")
    await expect(item).to_contain_text("publish")
    await expect(item).to_contain_text("“sign-off” (approval gate)")
    await expect(page.get_by_test_id("review-count")).to_have_text("1")
    # A plan's review waits on the same page, in its own section.
    plan_id = await create_plan(client, 1)
    await request_review(client, await start_next(client, plan_id), "Which chemistry?", [])
    await expect(page.get_by_test_id("review-count")).to_have_text("2")
    await expect(page.get_by_test_id("plan-reviews").locator("[data-review-step]")).to_have_count(1)
    await look(browser_page, "reviews-with-gate")

    # Reject without a reason: refused, and the person is told why in words.
    await item.get_by_role("button", name="Reject").click()
    await expect(item.get_by_role("alert")).to_contain_text("The input was not accepted: Check reason.")

    # Keyboard only: focus Approve and press Enter.
    await item.get_by_label("Comment or reason").fill("Looks good")
    await item.get_by_role("button", name="Approve").focus()
    await page.keyboard.press("Enter")
    decided = page.locator(f"[data-decided-gate='{gate_id}']")
    await expect(decided).to_contain_text("step now completed")
    await expect(decided).to_contain_text("workflow now executing")
    await expect(item).to_have_count(0)
    await expect(page.get_by_test_id("review-count")).to_have_text("1")

    await decided.get_by_role("link", name="Open the workflow").click()
    await expect(node(page, "sign-off")).to_have_attribute("data-status", "completed")
    await expect(page.locator("article")).to_have_attribute("data-status", "executing")
    await expect(page.locator("table.events")).to_contain_text("“sign-off” approved by dev: Looks good")
    send = await claim(client, workflow_id)
    assert send["name"] == "send"
    await expect(node(page, "send")).to_have_attribute("data-status", "running")
    await look_and_finish(browser_page, "workflow-approved")


async def open_gate_id(client: GraphQLClient, workflow_id: str) -> str:
    """The id of the workflow's open gate, as the reviewer's queue lists it."""
    queue = await client.execute("{ workflowStepsAwaitingReview { edges { node { id workflow { id } } } } }")
    ids = [
        e["node"]["id"]
        for e in queue["workflowStepsAwaitingReview"]["edges"]
        if e["node"]["workflow"]["id"] == workflow_id
    ]
    assert len(ids) == 1, queue
    return str(ids[0])


async def test_a_person_cancels_a_running_workflow_and_runs_it_again_from_its_page(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """The controls come from the workflow's availableActions: Cancel while it runs, Run again once it
    has ended; the rerun is a new workflow, linked both ways."""
    page = browser_page.page
    workflow_id = await create_workflow(client, DIAMOND)
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows/{workflow_id}")
    article = page.locator("article")
    await expect(article).to_have_attribute("data-status", "idle")
    await expect(page.get_by_role("button", name=re.compile("Cancel workflow"))).to_have_count(0)
    await start_workflow(client, workflow_id)
    await expect(article).to_have_attribute("data-status", "executing")
    await expect(page.get_by_role("button", name="Run again as a new workflow")).to_have_count(0)

    await page.get_by_role("button", name="Cancel workflow “release”…").click()
    # No reason: refused in words, nothing changes.
    await page.get_by_role("button", name=re.compile("Cancel the workflow with this reason")).click()
    await expect(page.locator(".workflow-controls [role=alert]")).to_contain_text("reason")
    await expect(article).to_have_attribute("data-status", "executing")
    await page.get_by_label(re.compile("Why cancel this workflow")).fill("wrong release branch")
    await page.get_by_role("button", name=re.compile("Cancel the workflow with this reason")).click()
    await expect(article).to_have_attribute("data-status", "failed")
    await expect(page.get_by_test_id("outcome-banner")).to_contain_text("wrong release branch")
    # A failed workflow's bar is never green, whatever share of its steps ended.
    bar = page.get_by_role("progressbar", name="Workflow progress")
    await expect(bar).to_have_attribute("data-tone", "bad")
    await expect(page.get_by_role("button", name=re.compile("Cancel workflow"))).to_have_count(0)

    await page.get_by_role("button", name="Run again as a new workflow").click()
    await expect(page).not_to_have_url(re.compile(f"{workflow_id}$"))
    await expect(article).to_have_attribute("data-status", "executing")
    new_id = await article.get_attribute("data-workflow-id")
    assert new_id
    assert new_id != workflow_id
    await expect(page.get_by_test_id("rerun-links")).to_contain_text("Runs again an earlier workflow")
    await page.get_by_test_id("rerun-links").get_by_role("link", name="an earlier workflow").click()
    await expect(article).to_have_attribute("data-workflow-id", workflow_id)
    await expect(page.get_by_test_id("rerun-links")).to_contain_text("a new workflow (executing)")
    await look_and_finish(browser_page, "workflow-cancelled-and-rerun")


async def test_a_workflow_page_whose_feed_and_history_fail_says_so_instead_of_loading_for_ever(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """The page's snapshot subscription never answers and its history read fails (a proxy that drops
    one stream, a server answering 503): the page says it could not load the workflow, with the reason,
    instead of "Loading the workflow…" with nothing to come."""
    page = browser_page.page
    workflow_id = await create_workflow(client, DIAMOND)

    async def without_the_workflow_feed(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            if '"subscribe"' in text and "WorkflowUpdated" in text:
                return  # never reaches the server, so no snapshot ever comes back
            server.send(message)

        ws.on_message(from_page)

    async def history_unavailable(route: Route) -> None:
        if "query History" in (route.request.post_data or ""):
            await route.fulfill(status=503, content_type="text/plain", body="history unavailable")
        else:
            await route.continue_()

    await page.route_web_socket(re.compile(r"/graphql$"), without_the_workflow_feed)
    await page.route(re.compile(r"/graphql$"), history_unavailable)
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows/{workflow_id}")
    await expect(page.get_by_role("heading", name="The workflow could not be loaded")).to_be_visible()
    await expect(page.get_by_role("alert").first).not_to_be_empty()
    await expect(page.get_by_text("Loading the workflow…")).to_have_count(0)
    await expect(page.get_by_role("button", name="Reload the page")).to_be_visible()
