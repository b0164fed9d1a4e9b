"""The Content-Security-Policy as a browser applies it: no other site can frame the
dashboard or GraphiQL, and the shared page fixture notices whatever the policy blocks."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.async_api import Frame

from tests.waiting import patient

pytestmark = pytest.mark.browser


class Attacker:
    """Another site: a real HTTP server on another loopback port (so another origin) serving ``pages``.

    Real, not a routed page: Chromium's local network access checks refuse a frame of a loopback page
    inside a page that did not itself come from a local address, which would hide what the CSP does.
    """

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = pages.get(self.path, "not found").encode()
                self.send_response(200 if self.path in pages else 404)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture
def attacker() -> Iterator[Attacker]:
    site = Attacker()
    yield site
    site.close()


async def _child_frame(page: Any, within: float = 15) -> Frame:
    deadline = time.monotonic() + patient(within)
    while not page.main_frame.child_frames:
        assert time.monotonic() < deadline, "the iframe never started loading"
        await asyncio.sleep(0.05)
    frame: Frame = page.main_frame.child_frames[0]
    return frame


async def _attack(browser_page: Any, attacker: Attacker, victim: str) -> Frame:
    """Open the attacker's page, which frames ``victim``; the frame once it is done loading."""
    attacker.pages["/"] = f'<!doctype html><title>attacker</title><iframe src="{victim}"></iframe>'
    page = browser_page.page
    await page.goto(attacker.url + "/")
    frame = await _child_frame(page)
    await frame.wait_for_load_state("load")
    return frame


@pytest.mark.parametrize("path", ["/", "/graphql"])
async def test_another_origin_cannot_frame_the_dashboard_or_graphiql(
    live_server: Any, browser_page: Any, attacker: Attacker, dashboard_built: None, path: str
) -> None:
    victim = f"{live_server.url}{path}"
    frame = await _attack(browser_page, attacker, victim)

    # Chromium replaces a refused frame's document with its error page: nothing of ours is in it.
    assert frame.url.startswith("chrome-error://"), frame.url
    assert await frame.locator("#root, #graphiql").count() == 0
    assert victim in browser_page.requests  # it was asked for, and refused by its own answer's headers
    # Chromium says why; this violation is the expected one, so the page fixture may let the test pass.
    assert any("frame-ancestors 'none'" in v for v in browser_page.csp_violations), browser_page.csp_report()
    browser_page.csp_violations.clear()


async def test_the_attacker_can_frame_a_page_without_the_policy_so_the_check_above_can_fail(
    browser_page: Any, attacker: Attacker
) -> None:
    attacker.pages["/framed"] = "<!doctype html><title>framed</title><p id=ok>loaded</p>"
    frame = await _attack(browser_page, attacker, attacker.url + "/framed")
    assert frame.url == attacker.url + "/framed"
    assert await frame.locator("#ok").text_content() == "loaded"


async def test_the_page_fixture_records_what_the_policy_blocks(
    live_server: Any, browser_page: Any, dashboard_built: None
) -> None:
    page = browser_page.page
    await page.goto(live_server.url)
    await page.get_by_role("navigation").first.wait_for()
    assert browser_page.csp_violations == []
    # What an injected inline script or style would do: both are refused and reported.
    await page.evaluate(
        """() => {
          const style = document.createElement('style');
          style.textContent = 'body { background: red }';
          document.head.appendChild(style);
          const script = document.createElement('script');
          script.textContent = 'window.ran = true';
          document.head.appendChild(script);
        }"""
    )
    expected = [
        "style-src-elem blocked inline",
        "script-src-elem blocked inline",
        "inline style",
        "inline script",
    ]
    deadline = time.monotonic() + patient(10)
    while not all(any(e in v for v in browser_page.csp_violations) for e in expected):
        assert time.monotonic() < deadline, browser_page.csp_report()
        await asyncio.sleep(0.05)
    assert await page.evaluate("() => window.ran === undefined")
    browser_page.csp_violations.clear()
