"""The dashboard's own graphql-ws client through nginx, while the instances behind it are stopped with
SIGTERM one after the other: it reconnects on the 1012 close, through the proxy, and keeps following
without a reload. (test_proxy.py checks the events one by one with a raw client; this checks that the
real client in a real browser does reconnect on that close code, and that its origin passes through.)"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import expect

from tests.conftest import GraphQLClient
from tests.deployment.proxy import Nginx
from tests.e2e.conftest import BrowserPage
from tests.e2e.dashboard import assert_not_reloaded, create_plan, open_dashboard
from tests.realtime.instances import Instance
from tests.realtime.processes import until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.usefixtures("dashboard_built"),
    pytest.mark.parametrize("db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True),
]


async def _stop(instance: Instance) -> None:
    instance.terminate()
    assert instance.proc is not None
    await asyncio.to_thread(instance.proc.wait, 30)


async def _proxied_health(api: GraphQLClient) -> bool:
    return (await api.http.get("/healthz")).status_code == 200


async def test_the_dashboard_reconnects_through_the_proxy_when_its_instance_gets_sigterm(
    topology: tuple[Nginx, list[Instance]], browser_page: BrowserPage
) -> None:
    proxy, (first, second) = topology
    page = browser_page.page
    api = GraphQLClient(proxy.url)
    try:
        await open_dashboard(browser_page, proxy.url)
        plans = page.get_by_test_id("plans-overview")
        before = await create_plan(api, 1)
        await expect(plans.locator(f"[data-plan-id='{before}']")).to_be_visible()

        # Whichever instance the page's WebSocket is on, one of these two stops closes it with 1012.
        await _stop(first)
        first.start()
        await first.ready()
        await _stop(second)
        # nginx may still hold the restarted instance as failed (max_fails=1 for fail_timeout) and then
        # answers 502 "no live upstreams", as a client would see it too; it retries GETs elsewhere, so
        # once a health check passes through it, the POST below reaches the instance left.
        await until(lambda: _proxied_health(api), 30, "the proxy reaching the instance left")

        after = await create_plan(api, 1)  # through the proxy to the only instance left
        await expect(plans.locator(f"[data-plan-id='{after}']")).to_be_visible(timeout=15_000)
        await expect(page.locator("[data-connection=live]")).to_be_visible()
        await assert_not_reloaded(browser_page)
        sockets = [url for url in browser_page.requests if url == proxy.ws_url]
        assert len(sockets) >= 2, f"the dashboard should have opened a new WebSocket: {sockets}"
        browser_page.assert_only_loopback()
    finally:
        await api.aclose()
