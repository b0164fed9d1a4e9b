"""Decision terms and the Webhooks page in headless Chromium against a real server.

Reviews: each open decision shows its assignee, a countdown to its deadline with the default outcome,
and an "escalated" mark; "mine" narrows it to the key's own; the server's decision timer (run once per
step of the fake clock, as the loop would) escalates and then applies the default, and the page follows
live. Webhooks: an admin creates an endpoint (the secret shown once), a delivery to a local receiver
appears in the log with its attempt, and is redelivered; any other key reads "admin keys only".
axe-core and unique control names on both pages; screenshots at 1280 and 390 px in test-artifacts/.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from playwright.async_api import expect

from server.auth import Role
from server.clock import FakeClock
from server.config import Settings
from server.loops.decision_deadlines import run_decision_deadlines
from tests.conftest import GraphQLClient, LiveServer, keys_per_role
from tests.e2e.checks import assert_axe_clean, assert_control_names_unique
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import assert_clean, create_plan, look, open_dashboard, start_next
from tests.realtime.processes import until
from tests.services.webhooks.receiver import receiver

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]

REVIEW_WITH_TERMS = """
mutation Review($stepId: ID!, $terms: DecisionTermsInput) {
  requestUserReview(stepId: $stepId, summary: "look", decision: $terms) {
    userErrors { code message field }
  }
}
"""


@pytest.fixture
def settings(db_url: str) -> Settings:
    # The decision timer and webhook dispatcher are the server's own; the timer's interval is long so
    # that only the test runs it (after moving the fake clock).
    return Settings(
        database_url=db_url,
        auth_cache_seconds=0,
        decision_deadline_interval_seconds=3600,
        webhook_allow_private_targets=True,
        webhook_poll_seconds=0.1,
    )


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> dict[Role, str]:
    return await keys_per_role(settings.database_url, clock.now())


async def sign_in(browser: BrowserPage, url: str, key: str) -> None:
    """Open the dashboard with a key already in the browser session (as the key form leaves it); the
    latest key's script runs last, so a second sign-in replaces the first key."""
    page = browser.page
    await page.context.add_init_script(f"sessionStorage.setItem('flightdeck.apiKey', {json.dumps(key)})")
    if page.url == "about:blank":
        await open_dashboard(browser, url)
        return
    await page.reload()
    await open_dashboard(browser, url)


async def review(agent: GraphQLClient, title: str, terms: dict[str, Any] | None) -> str:
    """A one-step plan whose step waits for a person under these terms; returns the plan's id."""
    plan_id = await create_plan(agent, 1, title=title)
    step_id = await start_next(agent, plan_id)
    answer = await agent.execute(REVIEW_WITH_TERMS, {"stepId": step_id, "terms": terms})
    assert answer["requestUserReview"]["userErrors"] == [], answer
    return plan_id


async def checks(browser: BrowserPage, name: str) -> None:
    await assert_axe_clean(browser.page, name)
    await assert_control_names_unique(browser.page)
    await look(browser, name)


