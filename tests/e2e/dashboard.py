"""Helpers for the dashboard's browser tests: drive plans through the API, look at the page at two sizes."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Page, expect

from tests.api import operations as ops
from tests.conftest import GraphQLClient
from tests.e2e.conftest import BrowserPage

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


async def open_dashboard(browser: BrowserPage, url: str) -> None:
    page = browser.page
    await page.goto(url)
    await expect(page.locator("[data-connection=live]")).to_be_visible(timeout=15_000)
    # Marks this document: if the page reloaded, the mark would be gone.
    await page.evaluate("window.__sameDocument = true")


async def go(page: Page, label: str) -> None:
    """Follow a link of the dashboard's navigation (its label may carry a count)."""
    nav = page.get_by_role("navigation", name="Dashboard")
    await nav.get_by_role("link", name=re.compile(f"^{re.escape(label)}")).click()


async def assert_not_reloaded(browser: BrowserPage) -> None:
    assert await browser.page.evaluate("window.__sameDocument === true"), "the page was reloaded"


async def create_plan(client: GraphQLClient, steps: int = 3, **extra: Any) -> str:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(steps, **extra)})
    assert created["createResearchPlan"]["userErrors"] == []
    return str(created["createResearchPlan"]["plan"]["id"])


async def start_next(client: GraphQLClient, plan_id: str) -> str:
    started = await client.execute(ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": "session-1"})
    assert started["startNextStep"]["userErrors"] == [], started
    return str(started["startNextStep"]["step"]["id"])


async def submit(client: GraphQLClient, step_id: str, summary: str, confidence: float) -> None:
    result = {"stepId": step_id, "resultSummary": summary, "confidence": confidence}
    answer = await client.execute(ops.SUBMIT_RESULT, {"input": result})
    assert answer["submitStepResult"]["userErrors"] == [], answer


async def request_review(client: GraphQLClient, step_id: str, summary: str, questions: list[str]) -> None:
    answer = await client.execute(
        ops.REQUEST_REVIEW, {"stepId": step_id, "summary": summary, "questions": questions}
    )
    assert answer["requestUserReview"]["userErrors"] == [], answer


async def event_seqs(client: GraphQLClient, root_id: str) -> list[int]:
    """The seqs of a root's events (a plan's, or any other root's) in the server's log."""
    history = await client.execute(ops.EVENTS, {"rootId": root_id, "after": 0, "first": 100})
    assert history["events"]["pageInfo"]["hasNextPage"] is False
    return [e["node"]["seq"] for e in history["events"]["edges"]]


async def shown_seqs(page: Page) -> list[int]:
    cells = await page.locator("table.events tbody tr").evaluate_all(
        "rows => rows.map(r => Number(r.dataset.seq))"
    )
    return [int(c) for c in cells]


async def look(browser: BrowserPage, name: str) -> None:
    """Screenshots at 1280x800 and at phone width; neither may scroll sideways."""
    page = browser.page
    for label, size in (("1280", DESKTOP), ("390", PHONE)):
        await page.set_viewport_size(size)
        await page.wait_for_timeout(100)  # let the layout settle after the resize
        overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {label}px scrolls sideways by {overflow}px"
        await browser.screenshot(f"dashboard-{name}-{label}")
    await page.set_viewport_size(DESKTOP)


def assert_clean(browser: BrowserPage) -> None:
    """Everything came from this server, nothing failed to load, no script error."""
    browser.assert_only_loopback()
    assert not browser.blocked, browser.blocked
    assert not browser.failed, browser.failed
    assert not browser.console_errors, browser.console_errors


async def look_and_finish(browser: BrowserPage, name: str) -> None:
    """The end of a test: the page was never reloaded, it looks right at both sizes, and it ran clean."""
    await assert_not_reloaded(browser)
    await look(browser, name)
    assert_clean(browser)
