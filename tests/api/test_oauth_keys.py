"""The issuer's signing keys: fetched once and cached, refetched on an unknown key id at most once per
interval, kept while the issuer is unreachable. A real issuer on 127.0.0.1 and a fake monotonic clock."""

from __future__ import annotations

from collections.abc import Iterator

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from server.auth import Principal, Refusal, Role
from server.config import Settings
from server.oauth import JwksCache, OAuthConfig, TokenVerifier
from tests.api.oauth_issuer import Issuer

RESOURCE = "https://flightdeck.test"


class Ticks:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    with Issuer() as running:
        yield running


def verifier(issuer: Issuer, ticks: Ticks, **settings: object) -> TokenVerifier:
    config = OAuthConfig.from_settings(
        Settings(oauth_issuer=issuer.url, oauth_resource=RESOURCE, oauth_tenants=["acme"], **settings)
    )
    assert config is not None
    return TokenVerifier(config, JwksCache(config, monotonic=ticks))


async def test_the_keys_are_discovered_from_the_issuer_metadata_and_fetched_once(issuer: Issuer) -> None:
    tokens = verifier(issuer, Ticks())
    for _ in range(20):
        token = issuer.token(RESOURCE, agent=["a", "b"])
        principal = await tokens.principal(token)
        # It acts until the token's expiry plus the leeway (30 s by default).
        expires_at = jwt.decode(token, options={"verify_signature": False})["exp"] + 30
        assert principal == Principal("acme", Role.AGENT, "oauth:alice", frozenset({"a", "b"}), expires_at)
    assert issuer.requests == {"/.well-known/openid-configuration": 1, "/jwks.json": 1}


async def test_unknown_key_ids_refetch_at_most_once_per_interval_and_a_rotated_key_is_found(
    issuer: Issuer,
) -> None:
    ticks = Ticks()
    tokens = verifier(issuer, ticks, oauth_jwks_refresh_seconds=30, oauth_jwks_cache_seconds=300)
    assert isinstance(await tokens.principal(issuer.token(RESOURCE)), Principal)
    # A flood of made-up key ids within the interval costs the issuer nothing more.
    ticks.now += 1
    for n in range(50):
        assert isinstance(await tokens.principal(issuer.token(RESOURCE, kid=f"made-up-{n}")), Refusal)
    assert issuer.requests["/jwks.json"] == 1
    # The issuer rotates: its new key is found by the first token after the interval.
    issuer.published["rsa-2"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ticks.now += 30
    assert isinstance(await tokens.principal(issuer.token(RESOURCE, kid="rsa-2")), Principal)
    assert issuer.requests["/jwks.json"] == 2
    # Past the cache's life the keys are fetched again, unknown id or not.
    ticks.now += 301
    assert isinstance(await tokens.principal(issuer.token(RESOURCE)), Principal)
    assert issuer.requests["/jwks.json"] == 3


async def test_known_keys_keep_working_while_the_issuer_is_unreachable(issuer: Issuer) -> None:
    ticks = Ticks()
    tokens = verifier(issuer, ticks, oauth_jwks_url=f"{issuer.url}/jwks.json")
    assert isinstance(await tokens.principal(issuer.token(RESOURCE)), Principal)
    assert "/.well-known/openid-configuration" not in issuer.requests  # the configured URL is used
    issuer.httpd.shutdown()
    issuer.httpd.server_close()
    ticks.now += 10_000
    assert isinstance(await tokens.principal(issuer.token(RESOURCE)), Principal)
    unknown = await tokens.principal(issuer.token(RESOURCE, kid="rsa-9"))
    assert isinstance(unknown, Refusal)
    assert unknown.status == 401


async def test_an_issuer_without_usable_keys_refuses_every_token(issuer: Issuer) -> None:
    issuer.published.clear()
    refused = await verifier(issuer, Ticks()).principal(issuer.token(RESOURCE))
    assert isinstance(refused, Refusal)
    assert "does not publish" in refused.message


async def test_an_oversized_token_is_refused_before_it_is_parsed(issuer: Issuer) -> None:
    refused = await verifier(issuer, Ticks()).principal("a." + "b" * 20_000 + ".c")
    assert isinstance(refused, Refusal)
    assert "longer than" in refused.message
    assert not issuer.requests
