"""OAuth 2.1 access tokens beside API keys: a real Flightdeck server, a real issuer on 127.0.0.1 with its own
keys and JWKS, GraphQL over HTTP and WebSocket, and the official MCP client with a bearer token."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import httpx2
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from gql import Client, gql
from gql.transport.exceptions import TransportClosed, TransportConnectionFailed
from gql.transport.websockets import WebsocketsTransport
from mcp.client.auth.utils import extract_resource_metadata_from_www_auth, handle_protected_resource_response
from mcp.shared.auth_utils import check_resource_allowed

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import ConfigError, Settings, load_settings
from server.db.engine import Database
from tests.api.oauth_issuer import Issuer
from tests.conftest import LiveServer, start_server, stop_server
from tests.mcp.helpers import mcp_client, ok
from tests.realtime.rawws import EVENT_SEQS, RawSubscription

WHO_AM_I = "{ researchPlans(first: 1) { edges { node { id } } } }"
CREATE_PLAN = """
mutation {
  createResearchPlan(input: {researchQuestion: "Why?", steps: [{stepType: SEARCH, instructions: "look"}]}) {
    plan { id } userErrors { code message } } }
"""


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer() as running:
        yield running


@pytest.fixture(scope="module")
def server(
    sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory, issuer: Issuer
) -> Iterator[LiveServer]:
    # One server for the module: what is checked here is authentication, which keeps no state (each
    # test's objects are its own), and one SQLite file is enough for it.
    path = tmp_path_factory.mktemp("oauth") / "flightdeck.db"
    path.write_bytes(sqlite_template.read_bytes())
    # The resource is the URL clients know the server by (behind a proxy, not the one it listens on).
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{path}",
        auth_cache_seconds=0,
        oauth_issuer=issuer.url,
        oauth_resource="https://flightdeck.test",
        oauth_tenants=["acme", "t"],
        oauth_leeway_seconds=0,
    )
    live = start_server(settings, FakeClock())
    try:
        yield live
    finally:
        stop_server(live)


def resource(server: LiveServer) -> str:
    return str(server.settings.oauth_resource)


async def graphql(server: LiveServer, token: str | None, query: str = WHO_AM_I) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30) as http:
        return await http.post("/graphql", json={"query": query})


async def mcp_post(server: LiveServer, token: str | None) -> httpx.Response:
    headers = {"accept": "application/json, text/event-stream"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30) as http:
        return await http.post("/mcp", json=body)


def refusal_code(response: httpx.Response) -> str:
    body = response.json()
    if "error" in body:  # JSON-RPC, from /mcp
        return str(body["error"]["data"]["code"])
    return str(body["errors"][0]["extensions"]["code"])


# -- discovery --


async def test_the_protected_resource_metadata_names_the_issuer(server: LiveServer, issuer: Issuer) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.get("/.well-known/oauth-protected-resource")
    assert response.status_code == 200
    body = response.json()
    assert body["resource"] == resource(server)
    assert body["authorization_servers"] == [issuer.url]
    assert body["bearer_methods_supported"] == ["header"]


@pytest.mark.parametrize("endpoint", ["graphql", "mcp"])
async def test_a_request_without_a_token_is_told_where_the_metadata_is(
    server: LiveServer, endpoint: str
) -> None:
    response = await (graphql(server, None) if endpoint == "graphql" else mcp_post(server, None))
    assert response.status_code == 401
    assert refusal_code(response) == "UNAUTHENTICATED"
    challenge = response.headers["www-authenticate"]
    assert challenge == (
        f'Bearer resource_metadata="{resource(server)}/.well-known/oauth-protected-resource"'
    )


async def test_the_mcp_sdk_client_discovers_the_issuer_from_a_401(server: LiveServer, issuer: Issuer) -> None:
    """The SDK's own discovery steps (mcp.client.auth.utils) on this server's answers."""
    async with httpx2.AsyncClient(base_url=server.url, timeout=30) as http:
        refused = await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        metadata_url = extract_resource_metadata_from_www_auth(refused)
        assert metadata_url is not None
        # The URL names the public resource; this test reaches the server by its listening address.
        found = await handle_protected_resource_response(await http.get(urlsplit(metadata_url).path))
    assert found is not None
    assert [str(url).rstrip("/") for url in found.authorization_servers] == [issuer.url]
    assert check_resource_allowed(f"{resource(server)}/mcp", str(found.resource))


# -- tokens that verify --


@pytest.mark.parametrize("kid", ["rsa-1", "ec-1"])
async def test_a_valid_access_token_acts_as_its_tenant_and_role(
    server: LiveServer, issuer: Issuer, kid: str
) -> None:
    token = issuer.token(resource(server), kid=kid, sub=f"user-{kid}")
    response = await graphql(server, token, CREATE_PLAN)
    assert response.status_code == 200, response.text
    plan_id = response.json()["data"]["createResearchPlan"]["plan"]["id"]
    # The plan lives in the token's tenant: an API key of tenant acme sees it, one of t does not.
    keys = await _keys(server, f"{kid}-viewer")
    seen = await graphql(server, keys["acme"], f'{{ researchPlan(id: "{plan_id}") {{ id }} }}')
    assert seen.json()["data"]["researchPlan"] == {"id": plan_id}
    unseen = await graphql(server, keys["t"], f'{{ researchPlan(id: "{plan_id}") {{ id }} }}')
    assert unseen.json()["data"]["researchPlan"] is None
    events = await graphql(
        server,
        keys["acme"],
        f'{{ events(rootId: "{plan_id}", first: 1) {{ edges {{ node {{ actor }} }} }} }}',
    )
    assert events.json()["data"]["events"]["edges"][0]["node"]["actor"] == f"oauth:user-{kid}"


async def _keys(server: LiveServer, name: str) -> dict[str, str]:
    """A viewer key in each of the tenants acme and t."""
    db = Database(server.settings.database_url)
    try:
        now = datetime.now(UTC)
        return {tenant: (await create_key(db, tenant, Role.VIEWER, name, now))[1] for tenant in ("acme", "t")}
    finally:
        await db.dispose()


async def test_the_audience_may_end_with_a_slash(server: LiveServer, issuer: Issuer) -> None:
    response = await graphql(server, issuer.token(resource(server) + "/"))
    assert response.status_code == 200, response.text


async def test_a_viewer_token_cannot_write(server: LiveServer, issuer: Issuer) -> None:
    token = issuer.token(resource(server), role="viewer")
    response = await graphql(server, token, CREATE_PLAN)
    assert response.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_api_keys_keep_working_beside_tokens(server: LiveServer) -> None:
    keys = await _keys(server, "beside")
    response = await graphql(server, keys["t"])
    assert response.status_code == 200, response.text
    assert "errors" not in response.json()
    assert (await mcp_post(server, keys["t"])).status_code == 200


async def test_the_official_mcp_client_connects_with_a_bearer_token(
    server: LiveServer, issuer: Issuer
) -> None:
    token = issuer.token(resource(server), sub="mcp-agent")
    async with mcp_client(server.url, token) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "create_research_plan" in tools
        created = await ok(
            client,
            "create_research_plan",
            {"researchQuestion": "Why?", "steps": [{"stepType": "search", "instructions": "look"}]},
        )
        status = await ok(client, "get_plan_status", {"planId": created["planId"]})
        assert status["planId"] == created["planId"]


# -- tokens that do not --


def _hs256_with_public_key(issuer: Issuer, audience: str) -> str:
    """The algorithm-confusion attack: HMAC over the token with the issuer's public key as the secret."""
    secret = issuer.rsa.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return _forge({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, issuer, audience, secret)


def _alg_none(issuer: Issuer, audience: str) -> str:
    return _forge({"alg": "none", "typ": "JWT", "kid": "rsa-1"}, issuer, audience, None)


def _forge(header: dict[str, Any], issuer: Issuer, audience: str, secret: bytes | None) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = json.loads(base64.urlsafe_b64decode(issuer.token(audience).split(".")[1] + "=="))
    signing_input = f"{part(header)}.{part(claims)}"
    if secret is None:
        return signing_input + "."
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()


BAD_TOKENS = {
    "expired": (lambda i, aud: i.token(aud, expires_in=-3600), "expired"),
    "wrong audience": (lambda i, aud: i.token("https://elsewhere.example.com"), "audience"),
    "wrong issuer": (lambda i, aud: i.token(aud, issuer="https://evil.example.com"), "issuer"),
    "wrong key": (
        lambda i, aud: i.token(aud, key=rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "signature",
    ),
    "unknown key id": (lambda i, aud: i.token(aud, kid="rsa-9"), "key the issuer does not publish"),
    "alg none": (_alg_none, "algorithm"),
    "HS256 with the public key": (_hs256_with_public_key, "algorithm"),
    "RS256 header on the EC key": (lambda i, aud: i.token(aud, kid="ec-1", key=i.rsa), "algorithm"),
    "no subject": (lambda i, aud: i.token(aud, sub=None), "sub"),
}


@pytest.mark.parametrize("case", list(BAD_TOKENS))
@pytest.mark.parametrize("endpoint", ["graphql", "mcp"])
async def test_a_token_that_does_not_verify_is_refused_with_401(
    server: LiveServer, issuer: Issuer, case: str, endpoint: str
) -> None:
    make, why = BAD_TOKENS[case]
    token = make(issuer, resource(server))
    response = await (graphql(server, token) if endpoint == "graphql" else mcp_post(server, token))
    assert response.status_code == 401, response.text
    assert refusal_code(response) == "UNAUTHENTICATED"
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith(f'Bearer resource_metadata="{resource(server)}/.well-known/')
    assert 'error="invalid_token"' in challenge
    assert why in challenge


@pytest.mark.parametrize("endpoint", ["graphql", "mcp"])
async def test_a_valid_token_of_an_unknown_tenant_is_refused_with_403(
    server: LiveServer, issuer: Issuer, endpoint: str
) -> None:
    token = issuer.token(resource(server), tenant="globex")
    response = await (graphql(server, token) if endpoint == "graphql" else mcp_post(server, token))
    assert response.status_code == 403, response.text
    assert refusal_code(response) == "UNKNOWN_TENANT"


@pytest.mark.parametrize(
    ("claims", "code"),
    [
        ({"tenant": None}, "UNKNOWN_TENANT"),
        ({"role": "root"}, "FORBIDDEN"),
        ({"role": None}, "FORBIDDEN"),
        ({"agent": [1, 2]}, "FORBIDDEN"),
        ({"agent": "x" * 201}, "FORBIDDEN"),
    ],
)
async def test_claims_that_map_to_no_principal_are_refused(
    server: LiveServer, issuer: Issuer, claims: dict[str, Any], code: str
) -> None:
    response = await graphql(server, issuer.token(resource(server), **claims))
    assert response.status_code == 403, response.text
    assert refusal_code(response) == code


# -- WebSocket --


async def _subscribe_once(server: LiveServer, token: str) -> None:
    transport = WebsocketsTransport(
        url=server.ws_url, init_payload={"Authorization": f"Bearer {token}"}, ping_interval=None
    )
    async with Client(transport=transport) as session:
        result = await session.execute(gql("{ latestSeq }"))
        assert "latestSeq" in result


async def test_a_websocket_authenticates_with_an_access_token_in_connection_init(
    server: LiveServer, issuer: Issuer
) -> None:
    await _subscribe_once(server, issuer.token(resource(server)))


@pytest.mark.parametrize("claims", [{"expires_in": -3600}, {"tenant": "globex"}])
async def test_a_websocket_with_a_refused_token_is_closed(
    server: LiveServer, issuer: Issuer, claims: dict[str, Any]
) -> None:
    with pytest.raises((TransportClosed, TransportConnectionFailed)):
        await _subscribe_once(server, issuer.token(resource(server), **claims))


async def test_a_websocket_is_closed_with_4403_when_its_access_token_expires(
    server: LiveServer, issuer: Issuer
) -> None:
    # The token lives a few seconds: long enough to be accepted on a loaded machine, then it expires
    # while the subscription is open. No wall-clock bound is asserted: the close is awaited.
    token = issuer.token(resource(server), expires_in=4)
    subscription = await RawSubscription.open(server.ws_url, EVENT_SEQS, {"after": 0}, token=token)
    try:
        await asyncio.wait_for(subscription.ws.wait_closed(), 60)
        assert subscription.ws.close_code == 4403
    finally:
        await subscription.ws.close()


# -- settings --


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ({"oauth_tenants": ["a"]}, "oauth_resource"),
        ({"oauth_resource": "https://fd.example.com"}, "oauth_tenants"),
        (
            {
                "oauth_resource": "https://fd.example.com",
                "oauth_tenants": ["a"],
                "oauth_algorithms": ["HS256"],
            },
            "HS256",
        ),
        (
            {
                "oauth_resource": "https://fd.example.com",
                "oauth_tenants": ["a"],
                "oauth_algorithms": ["none"],
            },
            "none",
        ),
        ({"oauth_resource": "http://fd.example.com", "oauth_tenants": ["a"]}, "https"),
    ],
)
def test_oauth_settings_that_cannot_work_stop_the_server(values: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        load_settings(oauth_issuer="https://issuer.example.com", **values)


async def test_a_server_with_an_issuer_is_not_in_dev_mode_without_keys(server: LiveServer) -> None:
    assert server.app.state.dev_mode is False
