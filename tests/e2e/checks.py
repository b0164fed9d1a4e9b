"""Page-wide checks for the browser tests: axe-core's accessibility rules, and unique control names."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from playwright.async_api import Page

# axe-core from npm (frontend/package.json, a dev dependency), put into the page by the test: no CDN.
AXE = Path(__file__).resolve().parents[2] / "frontend" / "node_modules" / "axe-core" / "axe.min.js"

_RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
}"""

# Roles a person operates; each one's accessible name must be unique on the page.
CONTROL_ROLES = {
    "button",
    "link",
    "checkbox",
    "textbox",
    "combobox",
    "radio",
    "switch",
    "form",
    "DisclosureTriangle",
}


async def serious_axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        # Evaluated through the DevTools protocol, so the server's Content-Security-Policy does not apply.
        await page.evaluate(AXE.read_text(encoding="utf-8") + "\n;true")
    violations: list[dict[str, Any]] = await page.evaluate(_RUN_AXE)
    return violations


async def assert_axe_clean(page: Page, where: str) -> None:
    violations = await serious_axe_violations(page)
    assert not violations, f"axe on {where}: {violations}"


async def control_names(page: Page) -> list[tuple[str, str]]:
    """(role, accessible name) of every control Chromium's accessibility tree exposes."""
    cdp = await page.context.new_cdp_session(page)
    try:
        tree = await cdp.send("Accessibility.getFullAXTree")
    finally:
        await cdp.detach()
    found = []
    for node in tree["nodes"]:
        if node.get("ignored"):
            continue
        role = str(node.get("role", {}).get("value", ""))
        if role in CONTROL_ROLES:
            found.append((role, str(node.get("name", {}).get("value", "")).strip()))
    return found


# Chromium's own button inside every <input type="datetime-local"> (its shadow DOM), named the same in
# every such field: not the page's to name, and each sits inside its own labelled field.
BROWSER_PICKER = ("button", "Show local date and time picker Show local date and time picker")


async def assert_control_names_unique(page: Page) -> None:
    names = [name for name in await control_names(page) if name != BROWSER_PICKER]
    repeated = {key: n for key, n in Counter(names).items() if n > 1}
    unnamed = [role for role, name in names if not name]
    assert not repeated, f"controls sharing a name: {repeated}"
    assert not unnamed, f"controls without a name: {unnamed}"
