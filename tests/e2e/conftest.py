"""Headless-Chromium fixtures for browser tests.

Debian's Chromium is driven by Playwright; ``playwright install`` is never
needed (it downloads a browser, which this project's machines cannot do).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page, Request, Route, async_playwright

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
    console_errors: list[str] = field(default_factory=list)

    def assert_only_loopback(self) -> None:
        outside = [url for url in self.requests if not is_loopback(url)]
        assert not outside, f"requests left loopback: {outside}"

    async def screenshot(self, name: str) -> Path:
        return await save_screenshot(self.page, name)


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} not found; install Debian's package: apt-get install -y chromium"
    if os.environ.get("FLIGHTDECK_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
async def browser_page() -> AsyncIterator[BrowserPage]:
    _require_chromium()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1400, "height": 900})
            page = await context.new_page()
            recorded = BrowserPage(page)

            # Recorded on the context so requests from Monaco's web workers
            # count too; WebSockets are not HTTP requests, so add them by hand.
            def on_request(request: Request) -> None:
                recorded.requests.append(request.url)

            def on_failed(request: Request) -> None:
                recorded.failed.append(f"{request.url}: {request.failure}")

            context.on("request", on_request)
            context.on("requestfailed", on_failed)
            page.on("websocket", lambda ws: recorded.requests.append(ws.url))
            page.on(
                "console",
                lambda msg: recorded.console_errors.append(msg.text) if msg.type == "error" else None,
            )
            page.on("pageerror", lambda exc: recorded.console_errors.append(f"uncaught: {exc}"))

            # Simulate an offline machine even where the internet is reachable:
            # anything bound elsewhere is recorded, then refused.
            async def refuse(route: Route) -> None:
                recorded.blocked.append(route.request.url)
                await route.abort("internetdisconnected")

            await context.route(lambda url: not is_loopback(url), refuse)
            yield recorded
        finally:
            await browser.close()
