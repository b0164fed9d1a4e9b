"""Headless-Chromium fixtures for browser tests.

Debian's Chromium is driven by Playwright; ``playwright install`` is never
needed (it downloads a browser, which this project's machines cannot do).
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import (
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    Request,
    Response,
    Route,
    WebSocket,
    async_playwright,
    expect,
)

from server.clock import FakeClock
from server.config import Settings
from server.graphiql import FRONTEND_DIST
from tests.conftest import LiveServer, _service_missing, sqlite_copy, start_server, stop_server
from tests.waiting import patient

# Playwright's expect() polls until its condition holds; its default 5 s is a hang bound that a loaded
# machine overruns while the page is still on its way, so it gets the suite's patience too (from 10 s:
# at load 25-30 thirty bulk decisions on PostgreSQL took over 20 s to be shown).
expect.set_options(timeout=patient(10) * 1000)

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    # Keep Chromium itself quiet on the network: no update checks, sync or
    # field trials that would show up as stray outbound requests.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# URLs without a network host: inline fonts, worker blobs, the blank page.
_HOSTLESS_SCHEMES = {"data", "blob", "about"}
# Every document (frames included) reports what the server's Content-Security-Policy blocked.
_REPORT_CSP_VIOLATIONS = """
document.addEventListener('securitypolicyviolation', (e) => {
  window.__flightdeckCspViolation(
    `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} in ${e.documentURI}` +
      (e.sample ? `: ${e.sample}` : ''),
  );
});
"""


def is_loopback(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in _HOSTLESS_SCHEMES:
        return True
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def save_screenshot(page: Page, name: str) -> Path:
    """Save a full-page PNG as test-artifacts/<name>.png and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
    await page.screenshot(path=path, full_page=True)
    return path


@dataclass
class BrowserPage:
    """A fresh page plus everything it did on the network and the console."""

    page: Page
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    # Requests the page dropped because a new document replaced it while they were out (a reload, a
    # goto): Chromium reports them ERR_ABORTED; they are not the server's or the app's failures.
    left_behind: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    # What the Content-Security-Policy blocked: the fixture fails the test on any.
    csp_violations: list[str] = field(default_factory=list)

    def csp_report(self) -> str:
        """The distinct violations, how often each, shortened: a page may repeat one hundreds of times."""
        counts = Counter(v[:300] for v in self.csp_violations)
        return "\n".join(f"{n} x {v}" for v, n in counts.most_common(20))

    def assert_only_loopback(self) -> None:
        outside = [url for url in self.requests if not is_loopback(url)]
        assert not outside, f"requests left loopback: {outside}"

    async def screenshot(self, name: str) -> Path:
        return await save_screenshot(self.page, name)

    # Listeners sit on the context, not the page, so that requests made by
    # Monaco's web workers are seen as well.
    async def _watch(self, context: BrowserContext) -> None:
        documents = 0  # main-frame documents requested so far
        sent_during: dict[Request, int] = {}

        def on_request(request: Request) -> None:
            nonlocal documents
            self.requests.append(request.url)
            if request.is_navigation_request() and request.frame.parent_frame is None:
                documents += 1  # before it is noted: its own abort is a failure, not left behind
            sent_during[request] = documents

        def on_finished(request: Request) -> None:
            sent_during.pop(request, None)

        def on_failed(request: Request) -> None:
            # The resource type tells a fetch from a WebSocket's handshake (both go to /graphql).
            failure = f"{request.url} ({request.resource_type}): {request.failure}"
            started = sent_during.pop(request, documents)
            if request.failure == "net::ERR_ABORTED" and started < documents:
                self.left_behind.append(failure)
            else:
                self.failed.append(failure)

        def on_response(response: Response) -> None:
            if response.status >= 400:
                self.failed.append(f"{response.url}: HTTP {response.status}")

        def on_console(msg: ConsoleMessage) -> None:
            # Chromium's "Failed to load resource" text omits the URL.
            if msg.type == "error":
                self.console_errors.append(f"{msg.text} ({msg.location.get('url', '?')})")
                # Also what the event misses, e.g. a violation inside a web worker.
                if "Content Security Policy" in msg.text:
                    self.csp_violations.append(f"console: {msg.text}")

        def on_page_error(exc: Error) -> None:
            self.console_errors.append(f"uncaught: {exc}")

        def on_websocket(ws: WebSocket) -> None:
            self.requests.append(ws.url)

        # Behave like an offline machine even where the internet is reachable:
        # anything bound elsewhere is recorded, then refused.
        async def refuse(route: Route) -> None:
            self.blocked.append(route.request.url)
            await route.abort("internetdisconnected")

        def on_csp_violation(report: str) -> None:
            self.csp_violations.append(report)

        await context.expose_function("__flightdeckCspViolation", on_csp_violation)
        await context.add_init_script(_REPORT_CSP_VIOLATIONS)
        context.on("request", on_request)
        context.on("requestfailed", on_failed)
        context.on("requestfinished", on_finished)
        context.on("response", on_response)
        self.page.on("console", on_console)
        self.page.on("pageerror", on_page_error)
        self.page.on("websocket", on_websocket)
        await context.route(lambda url: not is_loopback(url), refuse)


@pytest.fixture
def db_url(sqlite_template: Path, tmp_path: Path) -> str:
    """Browser tests run on SQLite only (docs/decisions/0066-browser-tests-on-sqlite.md): the page sees
    the same GraphQL whichever database is under it, and tests/api checks that face on both."""
    return sqlite_copy(sqlite_template, tmp_path)


@pytest.fixture
def dashboard_built() -> None:
    assert (FRONTEND_DIST / "index.html").is_file(), "dashboard missing: run `make frontend`"


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock that starts at the real time, so the browser's durations and the server's agree."""
    return FakeClock(datetime.now(UTC).replace(microsecond=0))


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    _service_missing(f"{CHROMIUM} not found", "Chromium")


@pytest.fixture
async def browser_page() -> AsyncIterator[BrowserPage]:
    _require_chromium()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1400, "height": 900})
            recorded = BrowserPage(await context.new_page())
            await recorded._watch(context)
            yield recorded
        finally:
            await browser.close()
    assert not recorded.csp_violations, f"the Content-Security-Policy blocked: {recorded.csp_report()}"


@pytest.fixture
def stall_server(settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    """A server whose stall threshold is one minute (the scan itself is driven by the test)."""
    live = start_server(settings.model_copy(update={"stall_threshold_seconds": 60.0}), clock)
    yield live
    stop_server(live)
