"""A plan driven through `flightdeck mcp` (stdio) shows up live in a running server's dashboard on the
same SQLite file: another process's commits reach the page without a reload."""

from __future__ import annotations

import os
import sys

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from playwright.async_api import expect

from server.config import Settings
from tests.conftest import LiveServer
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import assert_clean, assert_not_reloaded, open_dashboard
from tests.mcp.helpers import ok, steps

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("dashboard_built")]


async def test_a_plan_driven_over_stdio_appears_live_in_the_servers_dashboard(
    live_server: LiveServer, settings: Settings, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    await open_dashboard(browser_page, live_server.url)
    env = {**os.environ, "DATABASE_URL": settings.database_url, "FLIGHTDECK_API_KEY": ""}
    params = StdioServerParameters(command=sys.executable, args=["-m", "server", "mcp"], env=env)
    async with Client(params, cache=None) as agent:
        plan = await ok(agent, "create_research_plan", {"researchQuestion": "q", "steps": steps(3)})
        card = page.locator(f"[data-plan-id='{plan['planId']}']")
        await expect(card).to_be_visible()
        await expect(card.get_by_test_id("step-counts")).to_have_text("0 of 3 steps done")
        step = (await ok(agent, "get_next_step", {"planId": plan["planId"]}))["step"]
        await expect(card.get_by_test_id("step-counts")).to_have_text("0 of 3 steps done · 1 running")
        await ok(agent, "submit_step_result", {"stepId": step["stepId"], "resultSummary": "found it"})
        await expect(card.get_by_test_id("step-counts")).to_have_text("1 of 3 steps done")
        await expect(card).to_have_attribute("data-status", "executing")
    await assert_not_reloaded(browser_page)
    assert_clean(browser_page)
