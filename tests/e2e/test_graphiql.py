"""GraphiQL is served by Flightdeck with its own assets and runs a query offline."""

from __future__ import annotations

from typing import Any

import pytest

from server.graphiql import FRONTEND_DIST

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
