"""The dashboard in a real browser: first render and paging with many plans, and the
main thread under a steady stream of events.

1. ``render``: ``--plans`` plans (100,000 by default) are put into a fresh SQLite file by the bulk loader
   (bench/loader.py); a ``flightdeck serve`` process serves them; headless Chromium (Debian's, driven by
   Playwright) opens the overview and then the plans table and pages through it. The figures are the
   browser's own clock (``performance.now()``, ``performance.mark``): the overview's first render is from
   navigation start to the moment the plans' count is on screen; a page is from the click on "Next page"
   to the moment the new rows' count line is shown.
2. ``events``: with the overview open, ``--rate`` plans a second (each at least one event) are created
   through the API for ``--seconds`` (120 by default); a ``PerformanceObserver`` for ``longtask`` records
   every main-thread task over 50 ms. The figure is the longest (0 when none).

Usage: ``python -m bench.dashboard [--plans 100000] [--pages 10] [--rate 50] [--seconds 120]``; prints JSON.
The browser tests (tests/e2e/test_tables_and_activity.py) run the same probes briefly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Page, async_playwright

from server.db.migrate import upgrade

from . import loader
from .server_process import ServerProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

# Before any script of the page: record every long task, and mark when the overview's plan count shows.
PROBES = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: 'longtask', buffered: true });
new MutationObserver((_, observer) => {
  if (document.querySelector('[data-testid=plans-summary]')) {
    performance.mark('overview-plans-shown');
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""

# Click "Next page" and resolve with the milliseconds until the count line names the next rows.
NEXT_PAGE = """
async () => {
  const shown = () => document.querySelector('[data-testid=plans-count]');
  while (!shown()) await new Promise((resolve) => requestAnimationFrame(resolve));
  const before = shown().textContent;
  const started = performance.now();
  document.querySelector('nav.pager button:last-of-type').click();
  await new Promise((resolve) => {
    const check = () => {
      const now = shown();
      if (now && now.textContent !== before) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
  return performance.now() - started;
}
"""

CREATE = """mutation($input: CreateResearchPlanInput!) {
  createResearchPlan(input: $input) { userErrors { code } }
}"""


def plan_input(n: int) -> dict[str, Any]:
    return {
        "researchQuestion": f"Bench plan {n}: what changes under load?",
        "steps": [{"stepType": "SEARCH", "instructions": "look it up"}],
    }


async def overview_first_render_ms(page: Page) -> float:
    """Milliseconds from navigation start to the overview's plan count on screen (the probe's mark)."""
    deadline = time.monotonic() + 60
    while not await page.evaluate("performance.getEntriesByName('overview-plans-shown').length > 0"):
        assert time.monotonic() < deadline, "the overview never showed its plan count"
        await asyncio.sleep(0.05)
    return float(await page.evaluate("performance.getEntriesByName('overview-plans-shown')[0].startTime"))


async def page_times_ms(page: Page, pages: int) -> list[float]:
    return [float(await page.evaluate(NEXT_PAGE)) for _ in range(pages)]


async def longest_task_ms(page: Page) -> float:
    return float(await page.evaluate("Math.max(0, ...window.__longTasks)"))


async def drive_events(url: str, rate: float, seconds: float, headers: dict[str, str] | None = None) -> int:
    """Create ``rate`` plans a second for ``seconds`` through the API; returns how many were created."""
    sent = 0
    total = round(rate * seconds)
    async with httpx.AsyncClient(base_url=url, headers=headers or {}, timeout=30) as http:
        started = time.monotonic()
        while sent < total:
            due = min(total, int((time.monotonic() - started) * rate) + 1)
            batch = [
                http.post("/graphql", json={"query": CREATE, "variables": {"input": plan_input(n)}})
                for n in range(sent, due)
            ]
            for answer in await asyncio.gather(*batch):
                answer.raise_for_status()
                body = answer.json()
                assert "errors" not in body, body
                assert body["data"]["createResearchPlan"]["userErrors"] == [], body
            sent = due
            await asyncio.sleep(max(0.0, sent / rate - (time.monotonic() - started)))
    return sent


async def measure(url: str, plans: int, pages: int, rate: float, seconds: float) -> dict[str, Any]:
    results: dict[str, Any] = {"plans": plans}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            await context.add_init_script(PROBES)
            page = await context.new_page()
            await page.goto(f"{url}/#/")
            results["overview_first_render_ms"] = round(await overview_first_render_ms(page), 1)
            await page.goto(f"{url}/#/plans")
            await page.wait_for_selector("[data-testid=plans-count]", timeout=60_000)
            times = await page_times_ms(page, pages)
            results["page_ms"] = [round(t, 1) for t in times]
            results["page_ms_max"] = round(max(times), 1)
            await page.goto(f"{url}/#/")
            await page.wait_for_selector("[data-testid=plans-summary]")
            await page.evaluate("window.__longTasks = []")
            results["events_created"] = await drive_events(url, rate, seconds)
            results["events_seconds"] = seconds
            results["longest_task_ms"] = round(await longest_task_ms(page), 1)
            results["long_tasks_over_200ms"] = int(
                await page.evaluate("window.__longTasks.filter((d) => d > 200).length")
            )
        finally:
            await browser.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.dashboard")
    parser.add_argument("--plans", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'dashboard.db'}"
        upgrade(url)
        loaded = loader.load(url, args.plans)
        with ServerProcess(url) as server:
            results = asyncio.run(measure(server.url, args.plans, args.pages, args.rate, args.seconds))
    results["load_seconds"] = round(loaded.seconds, 1)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
