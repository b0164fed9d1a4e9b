"""The DAG, reviews and looks in headless Chromium on a real server: the ELK-laid-out DAG
with pan, zoom, fit and its cut-off cue; the Reviews page sorted by waiting time, with bulk decisions
behind a confirmation and a unique name on every control; dark mode and the time zone; axe-core on
every dashboard page, in both themes. Screenshots at 1280 and 390 px go to test-artifacts/."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.async_api import Page, expect

from server.clock import FakeClock
from tests.api import workflow_operations as workflow_ops
from tests.conftest import GraphQLClient, LiveServer
from tests.e2e.checks import assert_axe_clean, assert_control_names_unique, serious_axe_violations
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import (
    DESKTOP,
    PHONE,
    assert_clean,
    create_plan,
    look,
    open_dashboard,
    request_review,
    start_next,
)
from tests.e2e.missions import approve_mission, propose_asset, propose_mission
from tests.e2e.workflows import (
    GATED,
    claim,
    complete,
    create_from_yaml,
    create_workflow,
    fail,
    node,
    start_workflow,
)
from tests.services.workflow_helpers import seed_4_3_yaml

NO_RETRY = {"retryPolicy": {"maxRetries": 0, "backoff": "CONSTANT", "initialDelay": "1s"}}

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


@pytest.fixture
def clock() -> FakeClock:
    """The server's clock starts ten minutes before the browser's, so the tests can age things."""
    return FakeClock(datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10))


async def plan_review(client: GraphQLClient, title: str) -> str:
    """A one-step plan whose step waits for a person; returns the step's id."""
    step_id = await start_next(client, await create_plan(client, 1, title=title))
    await request_review(client, step_id, f"{title}: which source?", [])
    return step_id


async def test_reviews_wait_longest_first_bulk_decisions_ask_first_and_every_control_has_its_own_name(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    clock = live_server.clock
    # Created in one order, waiting in another: "Older" asked for review first.
    newer_plan = await create_plan(client, 1, title="Newer")
    older = await plan_review(client, "Older")
    clock.advance(timedelta(minutes=5))
    newer = await request_newer(client, newer_plan)
    # Two missions, each with an asset of the same name (the buttons must still differ).
    missions = [await propose_mission(client, title) for title in ("Cold cells", "Hot cells")]
    for mission_id in missions:
        await approve_mission(client, mission_id)
        await propose_asset(client, mission_id, "summary", 3600)
    workflow_id = await create_workflow(client, GATED)
    await start_workflow(client, workflow_id)
    await complete(client, (await claim(client, workflow_id))["id"])

    await open_dashboard(browser_page, f"{live_server.url}/#/reviews")
    plans = page.get_by_test_id("plan-reviews")
    items = plans.locator("[data-review-step]")
    await expect(items).to_have_count(2)
    assert await items.evaluate_all("els => els.map(e => e.dataset.reviewStep)") == [older, newer]
    await expect(items.first.locator(".waited")).to_have_text(re.compile(r"^waiting 10m \d+s$"))
    await expect(items.last.locator(".waited")).to_have_text(re.compile(r"^waiting 5m \d+s$"))
    assets = page.get_by_test_id("mission-reviews").locator("[data-review-kind=asset]")
    await expect(assets).to_have_count(2)
    await expect(page.get_by_test_id("workflow-reviews").locator("[data-gate-step]")).to_have_count(1)
    await assert_control_names_unique(page)
    await assert_axe_clean(page, "the Reviews page")
    await look(browser_page, "reviews-bulk")

    # Bulk approve the two plan steps: nothing happens until the dialog is confirmed.
    await plans.get_by_role("checkbox", name="Select all 2 waiting plan steps").check()
    await plans.get_by_role("button", name="Approve 2 selected plan steps…").click()
    dialog = page.get_by_role("dialog", name="Approve 2 plan steps?")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("li")).to_have_text(["step 1 of “Older”", "step 1 of “Newer”"])
    await assert_axe_clean(page, "the bulk confirmation")
    await browser_page.screenshot("dashboard-reviews-bulk-confirm-1280")
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(dialog).to_be_hidden()
    await expect(items).to_have_count(2)
    await plans.get_by_role("button", name="Approve 2 selected plan steps…").click()
    await dialog.get_by_role("button", name="Approve all 2").click()
    await expect(plans.get_by_test_id("bulk-result")).to_have_text("Approved 2 of 2.")
    await expect(items).to_have_count(0)

    # Bulk reject both assets: a reason is required, and each one is rejected with it.
    mission_section = page.get_by_test_id("mission-reviews")
    for title in ("Cold cells", "Hot cells"):
        name = f"Select asset “summary” of mission “{title}”"
        await mission_section.get_by_role("checkbox", name=name).check()
    await mission_section.get_by_role("button", name="Reject 2 selected mission proposals…").click()
    dialog = page.get_by_role("dialog", name="Reject 2 mission proposals?")
    await dialog.get_by_role("button", name="Reject all 2").click()
    await expect(dialog).to_be_visible()  # the empty reason stopped it
    await dialog.get_by_label("Reason (required, the same for each)").fill("Out of date.")
    await dialog.get_by_role("button", name="Reject all 2").click()
    await expect(mission_section.get_by_test_id("bulk-result")).to_have_text("Rejected 2 of 2.")
    await expect(assets).to_have_count(0)
    await expect(page.get_by_test_id("review-count")).to_have_text("1")
    await assert_control_names_unique(page)
    assert_clean(browser_page)


