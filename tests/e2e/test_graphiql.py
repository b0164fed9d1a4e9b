"""GraphiQL is served by Flightdeck with its own assets and runs a query offline; what a first-time visitor
sees passes axe in both themes at both widths."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect

from server.graphiql import FRONTEND_DIST
from tests.conftest import LiveServer
from tests.e2e.checks import serious_axe_violations
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import DESKTOP, PHONE

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


# GraphiQL's page reads nothing from the database: one run (SQLite) is enough.
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
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
