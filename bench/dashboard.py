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

3. ``room`` (the control room at scale, each figure beside its target): the overview's height at 1280 px
   with the ``--plans`` plans; ``--reviews`` plan steps (500) put up for review through the API, then the
   Reviews page's first render (navigation start to its first waiting step on screen) and height; one
   ``decideReviews`` mutation of 30 and one of 100 of them (wall time of the request, as the page sends
   it); and a ``--dag-steps``-step workflow's page (200; the page reads every page of steps), the
   longest main-thread task from navigation until every step is drawn.

Chromium is ``--chromium``, else ``FLIGHTDECK_CHROMIUM``, else ``/usr/bin/chromium``.

Usage: ``python -m bench.dashboard [--plans 100000] [--pages 10] [--rate 50] [--seconds 120]
[--reviews 500] [--dag-steps 200] [--chromium PATH]``; prints JSON. The browser tests
(tests/e2e/test_tables_and_activity.py, test_control_room.py) run the same probes briefly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Page, async_playwright

from server.db.migrate import upgrade

from . import loader
from .server_process import ServerProcess

CHROMIUM = os.environ.get("FLIGHTDECK_CHROMIUM", "/usr/bin/chromium")
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
new MutationObserver((_, observer) => {
  if (document.querySelector('[data-review-step]')) {
    performance.mark('reviews-shown');
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


TARGETS = {
    "overview_first_render_ms": ("<=", 1000.0),
    "overview_height_px": ("<=", 3000.0),
    "reviews_first_render_ms": ("<=", 1000.0),
    "reviews_height_px": ("<=", 3000.0),
    "decide_30_ms": ("<=", 1000.0),
    "dag_longest_task_ms": ("<=", 50.0),
}

REVIEWED = """mutation($planId: ID!) {
  startNextStep(planId: $planId, sessionId: "bench") { step { id } userErrors { code } }
}"""
ASK = """mutation($stepId: ID!) {
  requestUserReview(stepId: $stepId, summary: "Which sources?", questions: ["Keep both?"]) {
    userErrors { code }
  }
}"""
PLAN_IDS = """query($first: Int!, $after: String) {
  researchPlans(first: $first, after: $after, status: [PLANNING]) {
    pageInfo { hasNextPage endCursor }
    edges { node { id } }
  }
}"""
INBOX = """query($first: Int!, $after: String) {
  reviewInbox(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node { step { id } } }
  }
}"""
DECIDE = """mutation($decisions: [ReviewDecisionInput!]!) {
  decideReviews(decisions: $decisions) { decided refused }
}"""
CREATE_WORKFLOW = """mutation($input: CreateWorkflowInput!) {
  createWorkflow(input: $input) { workflow { id } userErrors { code message } }
}"""


async def _gql(http: httpx.AsyncClient, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    answer = await http.post("/graphql", json={"query": query, "variables": variables})
    answer.raise_for_status()
    body = answer.json()
    assert "errors" not in body, body
    return dict(body["data"])


async def open_reviews(url: str, count: int) -> int:
    """Put the first step of ``count`` PLANNING plans up for review, through the API, 20 plans at a time;
    returns how many were opened (a plan whose next step cannot start is passed over)."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        opened = 0
        after = None

        async def one(plan_id: str) -> bool:
            step = (await _gql(http, REVIEWED, {"planId": plan_id}))["startNextStep"]["step"]
            if step is None:
                return False
            asked = await _gql(http, ASK, {"stepId": step["id"]})
            assert asked["requestUserReview"]["userErrors"] == [], asked
            return True

        while opened < count:
            page = (await _gql(http, PLAN_IDS, {"first": 100, "after": after}))["researchPlans"]
            ids = [e["node"]["id"] for e in page["edges"]]
            for i in range(0, len(ids), 20):
                wanted = ids[i : i + min(20, count - opened)]
                if not wanted:
                    break
                opened += sum(await asyncio.gather(*(one(p) for p in wanted)))
            if not page["pageInfo"]["hasNextPage"]:
                break
            after = page["pageInfo"]["endCursor"]
        return opened


async def waiting_steps(url: str) -> list[str]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        found: list[str] = []
        after = None
        while True:
            page = (await _gql(http, INBOX, {"first": 100, "after": after}))["reviewInbox"]
            found += [e["node"]["step"]["id"] for e in page["edges"]]
            if not page["pageInfo"]["hasNextPage"]:
                return found
            after = page["pageInfo"]["endCursor"]


async def decide_ms(url: str, step_ids: list[str]) -> tuple[float, int]:
    """One decideReviews of ``step_ids`` (approve each): milliseconds, and how many were decided."""
    decisions = [{"kind": "PLAN_STEP", "id": s, "approve": True} for s in step_ids]
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        started = time.perf_counter()
        done = (await _gql(http, DECIDE, {"decisions": decisions}))["decideReviews"]
        return (time.perf_counter() - started) * 1000, int(done["decided"])


def _deps(names: list[str], i: int) -> list[str]:
    return [names[i - 10], names[i - 9 if i % 10 < 9 else i - 11]]


def dag_definition(steps: int) -> dict[str, Any]:
    """``steps`` steps in layers of ten, each depending on two of the layer before."""
    names = [f"s{i:03d}" for i in range(steps)]
    return {
        "name": f"bench-dag-{steps}",
        "steps": [
            {
                "name": n,
                **({"dependsOn": [names[i - 10], names[i - 9 if i % 10 < 9 else i - 11]]} if i >= 10 else {}),
            }
            for i, n in enumerate(names)
        ],
    }


async def page_height(page: Page) -> int:
    return int(await page.evaluate("document.documentElement.scrollHeight"))


async def measure_room(url: str, page: Page, reviews: int, dag_steps: int, results: dict[str, Any]) -> None:
    """Adds its figures to ``results`` as it goes (those measured stay if a later part fails)."""
    await page.goto(f"{url}/#/")
    await page.wait_for_selector("[data-testid=glance]", timeout=60_000)
    await page.wait_for_selector("[data-plan-id]", timeout=60_000)
    results["overview_height_px"] = await page_height(page)

    results["reviews_opened"] = await open_reviews(url, reviews)
    await page.goto("about:blank")
    await page.goto(f"{url}/#/reviews")
    await page.wait_for_selector("[data-review-step]", timeout=60_000)
    results["reviews_first_render_ms"] = round(
        float(await page.evaluate("performance.getEntriesByName('reviews-shown')[0].startTime")),
        1,
    )
    results["reviews_open"] = len(await waiting_steps(url))
    results["reviews_height_px"] = await page_height(page)

    waiting = await waiting_steps(url)
    for n in (30, 100):
        ms, decided = await decide_ms(url, waiting[:n])
        waiting = waiting[n:]
        results[f"decide_{n}_ms"] = round(ms, 1)
        results[f"decide_{n}_decided"] = decided

    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        created = (await _gql(http, CREATE_WORKFLOW, {"input": dag_definition(dag_steps)}))["createWorkflow"]
        assert created["userErrors"] == [], created
    await page.goto("about:blank")
    await page.goto(f"{url}/#/workflows/{created['workflow']['id']}")
    deadline = time.monotonic() + 120
    steps = page.locator("[data-step-name]")
    while await steps.count() < dag_steps:  # the page's CSP forbids wait_for_function's eval
        assert time.monotonic() < deadline, f"the DAG never showed its {dag_steps} steps"
        await asyncio.sleep(0.1)
    results["dag_steps"] = dag_steps
    results["dag_longest_task_ms"] = round(await longest_task_ms(page), 1)


def with_targets(results: dict[str, Any]) -> dict[str, Any]:
    """Each measured figure that has a target, beside it: {"value", "target", "met"}."""
    out: dict[str, Any] = {}
    for name, (op, bound) in TARGETS.items():
        if name in results:
            value = float(results[name])
            out[name] = {"value": value, "target": f"{op} {bound:g}", "met": value <= bound}
    return out


async def measure(
    url: str, plans: int, pages: int, rate: float, seconds: float, reviews: int = 500, dag_steps: int = 200
) -> dict[str, Any]:
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
            if seconds > 0:  # --seconds 0: no event stream (the room figures only)
                await page.goto(f"{url}/#/")
                await page.wait_for_selector("[data-testid=plans-summary]")
                await page.evaluate("window.__longTasks = []")
                results["events_created"] = await drive_events(url, rate, seconds)
                results["events_seconds"] = seconds
                results["longest_task_ms"] = round(await longest_task_ms(page), 1)
                results["long_tasks_over_200ms"] = int(
                    await page.evaluate("window.__longTasks.filter((d) => d > 200).length")
                )
            try:
                await measure_room(url, page, reviews, dag_steps, results)
            except Exception as error:  # the figures measured so far are still printed
                results["room_error"] = f"{type(error).__name__}: {error}"[:500]
        finally:
            await browser.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.dashboard")
    parser.add_argument("--plans", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--reviews", type=int, default=500)
    parser.add_argument("--dag-steps", type=int, default=200)
    parser.add_argument("--chromium", default=None, help="Chromium's path (else FLIGHTDECK_CHROMIUM)")
    args = parser.parse_args()
    if args.chromium:
        global CHROMIUM
        CHROMIUM = args.chromium
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'dashboard.db'}"
        upgrade(url)
        loaded = loader.load(url, args.plans)
        with ServerProcess(url) as server:
            results = asyncio.run(
                measure(
                    server.url, args.plans, args.pages, args.rate, args.seconds, args.reviews, args.dag_steps
                )
            )
    results["load_seconds"] = round(loaded.seconds, 1)
    results["targets"] = with_targets(results)
    results["load_average"] = os.getloadavg()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