async def request_newer(client: GraphQLClient, plan_id: str) -> str:
    step_id = await start_next(client, plan_id)
    await request_review(client, step_id, "Newer: which source?", [])
    return step_id


# A long chain with a step that skips ahead: wider than the frame at 1280 px.
WIDE = {
    "name": "long-release",
    "steps": [
        {"name": "s0"},
        *({"name": f"s{i}", "dependsOn": [f"s{i - 1}"]} for i in range(1, 8)),
        {"name": "shortcut", "dependsOn": ["s0"]},
        {"name": "end", "dependsOn": ["s7", "shortcut", "s2"]},
    ],
}

# Points along every edge that fall inside a step other than its own two: none may.
_EDGES_THROUGH_NODES = """() => {
  const boxes = [...document.querySelectorAll('.dag-slot')].map((slot) => {
    const s = slot.style;
    return { name: slot.querySelector('[data-step-name]').dataset.stepName,
             x: parseFloat(s.left), y: parseFloat(s.top), w: parseFloat(s.width), h: parseFloat(s.height) };
  });
  const hits = [];
  for (const path of document.querySelectorAll('.dag [data-edge]')) {
    const [from, to] = path.dataset.edge.split('>');
    const length = path.getTotalLength();
    for (let at = 0; at <= length; at += 4) {
      const p = path.getPointAtLength(at);
      for (const b of boxes) {
        if (b.name === from || b.name === to) continue;
        const inside = p.x > b.x + 1 && p.x < b.x + b.w - 1 && p.y > b.y + 1 && p.y < b.y + b.h - 1;
        if (inside) hits.push(`${path.dataset.edge} through ${b.name}`);
      }
    }
  }
  return [...new Set(hits)];
}"""


