"""GraphiQL is served by Flightdeck with its own assets and runs a query offline; what a first-time visitor
sees passes axe in both themes at both widths; its theme is the dashboard's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from server.graphiql import FRONTEND_DIST
from tests.conftest import LiveServer
from tests.e2e.checks import serious_axe_violations
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import DESKTOP, PHONE, open_dashboard

pytestmark = pytest.mark.browser

QUERY = "{ __typename }"

# Monaco draws each line as spans and may use non-breaking spaces; read the
# visible text of an editor with those normalised.
_EDITOR_TEXT = """(selector) => {
  const lines = document.querySelector(selector)?.querySelectorAll('.view-line') ?? [];
  return Array.from(lines, (line) => line.textContent.replace(/\\u00a0/g, ' ')).join('\\n');
}"""


async def test_graphiql_runs_a_query_offline(live_server: Any, browser_page: Any) -> None:
    assert (FRONTEND_DIST / "graphiql" / "graphiql.js").is_file(), (
        "GraphiQL bundle missing: run `make frontend` (npm ci && npm run build in frontend/)"
    )
    page = browser_page.page

    await page.goto(f"{live_server.url}/graphql")
    editor = page.locator(".graphiql-query-editor .monaco-editor")
    await editor.wait_for(state="visible", timeout=30_000)

    # Replace the welcome text the way a user would. insert_text skips the
    # per-key auto-closing of brackets that typing "{" would trigger.
    await editor.click()
    await page.keyboard.press("ControlOrMeta+a")
    await page.keyboard.press("Delete")
    await page.keyboard.insert_text(QUERY)
    assert await page.evaluate(_EDITOR_TEXT, ".graphiql-query-editor") == QUERY

    await page.locator("button.graphiql-execute-button").click()
    await page.wait_for_function(
        f"() => ({_EDITOR_TEXT})('.graphiql-response').includes('\"__typename\": \"Query\"')",
        timeout=30_000,
    )
    shot = await browser_page.screenshot("graphiql")
    assert shot.stat().st_size > 0

    browser_page.assert_only_loopback()
    assert not browser_page.blocked, browser_page.blocked
    assert not browser_page.failed, browser_page.failed
    asset_errors = [e for e in browser_page.console_errors if "Failed to load" in e or "uncaught" in e]
    assert not asset_errors, asset_errors


# Monaco marks each editor with its theme's base: vs (light) or vs-dark.
_MONACO_BASE = {"light": r"(^|\s)vs(\s|$)", "dark": r"(^|\s)vs-dark(\s|$)"}

# The welcome text is all comments: highlighted once every line drawn is in a token colour of the theme.
# Monaco draws a line in the plain foreground (mtk1) until the GraphQL grammar has tokenised it, which it
# does a few lines at a time after the first paint.
_WELCOME_HIGHLIGHTED = """() => {
  const lines = [...document.querySelectorAll('.graphiql-query-editor .view-line')];
  const tokens = lines.flatMap((line) => [...line.querySelectorAll('span span')]);
  return lines.some((line) => /Welcome\\s+to\\s+GraphiQL/.test(line.textContent))
    && tokens.every((token) => token.className !== 'mtk1');
}"""


async def open_first_view(page: Page, url: str, theme: str) -> None:
    """GraphiQL as a first-time visitor meets it: nothing stored, the system in `theme`, the welcome text."""
    await page.emulate_media(color_scheme=theme)
    await page.goto(f"{url}/graphql")
    await page.evaluate("window.localStorage.clear()")
    await page.reload()
    editor = page.locator(".graphiql-query-editor .monaco-editor")
    await expect(editor).to_have_class(re.compile(_MONACO_BASE[theme]), timeout=30_000)
    await page.wait_for_function(_WELCOME_HIGHLIGHTED, timeout=30_000)


async def test_graphiql_first_view_has_no_serious_axe_finding_in_either_theme_at_1280_or_390_px(
    live_server: LiveServer, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    found: dict[str, list[dict[str, Any]]] = {}
    for theme in ("light", "dark"):
        for size in (DESKTOP, PHONE):
            await page.set_viewport_size(size)
            await open_first_view(page, live_server.url, theme)
            where = f"{theme}, {size['width']} px"
            await browser_page.screenshot(f"graphiql-first-view-{theme}-{size['width']}")
            violations = await serious_axe_violations(page)
            if violations:
                found[where] = violations
    assert not found, f"axe on GraphiQL's first view: {found}"


async def graphiql_theme(page: Page, url: str) -> str:
    """Open GraphiQL and return the theme it shows, checking that its editors show the same."""
    await page.goto(f"{url}/graphql")
    body = page.locator("body")
    await expect(body).to_have_class(re.compile(r"\bgraphiql-(light|dark)\b"))
    theme = "dark" if "graphiql-dark" in (await body.get_attribute("class") or "") else "light"
    editor = page.locator(".graphiql-query-editor .monaco-editor")
    await expect(editor).to_have_class(re.compile(_MONACO_BASE[theme]), timeout=30_000)
    return theme


async def dashboard_theme(browser_page: BrowserPage, url: str) -> str:
    await open_dashboard(browser_page, url)
    return str(await browser_page.page.locator("html").get_attribute("data-theme"))


@pytest.mark.usefixtures("dashboard_built")
async def test_graphiql_opens_in_the_dashboards_theme_and_its_own_theme_setting_is_the_dashboards(
    live_server: LiveServer, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    url = live_server.url
    await page.emulate_media(color_scheme="light")
    dark_mode = page.get_by_role("button", name="Dark mode")
    # Dark chosen on the dashboard: GraphiQL opens dark; the dashboard back to light, GraphiQL opens light
    # (left to itself, GraphiQL would keep the theme it started in on its first visit).
    assert await dashboard_theme(browser_page, url) == "light"
    await dark_mode.click()
    assert await graphiql_theme(page, url) == "dark"
    assert await dashboard_theme(browser_page, url) == "dark"
    await dark_mode.click()
    await expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert await graphiql_theme(page, url) == "light"
    # Dark chosen in GraphiQL's settings is the dashboard's choice too; "System" forgets it for both.
    await choose_in_graphiql_settings(page, "Dark")
    assert await dashboard_theme(browser_page, url) == "dark"
    assert await graphiql_theme(page, url) == "dark"
    await choose_in_graphiql_settings(page, "System")
    assert await page.evaluate("window.localStorage.getItem('flightdeck.theme')") is None
    assert await dashboard_theme(browser_page, url) == "light"
    # Each page is left as soon as its theme shows, which aborts what it was still loading (the dashboard's
    # lists, GraphiQL's language worker), so failed requests are not checked here; the rest is.
    browser_page.assert_only_loopback()
    assert not browser_page.blocked, browser_page.blocked
    assert not browser_page.console_errors, browser_page.console_errors


async def choose_in_graphiql_settings(page: Page, theme: str) -> None:
    await page.get_by_role("button", name="Open settings dialog").click()
    dialog = page.get_by_role("dialog")
    await dialog.get_by_role("button", name=theme, exact=True).click()
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()
