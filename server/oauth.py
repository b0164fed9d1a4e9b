"""OAuth 2.1 access tokens: Flightdeck as a protected resource (MCP authorization, RFC 9728).

With ``oauth_issuer`` set, a bearer token that is a JWT is verified against the issuer's JWKS
(signature with an allow-listed asymmetric algorithm, issuer, audience = ``oauth_resource``, expiry)
and mapped to a principal by the configured claims. API keys keep working beside it: they are never JWTs.
The cryptography is PyJWT's; this module only fetches keys and maps claims.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aiohttp
import jwt
from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .auth import Principal, Refusal, Role
from .hosts import is_loopback
from .limits import SHORT_TEXT, short_text_problem

if TYPE_CHECKING:
    from .config import Settings

# Only signatures made with a private key: an HMAC key would have to be shared with every client.
ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
MAX_TOKEN_BYTES = 16 * 1024
MAX_JWKS_BYTES = 1024 * 1024
MAX_AGENT_NAMES = 100
FETCH_TIMEOUT_SECONDS = 10.0
# Errors a JWKS or metadata fetch may raise: the network, a bad status, a body that is no JSON.
FETCH_ERRORS = (aiohttp.ClientError, TimeoutError, ValueError)


@dataclass(frozen=True)
class OAuthConfig:
    issuer: str
    resource: str
    jwks_url: str | None
    algorithms: frozenset[str]
    tenants: frozenset[str]
    tenant_claim: str
    role_claim: str
    agent_claim: str
    leeway_seconds: float
    jwks_cache_seconds: float
    jwks_refresh_seconds: float

    @classmethod
    def from_settings(cls, settings: Settings) -> OAuthConfig | None:
        if not settings.oauth_issuer:
            return None
        assert settings.oauth_resource is not None  # settings_problems refuses an issuer without it
        return cls(
            issuer=settings.oauth_issuer,
            resource=settings.oauth_resource,
            jwks_url=settings.oauth_jwks_url,
            algorithms=frozenset(settings.oauth_algorithms),
            tenants=frozenset(settings.oauth_tenants),
            tenant_claim=settings.oauth_tenant_claim,
            role_claim=settings.oauth_role_claim,
            agent_claim=settings.oauth_agent_claim,
            leeway_seconds=settings.oauth_leeway_seconds,
            jwks_cache_seconds=settings.oauth_jwks_cache_seconds,
            jwks_refresh_seconds=settings.oauth_jwks_refresh_seconds,
        )

    @property
    def audiences(self) -> list[str]:
        """The resource with and without a trailing "/": clients (and issuers) differ on which they send."""
        bare = self.resource.rstrip("/")
        return [bare, bare + "/"]

    @property
    def metadata_url(self) -> str:
        """Where RFC 9728 says this resource's metadata is: the well-known path before the resource's."""
        return str(build_resource_metadata_url(AnyHttpUrl(self.resource)))

    def challenge(self, error: str | None = None, description: str | None = None) -> str:
        """A ``WWW-Authenticate`` value that points clients to the metadata (RFC 9728 §5.1, RFC 6750)."""
        value = f'Bearer resource_metadata="{self.metadata_url}"'
        if error:
            value += f', error="{error}"'
        if description:
            value += f', error_description="{_quoted(description)}"'
        return value


def settings_problems(settings: Settings) -> list[str]:
    """What is wrong with the OAuth settings, checked when settings are loaded."""
    if not settings.oauth_issuer:
        return []
    problems = []
    for name in ("oauth_issuer", "oauth_resource", "oauth_jwks_url"):
        url = getattr(settings, name)
        if url is None:
            if name == "oauth_resource":
                problems.append("oauth_resource (this server's URL, the tokens' audience) is needed")
            continue
        if why := _url_problem(url):
            problems.append(f"{name}: {why}")
    if unknown := sorted(set(settings.oauth_algorithms) - ASYMMETRIC_ALGORITHMS):
        accepted = ", ".join(sorted(ASYMMETRIC_ALGORITHMS))
        problems.append(f"oauth_algorithms: {', '.join(unknown)} not accepted; choose from {accepted}")
    if not settings.oauth_algorithms:
        problems.append("oauth_algorithms: at least one algorithm is needed")
    if not settings.oauth_tenants:
        problems.append("oauth_tenants: name the tenants access tokens may act for")
    return problems


def _url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return f"'{url}' is not an http(s) URL"
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        return f"'{url}' must use https (plain http only on loopback)"
    if parts.query or parts.fragment:
        return f"'{url}' may have no query or fragment"
    return None


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "'")


class JwksCache:
    """The issuer's signing keys by ``kid``, fetched when first needed and kept ``jwks_cache_seconds``.

    A token naming a key the cache lacks (the issuer rotated) refetches, but at most once every
    ``jwks_refresh_seconds``: a flood of tokens with made-up key ids costs the issuer one request per
    interval, not one each. Concurrent misses share one fetch.
    """

    def __init__(self, config: OAuthConfig, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._config = config
        self._monotonic = monotonic
        self._keys: dict[str | None, tuple[dict[str, Any], jwt.PyJWK]] = {}
        self._fetched_at: float | None = None
        self._jwks_url = config.jwks_url
        self._lock = asyncio.Lock()
        self.fetches = 0

    async def key(self, kid: str | None) -> tuple[dict[str, Any], jwt.PyJWK] | None:
        """The JWK with this id (raw and parsed), or None when the issuer has none."""
        now = self._monotonic()
        stale = self._fetched_at is None or now - self._fetched_at > self._config.jwks_cache_seconds
        if stale or self._find(kid) is None:
            async with self._lock:
                now = self._monotonic()
                last = self._fetched_at
                due = last is None or now - last > self._config.jwks_cache_seconds
                may_refresh = last is None or now - last >= self._config.jwks_refresh_seconds
                if due or (self._find(kid) is None and may_refresh):
                    try:
                        await self._refresh()
                    except FETCH_ERRORS:
                        # The issuer is unreachable: keys already known keep working until it answers.
                        if self._find(kid) is None:
                            raise
        return self._find(kid)

    def _find(self, kid: str | None) -> tuple[dict[str, Any], jwt.PyJWK] | None:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid) if kid is not None else None

    async def _refresh(self) -> None:
        # A failed fetch keeps the keys we had and counts as a fetch: the interval bounds retries too.
        self._fetched_at = self._monotonic()
        self.fetches += 1
        timeout = aiohttp.ClientTimeout(total=FETCH_TIMEOUT_SECONDS)
        async with aiohttp.ClientSession(timeout=timeout) as client:
            if self._jwks_url is None:
                self._jwks_url = await _discover_jwks_url(client, self._config.issuer)
            document = await _get_json(client, self._jwks_url)
        keys: dict[str | None, tuple[dict[str, Any], jwt.PyJWK]] = {}
        for raw in document.get("keys", []) if isinstance(document, dict) else []:
            if not isinstance(raw, dict) or raw.get("use", "sig") != "sig":
                continue
            try:
                parsed = jwt.PyJWK(raw)
            except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
                continue  # a key type or curve this server cannot use: the others still work
            kid = raw.get("kid")
            keys[kid if isinstance(kid, str) else None] = (raw, parsed)
        self._keys = keys


async def _discover_jwks_url(client: aiohttp.ClientSession, issuer: str) -> str:
    """``jwks_uri`` from the issuer's metadata: OpenID Connect discovery, then RFC 8414."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    base = f"{parts.scheme}://{parts.netloc}"
    candidates = [
        f"{base}{path}/.well-known/openid-configuration",
        f"{base}/.well-known/oauth-authorization-server{path}",
    ]
    for url in candidates:
        try:
            metadata = await _get_json(client, url)
        except FETCH_ERRORS:
            continue
        if isinstance(metadata, dict) and metadata.get("issuer") == issuer:
            jwks_uri = metadata.get("jwks_uri")
            if isinstance(jwks_uri, str) and _url_problem(jwks_uri) is None:
                return jwks_uri
    raise ValueError(f"the issuer {issuer} publishes no usable jwks_uri")