async def test_a_wide_dag_shows_what_is_cut_off_pans_zooms_and_fits_with_no_edge_through_a_step(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    workflow_id = await create_workflow(client, WIDE)
    await start_workflow(client, workflow_id)
    await page.set_viewport_size(DESKTOP)
    await open_dashboard(browser_page, f"{live_server.url}/#/workflows/{workflow_id}")
    await expect(node(page, "end")).to_have_attribute("data-status", "pending")
    await expect(page.locator(".dag [data-edge]")).to_have_count(11)
    assert await page.evaluate(_EDGES_THROUGH_NODES) == []

    cue = page.get_by_test_id("dag-cut")
    await expect(cue).to_contain_text(re.compile(r"\d+ of 10 steps out of view \(right\)"))
    await expect(page.locator(".dag-frame.dag-cut-right")).to_have_count(1)
    # Panning by dragging the background brings the right end into view; the cue follows.
    frame = page.locator(".dag-scroll")
    box = await frame.bounding_box()
    assert box
    await page.mouse.move(box["x"] + box["width"] - 20, box["y"] + 8)
    await page.mouse.down()
    await page.mouse.move(box["x"] + 20, box["y"] + 8, steps=5)
    await page.mouse.up()
    await expect(cue).to_contain_text("left")
    assert await frame.evaluate("el => el.scrollLeft") > 0

    await page.get_by_role("button", name="Zoom out of the graph").click()
    await expect(page.get_by_test_id("dag-zoom")).to_have_text("80%")
    await page.get_by_role("button", name="Fit the graph").click()
    await expect(cue).to_have_count(0)
    zoom = int((await page.get_by_test_id("dag-zoom").inner_text()).rstrip("%"))
    assert 20 <= zoom < 80
    whole = await page.locator(".dag-zoomed").bounding_box()
    assert whole
    assert whole["width"] <= box["width"] + 1
    await assert_control_names_unique(page)
    await assert_axe_clean(page, "a wide workflow")
    await browser_page.screenshot("dashboard-workflow-wide-fit-1280")
    await page.get_by_role("button", name="Actual size").click()
    await expect(cue).to_be_visible()
    await look(browser_page, "workflow-wide")
    assert_clean(browser_page)


async def visit(page: Page, path: str, heading: str) -> None:
    """Go to a dashboard page the way its links do (the hash changes, the document stays)."""
    await page.evaluate("(hash) => { window.location.hash = hash; }", path.removeprefix("/"))
    await expect(page.get_by_role("heading", level=1, name=heading)).to_be_visible()
    await expect(page.locator("[data-connection=live]")).to_be_visible()


async def test_dark_mode_follows_the_system_and_the_toggle_times_show_their_zone_axe_passes_everywhere(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    plan_id = await create_plan(client, 2, title="Cold batteries")
    await request_review(client, await start_next(client, plan_id), "Which chemistry?", ["LFP or NMC?"])
    mission_id = await propose_mission(client, "Cold cells")
    workflow_id = await create_workflow(client, GATED)
    await start_workflow(client, workflow_id)
    await complete(client, (await claim(client, workflow_id))["id"])
    pages = [
        ("/#/", "Overview"),
        (f"/#/plans/{plan_id}", "Cold batteries"),
        ("/#/missions", "Missions"),
        (f"/#/missions/{mission_id}", "Cold cells"),
        ("/#/workflows", "Workflows"),
        (f"/#/workflows/{workflow_id}", "publish"),
        ("/#/reviews", "Reviews"),
        ("/#/webhooks", "Webhooks"),
        ("/#/machines", "State machines"),
    ]

    await page.emulate_media(color_scheme="dark")
    await open_dashboard(browser_page, f"{live_server.url}/#/plans/{plan_id}")
    html = page.locator("html")
    await expect(html).to_have_attribute("data-theme", "dark")
    toggle = page.get_by_role("button", name="Dark mode")
    await expect(toggle).to_have_attribute("aria-pressed", "true")
    background = await page.evaluate("getComputedStyle(document.body.parentElement).backgroundColor")
    assert background == "rgb(15, 20, 25)", background
    # Every time carries its zone (the browser's: Chromium here runs in UTC unless TZ says otherwise).
    zoned = re.compile(r"\d:\d\d:\d\d\s?([AP]M)? (UTC|GMT[+-]\d+|[A-Z]{3,5})\b")
    await expect(page.locator("main").get_by_text(zoned).first).to_be_visible()
    for path, heading in pages:
        await visit(page, path, heading)
        await assert_axe_clean(page, f"{path} (dark)")
        if path == "/#/reviews":
            await assert_control_names_unique(page)
    await look(browser_page, "machines-dark")

    # The toggle overrides the system, and a reload keeps the choice.
    await toggle.click()
    await expect(html).to_have_attribute("data-theme", "light")
    await expect(toggle).to_have_attribute("aria-pressed", "false")
    await page.reload()
    await expect(page.locator("[data-connection=live]")).to_be_visible()
    await expect(html).to_have_attribute("data-theme", "light")
    for path, heading in pages:
        await visit(page, path, heading)
        await assert_axe_clean(page, f"{path} (light)")
    # Back to dark by the toggle, still remembered across a reload even with a light system.
    await page.emulate_media(color_scheme="light")
    await page.get_by_role("button", name="Dark mode").click()
    await page.reload()
    await expect(html).to_have_attribute("data-theme", "dark")
    await visit(page, f"/#/workflows/{workflow_id}", "publish")
    await look(browser_page, "workflow-dark")
    assert_clean(browser_page)


async def test_graphiql_is_usable_at_phone_width(live_server: LiveServer, browser_page: BrowserPage) -> None:
    page = browser_page.page
    await page.set_viewport_size(PHONE)
    await page.goto(f"{live_server.url}/graphql")
    # The dashboard's remembered dark mode is GraphiQL's theme too.
    await page.evaluate("window.localStorage.setItem('flightdeck.theme', 'dark')")
    await page.reload()
    await expect(page.locator("body")).to_have_class(re.compile(r"\bgraphiql-dark\b"))
    editor = page.locator(".graphiql-query-editor .monaco-editor")
    await editor.wait_for(state="visible", timeout=30_000)
    await editor.click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.press("Delete")
    await page.keyboard.insert_text("{ __typename }")
    run = page.locator("button.graphiql-execute-button")
    await expect(run).to_be_in_viewport()
    await run.click()
    response = page.locator(".graphiql-response")
    await expect(response).to_contain_text('"__typename": "Query"', timeout=30_000)
    # Editor and response stack, each the width of the phone, nothing scrolls sideways.
    query_box = await page.locator(".graphiql-query-editor").bounding_box()
    response_box = await response.bounding_box()
    assert query_box
    assert response_box
    assert query_box["width"] >= 300, query_box
    assert response_box["width"] >= 300, response_box
    assert response_box["y"] >= query_box["y"] + query_box["height"] - 1
    assert response_box["y"] + 40 <= PHONE["height"]
    assert await page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    await browser_page.screenshot("graphiql-390")
    # axe at 390 px in both themes, with one session tab and with two (each tab then has a close button
    # beside its title): nothing serious, the tablist's own rules included. GraphiQL may open the page
    # with two tabs (it adds one when its saved query differs from its saved tabs).
    tabs = page.get_by_role("tablist", name="Select active operation").get_by_role("tab")
    for theme in ("dark", "light"):
        await page.evaluate(f"window.localStorage.setItem('flightdeck.theme', '{theme}')")
        await page.reload()
        await expect(page.locator("body")).to_have_class(re.compile(rf"\bgraphiql-{theme}\b"))
        await editor.wait_for(state="visible", timeout=30_000)
        await expect(tabs.first).to_be_visible()
        if await tabs.count() == 1:
            await page.get_by_role("button", name="New tab").click()
        await expect(tabs).to_have_count(2)
        found = await serious_axe_violations(page)
        assert not found, f"axe on GraphiQL at 390px ({theme}), two tabs: {found}"
        await use_tabs_by_keyboard(page)
        found = await serious_axe_violations(page)
        assert not found, f"axe on GraphiQL at 390px ({theme}), one tab: {found}"


async def use_tabs_by_keyboard(page: Page) -> None:
    """GraphiQL's two tabs by keyboard: arrows, Home and End move and select; Delete closes the first."""
    tabs = page.get_by_role("tablist", name="Select active operation").get_by_role("tab")
    await expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")
    await expect(tabs.nth(1)).to_have_attribute("aria-controls", "graphiql-session")
    await tabs.nth(1).focus()
    await page.keyboard.press("ArrowLeft")
    await expect(tabs.nth(0)).to_be_focused()
    await expect(tabs.nth(0)).to_have_attribute("aria-selected", "true")
    await expect(tabs.nth(1)).to_have_attribute("aria-selected", "false")
    # One tab stop for the tablist: the selected tab.
    assert await tabs.evaluate_all("els => els.map(e => e.tabIndex)") == [0, -1]
    await page.keyboard.press("End")
    await expect(tabs.nth(1)).to_be_focused()
    await expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")
    await page.keyboard.press("Home")
    await expect(tabs.nth(0)).to_have_attribute("aria-selected", "true")
    await page.keyboard.press("Delete")
    await expect(tabs).to_have_count(1)
    await expect(tabs.first).to_be_focused()
    await expect(tabs.first).to_have_attribute("aria-selected", "true")


async def undo_fails(client: GraphQLClient, workflow_id: str, agent: str) -> str:
    """The agent claims its compensation and reports that undoing failed; returns the step it was for."""
    compensation = await claim(client, workflow_id, agent)
    variables = {"id": compensation["id"], "agent": agent, "message": "workspace locked"}
    report = (await client.execute(workflow_ops.FAIL_COMPENSATION, variables))["failWorkflowCompensation"]
    assert report["userErrors"] == [], report
    return str(compensation["stepName"])


async def test_outcome_colours_tell_success_partial_rollback_and_failure_apart(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    # Succeeded: one step, done.
    ok = await create_workflow(client, {"name": "quick", "steps": [{"name": "only"}]})
    await start_workflow(client, ok)
    await complete(client, (await claim(client, ok))["id"])
    # Failed: one step that fails under the default (abort) policy.
    bad = await create_workflow(client, {"name": "broken", "steps": [{"name": "only", **NO_RETRY}]})
    await start_workflow(client, bad)
    await fail(client, (await claim(client, bad))["id"], "VALIDATION", "bad input")
    # Partially rolled back (seed 002 §4.3): two steps done, the third fails, the first undo fails.
    partial = await create_from_yaml(client, seed_4_3_yaml())
    await start_workflow(client, partial)
    steps = {s["name"]: s["id"] for s in [await claim(client, partial, f"w{i}") for i in range(4)]}
    await complete(client, steps["create-account"], "w0")
    await complete(client, steps["provision-workspace"], "w1")
    await fail(client, steps["setup-analytics"], "VALIDATION", "bad config", "w2")
    assert await undo_fails(client, partial, "product-analyst") == "provision-workspace"

    await open_dashboard(browser_page, f"{live_server.url}/#/workflows")
    outcomes = {ok: "succeeded", bad: "failed", partial: "partially_rolled_back"}
    for workflow_id, outcome in outcomes.items():
        card = page.locator(f"[data-workflow-id='{workflow_id}']")
        await expect(card).to_have_attribute("data-outcome", outcome)
        await expect(card).to_have_class(re.compile(f"outcome-{outcome}"))
    # Only the success is green: the failed ones' status badges take the failure colours.
    colours = await page.evaluate(
        """(ids) => ids.map((id) => getComputedStyle(
             document.querySelector(`[data-workflow-id='${id}'] .status-line .badge`)).color)""",
        [ok, bad, partial],
    )
    assert colours[0] != colours[1], colours
    assert colours[1] == colours[2], colours

    await visit(page, f"/#/workflows/{partial}", "onboarding")
    article = page.locator("article")
    await expect(article).to_have_attribute("data-outcome", "partially_rolled_back")
    await expect(node(page, "provision-workspace")).to_have_attribute("data-undo", "undo_failed")
    await expect(node(page, "create-account")).not_to_have_attribute("data-undo", re.compile("."))
    await expect(page.get_by_test_id("outcome-banner")).to_contain_text("Partially rolled back")
    await look(browser_page, "workflow-partially-rolled-back")
    assert_clean(browser_page)


async def test_thirty_approvals_go_as_one_request_and_refusals_are_listed(
    live_server: LiveServer, client: GraphQLClient, browser_page: BrowserPage
) -> None:
    """Bulk approval of 30 workflow gates is one decideReviews request; one gate decided elsewhere
    meanwhile comes back refused, in words, and the other 29 are approved."""
    page = browser_page.page
    # One workflow with 30 gates side by side (a tenant runs only so many workflows at once).
    gates = [{"name": f"gate-{i:02}", "approval": True} for i in range(30)]
    workflow_id = await create_workflow(client, {"name": "many-gates", "steps": gates})
    await start_workflow(client, workflow_id)
    queue = await client.execute("{ workflowStepsAwaitingReview(first: 100) { edges { node { id } } } }")
    gate_ids = [e["node"]["id"] for e in queue["workflowStepsAwaitingReview"]["edges"]]
    assert len(gate_ids) == 30
    await open_dashboard(browser_page, f"{live_server.url}/#/reviews")
    section = page.get_by_test_id("workflow-reviews")
    # A page holds 20 at first; 50 a page puts all 30 on it.
    await expect(section.locator("[data-gate-step]")).to_have_count(20)
    await section.get_by_role("combobox", name="Per page of workflow approvals").select_option("50")
    await expect(section.locator("[data-gate-step]")).to_have_count(30)
    await section.get_by_role("checkbox", name="Select all 30 waiting workflow approvals").check()
    await section.get_by_role("button", name="Approve 30 selected workflow approvals…").click()
    dialog = page.get_by_role("dialog", name="Approve 30 workflow approvals?")
    # Someone else approves one of them first.
    taken = await client.execute(workflow_ops.APPROVE, {"stepId": gate_ids[0]})
    assert taken["approveWorkflowStep"]["userErrors"] == []

    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data or "") if r.method == "POST" else None)
    await dialog.get_by_role("button", name="Approve all 30").click()
    result = section.get_by_test_id("bulk-result")
    await expect(result).to_contain_text("Approved 29 of 30.")
    await expect(result).to_contain_text("Not approved")
    assert sum("decideReviews" in p for p in posts) == 1
    assert not any("approveWorkflowStep" in p for p in posts)
    await expect(section.locator("[data-gate-step]")).to_have_count(0)
    assert_clean(browser_page)