async def test_reviews_show_assignee_countdown_escalation_and_the_applied_default_live(
    keys: dict[Role, str], live_server: LiveServer, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    agent = GraphQLClient(live_server.url, keys[Role.AGENT])
    try:
        await review(agent, "Undated", None)
        await review(
            agent,
            "Dated",
            {
                "deadlineSeconds": 3600,
                "defaultOutcome": "APPROVE",
                "assignee": "user:t-reviewer",
                "escalateAfterSeconds": 600,
                "escalationRole": "admin",
            },
        )
    finally:
        await agent.aclose()

    await sign_in(browser_page, f"{live_server.url}/#/reviews", keys[Role.REVIEWER])
    terms = page.get_by_test_id("decision-terms")
    items = terms.locator("li[data-decision]")
    await expect(items).to_have_count(2)
    # The one with a deadline first, whatever the request order.
    dated, undated = items.nth(0), items.nth(1)
    await expect(dated.get_by_role("link", name=re.compile("^plan “Dated”"))).to_be_visible()
    await expect(undated.get_by_role("link", name=re.compile("^plan “Undated”"))).to_be_visible()
    await expect(dated.get_by_test_id("assignee")).to_have_text("t-reviewer")
    await expect(dated.get_by_test_id("deadline")).to_contain_text(
        re.compile(r"in (59m|1h 0m).*then approve applies")
    )
    await expect(dated).to_contain_text("escalates to any admin in")
    await expect(undated.get_by_test_id("assignee")).to_have_text("anyone who may")
    await expect(undated.get_by_test_id("deadline")).to_contain_text("No deadline")
    await checks(browser_page, "reviews-deadlines")

    mine = page.get_by_role("checkbox", name=re.compile("^Only mine"))
    await mine.check()
    await expect(items).to_have_count(1)
    await expect(items.first.get_by_test_id("assignee")).to_have_text("t-reviewer")
    await mine.uncheck()
    await expect(items).to_have_count(2)

    runtime = live_server.app.state.runtime
    live_server.clock.advance(timedelta(minutes=10))
    assert len(live_server.call(run_decision_deadlines(runtime)).escalated) == 1
    await expect(items.nth(0).get_by_test_id("escalated")).to_have_text("escalated")
    await expect(items.nth(0).get_by_test_id("assignee")).to_have_text("any admin")
    await mine.check()  # re-assigned to the admins: no longer the reviewer's
    await expect(terms).to_contain_text("No open decision is assigned to you.")
    await mine.uncheck()
    await look(browser_page, "reviews-escalated")

    live_server.clock.advance(timedelta(minutes=50))
    assert len(live_server.call(run_decision_deadlines(runtime)).defaulted) == 1
    await expect(items).to_have_count(1)
    settled = page.get_by_test_id("settled").locator("li")
    await expect(settled).to_have_count(1)
    await expect(settled.first).to_contain_text("Plan step review — deadline passed: default approve applied")
    await expect(settled.first).to_have_attribute("data-status", "DEFAULTED")
    await expect(settled.first.get_by_role("link", name=re.compile("^plan “Dated”"))).to_be_visible()
    await checks(browser_page, "reviews-defaulted")
    assert_clean(browser_page)


async def test_webhooks_page_creates_an_endpoint_shows_its_delivery_and_redelivers_it(
    keys: dict[Role, str], live_server: LiveServer, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    url = f"{live_server.url}/#/webhooks"
    async with receiver() as hook:
        await sign_in(browser_page, url, keys[Role.ADMIN])
        await expect(page.get_by_role("heading", name="Webhooks", level=1)).to_be_visible()
        await page.get_by_label("URL (http or https)").fill(hook.url)
        await page.get_by_label("Description (optional)").fill("the on-call bot")
        await page.get_by_role("checkbox", name="Review requested").check()
        await page.get_by_role("button", name="Add the endpoint").click()
        secret = page.get_by_test_id("webhook-secret")
        await expect(secret).to_contain_text("whsec_")
        endpoint = page.locator("li[data-webhook-endpoint]")
        await expect(endpoint).to_have_count(1)
        await expect(endpoint.get_by_test_id("endpoint-state")).to_have_text("enabled")
        await page.get_by_role("button", name="I have stored the secret").click()
        await expect(secret).to_have_count(0)

        agent = GraphQLClient(live_server.url, keys[Role.AGENT])
        try:
            await review(agent, "Hooked", None)
        finally:
            await agent.aclose()

        await page.get_by_role("button", name=f"Show the deliveries of {hook.url}").click()
        row = page.get_by_test_id("delivery-log").locator("tr[data-delivery-seq]")
        await expect(row).to_have_count(1, timeout=15_000)
        await expect(row).to_have_attribute("data-status", "DELIVERED", timeout=15_000)
        await expect(row.get_by_test_id("last-answer")).to_have_text("HTTP 200")
        seq = await row.get_attribute("data-delivery-seq")
        assert len(hook.received) == 1
        assert hook.seqs == [seq]

        await page.get_by_role("button", name=f"Attempts of event {seq}").click()
        attempts = page.get_by_role("list", name=f"Attempts to deliver event {seq}")
        await expect(attempts.locator("li")).to_have_count(1)
        await expect(attempts).to_contain_text("Attempt 1: HTTP 200 (delivered)")
        await checks(browser_page, "webhooks")

        await page.get_by_role("button", name=f"Redeliver event {seq}").click()
        await expect(page.get_by_test_id("redeliver-notice")).to_have_text(
            f"Redelivery of event {seq}: 1 delivery queued."
        )

        async def redelivered() -> bool:
            return len(hook.received) >= 2

        await until(redelivered, 15, "the redelivery")
        assert hook.seqs == [seq, seq]

        # A range: an empty first seq is refused in words; a range redelivers what it covers.
        await page.get_by_role("button", name="Redeliver the range").click()
        await expect(page.get_by_role("form", name="Redeliver a range of events")).to_contain_text(
            "The first seq must be a whole number"
        )
        await page.get_by_label("First seq").fill("1")
        await page.get_by_label("Last seq (optional)").fill(str(seq))
        await page.get_by_role("button", name="Redeliver the range").click()
        await expect(page.get_by_test_id("redeliver-notice")).to_have_text(
            f"Redelivery of events 1\u2013{seq}: 1 delivery queued."
        )

        async def redelivered_again() -> bool:
            return len(hook.received) >= 3

        await until(redelivered_again, 15, "the range's redelivery")
        assert hook.seqs == [seq, seq, seq]

        await page.get_by_role("button", name=f"Disable {hook.url}").click()
        await expect(endpoint.get_by_test_id("endpoint-state")).to_have_text("disabled")
        await page.get_by_role("button", name=f"Delete {hook.url}").click()
        await page.get_by_role("button", name=f"Yes, delete {hook.url} and its delivery log").click()
        await expect(endpoint).to_have_count(0)

    # Any other key reads why the page is empty.
    await sign_in(browser_page, url, keys[Role.REVIEWER])
    await expect(page.get_by_test_id("webhooks-forbidden")).to_contain_text("admin keys only")
    await checks(browser_page, "webhooks-forbidden")
    browser_page.assert_only_loopback()
    assert not browser_page.console_errors, browser_page.console_errors