async def _get_json(client: aiohttp.ClientSession, url: str) -> Any:
    headers = {"accept": "application/json"}
    async with client.get(url, headers=headers, allow_redirects=False) as response:
        response.raise_for_status()
        body = bytearray()
        async for chunk in response.content.iter_chunked(64 * 1024):
            body += chunk
            if len(body) > MAX_JWKS_BYTES:
                raise ValueError(f"{url} answered more than {MAX_JWKS_BYTES} bytes")
    return json.loads(body)


class TokenVerifier:
    """Verifies access tokens of the configured issuer and maps their claims to a principal."""

    def __init__(self, config: OAuthConfig, jwks: JwksCache | None = None) -> None:
        self.config = config
        self.jwks = jwks or JwksCache(config)

    def refuse(self, message: str, *, token_given: bool = True) -> Refusal:
        """401: no token (the challenge only says where the metadata is) or one that is not valid."""
        if not token_given:
            return Refusal(message, 401, "UNAUTHENTICATED", self.config.challenge())
        return Refusal(message, 401, "UNAUTHENTICATED", self.config.challenge("invalid_token", message))

    def forbid(self, message: str, code: str) -> Refusal:
        return Refusal(message, 403, code, self.config.challenge())

    async def principal(self, token: str) -> Principal | Refusal:
        if len(token) > MAX_TOKEN_BYTES:
            return self.refuse(f"the access token is longer than {MAX_TOKEN_BYTES} bytes")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return self.refuse("the access token is not a valid JWT")
        alg, kid = header.get("alg"), header.get("kid")
        if not isinstance(alg, str) or alg not in self.config.algorithms:
            allowed = ", ".join(sorted(self.config.algorithms))
            return self.refuse(f"the access token's algorithm is not accepted (accepted: {allowed})")
        if kid is not None and (not isinstance(kid, str) or len(kid) > SHORT_TEXT):
            return self.refuse("the access token's key id (kid) is not a short string")
        try:
            found = await self.jwks.key(kid)
        except FETCH_ERRORS:
            return self.refuse("the issuer's signing keys cannot be fetched; try again later")
        if found is None:
            return self.refuse("the access token is signed with a key the issuer does not publish")
        raw, jwk = found
        if raw.get("alg", alg) != alg:
            return self.refuse("the access token's algorithm is not its key's")
        try:
            claims = jwt.decode(
                token,
                key=jwk.key,
                algorithms=[alg],
                audience=self.config.audiences,
                issuer=self.config.issuer,
                leeway=self.config.leeway_seconds,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            return self.refuse("the access token has expired")
        except jwt.InvalidAudienceError:
            return self.refuse(f"the access token is not for this server (audience {self.config.resource})")
        except jwt.InvalidIssuerError:
            return self.refuse("the access token is not from the configured issuer")
        except jwt.MissingRequiredClaimError as exc:
            return self.refuse(f"the access token has no '{exc.claim}' claim")
        except (jwt.PyJWTError, ValueError, TypeError):
            # A bad signature, a key of another type than the algorithm's, an immature token.
            return self.refuse("the access token's signature or claims are not valid")
        return self._map_claims(claims)

    def _map_claims(self, claims: dict[str, Any]) -> Principal | Refusal:
        config = self.config
        subject = claims["sub"]
        if not isinstance(subject, str) or not subject or short_text_problem(subject):
            return self.refuse("the access token's subject (sub) is not a short text")
        tenant = claims.get(config.tenant_claim)
        if not isinstance(tenant, str) or tenant not in config.tenants:
            return self.forbid(
                f"the access token's '{config.tenant_claim}' claim names no tenant this server serves",
                "UNKNOWN_TENANT",
            )
        role = claims.get(config.role_claim)
        if role not in {r.value for r in Role}:
            return self.forbid(
                f"the access token's '{config.role_claim}' claim must be agent, reviewer, viewer or admin",
                "FORBIDDEN",
            )
        agents = _agent_names(claims.get(config.agent_claim))
        if isinstance(agents, str):
            return self.forbid(f"the access token's '{config.agent_claim}' claim {agents}", "FORBIDDEN")
        name = f"oauth:{subject}"[:SHORT_TEXT]
        expires_at = float(claims["exp"]) + config.leeway_seconds
        return Principal(tenant, Role(role), name, agents, expires_at)


def _agent_names(value: object) -> frozenset[str] | str | None:
    """The agent names a token may act as (None: any), or why the claim cannot be used."""
    if value is None:
        return None
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or len(names) > MAX_AGENT_NAMES:
        return f"must be a name or a list of at most {MAX_AGENT_NAMES} names"
    for name in names:
        if not isinstance(name, str) or not name or len(name) > SHORT_TEXT or short_text_problem(name):
            return f"must hold short names (at most {SHORT_TEXT} characters)"
    return frozenset(names) or None


def metadata_routes(config: OAuthConfig) -> list[Route]:
    """``GET /.well-known/oauth-protected-resource[/path]`` (RFC 9728 §3.1): who issues tokens for this
    resource, with CORS for clients in browsers."""
    metadata = ProtectedResourceMetadata(
        resource=AnyHttpUrl(config.resource),
        authorization_servers=[AnyHttpUrl(config.issuer)],
        resource_name="Flightdeck",
    ).model_dump(mode="json", exclude_none=True)
    # The URLs exactly as configured: pydantic adds a "/" to a bare origin, and a client compares the
    # issuer it discovers, and asks for tokens for the resource, by the exact string.
    metadata |= {"resource": config.resource, "authorization_servers": [config.issuer]}

    async def endpoint(request: Request) -> Response:
        return JSONResponse(metadata, headers={"cache-control": "public, max-age=3600"})

    path = urlsplit(config.metadata_url).path
    return [Route(path, cors_middleware(endpoint, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"])]
