"""Dev mode is decided once, at start-up, and answers only requests addressed to loopback names
so revoking the last key never turns authentication off on a running server, and a web
page cannot reach a dev-mode server through DNS rebinding."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from server.app import create_app
from server.auth import DevModeRefused, Role, create_key, decide_dev_mode, revoke_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.hosts import HostCheck, host_name
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server
from tests.realtime.rawws import SUBPROTOCOL

COUNT = "{ researchPlans { totalCount } }"


@pytest.mark.parametrize(
    ("setting", "keys", "loopback", "allow", "expected"),
    [
        ("auto", 0, True, False, True),
        ("auto", 1, True, False, False),
        ("auto", 1, False, False, False),
        ("auto", 0, False, False, DevModeRefused),
        ("auto", 0, False, True, True),
        ("on", 3, True, False, True),
        ("on", 3, False, False, DevModeRefused),
        ("on", 0, False, True, True),
        ("off", 0, True, False, False),
        ("off", 0, False, False, False),
    ],
)
def test_dev_mode_is_decided_from_the_setting_the_keys_and_the_bind_address(
    setting: str, keys: int, loopback: bool, allow: bool, expected: bool | type[Exception]
) -> None:
    if isinstance(expected, bool):
        assert decide_dev_mode(setting, keys, loopback, allow) is expected
    else:
        with pytest.raises(expected, match="dev mode with no authentication beyond loopback"):
            decide_dev_mode(setting, keys, loopback, allow)


@pytest.fixture
def settings(db_url: str) -> Settings:
    # No key cache: a revoked key is refused at once, so nothing here waits for a cache to expire.
    return Settings(database_url=db_url, auth_cache_seconds=0)


async def _make_key(settings: Settings, clock: FakeClock, role: Role = Role.ADMIN) -> tuple[str, str]:
    db = Database(settings.database_url)
    try:
        return await create_key(db, "acme", role, "k", clock.now())
    finally:
        await db.dispose()


async def _revoke(settings: Settings, key_id: str, clock: FakeClock) -> None:
    db = Database(settings.database_url)
    try:
        assert await revoke_key(db, key_id, clock.now())  # what `flightdeck keys revoke` calls
    finally:
        await db.dispose()


@pytest.fixture
async def key(settings: Settings, clock: FakeClock) -> tuple[str, str]:
    """An admin key (id, key) that exists before the server starts."""
    return await _make_key(settings, clock)


@pytest.fixture
def keyed_server(key: tuple[str, str], settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    live = start_server(settings, clock)
    yield live
    stop_server(live)


@pytest.fixture
async def anonymous(keyed_server: LiveServer) -> AsyncIterator[GraphQLClient]:
    c = GraphQLClient(keyed_server.url)
    yield c
    await c.aclose()


async def test_revoking_the_last_key_does_not_turn_authentication_off(
    keyed_server: LiveServer,
    key: tuple[str, str],
    anonymous: GraphQLClient,
    settings: Settings,
    clock: FakeClock,
) -> None:
    assert not keyed_server.app.state.dev_mode
    assert (await anonymous.post(COUNT)).status_code == 401

    await _revoke(settings, key[0], clock)

    # The old server counted active keys every auth_cache_seconds (0 here) and went into dev mode.
    refused = await anonymous.post(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert not keyed_server.app.state.dev_mode


async def test_a_key_created_in_dev_mode_leaves_dev_mode_on_until_the_server_restarts(
    settings: Settings, clock: FakeClock
) -> None:
    live = start_server(settings, clock)
    try:
        assert live.app.state.dev_mode
        _, token = await _make_key(settings, clock, Role.VIEWER)
        anonymous, viewer = GraphQLClient(live.url), GraphQLClient(live.url, token)
        try:
            created = await anonymous.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
            assert created["createResearchPlan"]["userErrors"] == []
            # A request with a key is that key's principal, dev mode or not.
            body = (await viewer.post(ops.CREATE_PLAN, {"input": ops.plan_input(1)})).json()
            assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        finally:
            await anonymous.aclose()
            await viewer.aclose()
    finally:
        stop_server(live)

    restarted = start_server(settings, clock)
    try:
        assert not restarted.app.state.dev_mode
        anonymous = GraphQLClient(restarted.url)
        try:
            assert (await anonymous.post(COUNT)).status_code == 401
        finally:
            await anonymous.aclose()
    finally:
        stop_server(restarted)


@pytest.mark.parametrize(("dev_mode", "status"), [("off", 401), ("on", 200)])
async def test_the_dev_mode_setting_overrides_what_the_keys_would_decide(
    db_url: str, clock: FakeClock, dev_mode: str, status: int
) -> None:
    settings = Settings(database_url=db_url, dev_mode=dev_mode)
    if dev_mode == "on":
        await _make_key(settings, clock)
    live = start_server(settings, clock)
    try:
        anonymous = GraphQLClient(live.url)
        try:
            assert (await anonymous.post(COUNT)).status_code == status
        finally:
            await anonymous.aclose()
    finally:
        stop_server(live)


async def test_a_server_configured_for_a_non_loopback_address_without_keys_does_not_start(
    db_url: str, clock: FakeClock
) -> None:
    # The app decides from the configured address, which `flightdeck serve --host` sets; its start-up
    # (the lifespan) refuses before anything is served.
    app = create_app(Settings(database_url=db_url, host="0.0.0.0"), clock, migrate=False)
    with pytest.raises(DevModeRefused, match="beyond loopback"):
        async with app.router.lifespan_context(app):
            pass
    # The test binds 127.0.0.1 whatever the setting says.
    live = start_server(Settings(database_url=db_url, host="0.0.0.0", dev_mode="off"), clock)
    try:
        assert not live.app.state.dev_mode
    finally:
        stop_server(live)


async def test_when_the_keys_cannot_be_counted_the_server_starts_with_authentication_required(
    tmp_path: Path, clock: FakeClock
) -> None:
    # An unmigrated database has no key table: the server starts (/readyz explains) but fails closed.
    live = start_server(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"), clock)
    try:
        assert not live.app.state.dev_mode
        anonymous = GraphQLClient(live.url)
        try:
            assert (await anonymous.post(COUNT)).status_code == 401
        finally:
            await anonymous.aclose()
    finally:
        stop_server(live)


# -- the Host check --


@pytest.mark.parametrize(
    ("header", "allowed"),
    [
        ("localhost", True),
        ("localhost:8000", True),
        ("LOCALHOST:8000", True),
        ("localhost.:8000", True),
        ("app.localhost:8000", True),
        ("127.0.0.1:8000", True),
        ("127.8.9.10", True),
        ("[::1]:8000", True),
        ("[::1]", True),
        ("dev.example:8000", True),  # listed in allowed_hosts
        ("evil.example:8000", False),
        ("localhost.evil.example", False),
        ("127.0.0.1.evil.example:8000", False),
        ("10.0.0.1:8000", False),
        ("[::ffff:7f00:1]:8000", True),  # 127.0.0.1, IPv4-mapped: loopback on every Python
        ("[::1", False),
        ("", False),
        (None, False),
    ],
)
def test_dev_mode_answers_loopback_names_and_allowed_hosts_only(header: str | None, allowed: bool) -> None:
    check = HostCheck(allowed_hosts=["Dev.Example"])
    assert check.allows(header) is allowed


@pytest.mark.parametrize(
    ("header", "name"), [("[::1]:80", "::1"), ("Example.COM:443", "example.com"), ("a.b.", "a.b")]
)
def test_host_name_drops_the_port_and_case(header: str, name: str) -> None:
    assert host_name(header) == name


def _with_host(live: LiveServer, host: str) -> str:
    return host.replace("PORT", str(urlsplit(live.url).port))


async def test_dev_mode_refuses_http_requests_addressed_to_another_name(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    assert live_server.app.state.dev_mode
    evil = {"host": _with_host(live_server, "evil.example:PORT")}
    refused = await client.post(ops.CREATE_PLAN, {"input": ops.plan_input(1)}, headers=evil)
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["extensions"]["code"] == "HOST_NOT_ALLOWED"
    for path in ("/", "/graphql", "/healthz"):
        page = await client.http.get(path, headers={**evil, "accept": "text/html"})
        assert page.status_code == 403, path
    assert (await client.execute(COUNT))["researchPlans"]["totalCount"] == 0  # nothing was written

    for name in ("localhost:PORT", "app.localhost:PORT", "[::1]:PORT"):
        answered = await client.post(COUNT, headers={"host": _with_host(live_server, name)})
        assert answered.status_code == 200, name


async def test_allowed_hosts_extends_the_names_a_dev_mode_server_answers(
    db_url: str, clock: FakeClock
) -> None:
    live = start_server(Settings(database_url=db_url, allowed_hosts=["dev.example"]), clock)
    try:
        client = GraphQLClient(live.url)
        try:
            ok = await client.post(COUNT, headers={"host": _with_host(live, "dev.example:PORT")})
            assert ok.status_code == 200
            no = await client.post(COUNT, headers={"host": _with_host(live, "evil.example:PORT")})
            assert no.status_code == 403
        finally:
            await client.aclose()
    finally:
        stop_server(live)


async def test_a_server_with_keys_answers_any_host(keyed_server: LiveServer, key: tuple[str, str]) -> None:
    client = GraphQLClient(keyed_server.url, key[1])
    try:
        answered = await client.post(COUNT, headers={"host": _with_host(keyed_server, "evil.example:PORT")})
        assert answered.status_code == 200
    finally:
        await client.aclose()


async def _ws_init(live: LiveServer, host: str, token: str | None = None) -> dict[str, Any]:
    """Open a graphql-transport-ws connection sent to ``host`` (but made to the server) and initialise it."""
    port = urlsplit(live.url).port
    assert port is not None
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setblocking(False)
    url = f"ws://{_with_host(live, host)}/graphql"
    async with websockets.connect(url, sock=sock, subprotocols=[SUBPROTOCOL], open_timeout=10) as ws:
        payload = {"Authorization": f"Bearer {token}"} if token else {}
        await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        return answer


async def test_dev_mode_refuses_websockets_addressed_to_another_name(live_server: LiveServer) -> None:
    with pytest.raises(InvalidStatus) as refused:
        await _ws_init(live_server, "evil.example:PORT")
    assert refused.value.response.status_code == 403
    assert (await _ws_init(live_server, "localhost:PORT"))["type"] == "connection_ack"


async def test_a_server_with_keys_accepts_websockets_to_any_host(
    keyed_server: LiveServer, key: tuple[str, str]
) -> None:
    assert (await _ws_init(keyed_server, "evil.example:PORT", key[1]))["type"] == "connection_ack"


def test_the_refusal_is_json_with_a_stable_code_for_any_method(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url) as http:
        answer = http.request("DELETE", "/static/x", headers={"host": "evil.example"})
    assert answer.status_code == 403
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["errors"][0]["extensions"]["code"] == "HOST_NOT_ALLOWED"
