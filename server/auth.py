"""API keys, tenants and roles (DESIGN.md rule 8)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from sqlalchemy import func, select

from .db.engine import Database
from .db.models import ApiKey

DEV_TENANT = "default"
KEY_PREFIX = "fdk_"


class Role(StrEnum):
    AGENT = "agent"
    REVIEWER = "reviewer"
    VIEWER = "viewer"
    ADMIN = "admin"


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    role: Role
    name: str
    # The agent names this principal claims and reports workflow work as; None: any (dev mode, old keys).
    agents: frozenset[str] | None = None
    # When its credential stops being valid (Unix time; an access token's expiry); None: until revoked.
    expires_at: float | None = None

    @property
    def can_write(self) -> bool:
        return self.role is not Role.VIEWER

    @property
    def can_decide(self) -> bool:
        return self.role in (Role.REVIEWER, Role.ADMIN)

    @property
    def can_drive(self) -> bool:
        """May call the agent mutations (create, start, submit, modify, ...)."""
        return self.role in (Role.AGENT, Role.ADMIN)


DEV_PRINCIPAL = Principal(DEV_TENANT, Role.ADMIN, "dev")


@dataclass(frozen=True)
class Refusal:
    """Why a request is not let in: the HTTP status, the stable code and the ``WWW-Authenticate`` value."""

    message: str
    status: int = 401
    code: str = "UNAUTHENTICATED"
    challenge: str = "Bearer"


class TokenVerifier(Protocol):
    """Access tokens of an OAuth issuer (server/oauth.py); API keys are looked up here."""

    async def principal(self, token: str) -> Principal | Refusal: ...

    def refuse(self, message: str, *, token_given: bool = True) -> Refusal: ...


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


async def create_key(
    db: Database,
    tenant_id: str,
    role: Role,
    name: str,
    now: datetime,
    agents: Collection[str] | None = None,
) -> tuple[str, str]:
    """Store a new key's hash; return (key id, the key itself), which is shown once and never stored.

    ``agents``: the agent names the key may claim and report as; None or empty: any name.
    """
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    key_id = str(uuid.uuid4())
    async with db.transaction() as session:
        session.add(
            ApiKey(
                id=key_id,
                tenant_id=tenant_id,
                role=role.value,
                name=name,
                key_hash=hash_key(key),
                created_at=now,
                agents=sorted(set(agents)) if agents else None,
            )
        )
    return key_id, key


async def revoke_key(db: Database, key_id: str, now: datetime) -> bool:
    async with db.transaction() as session:
        row = await session.get(ApiKey, key_id)
        if row is None or row.revoked_at is not None:
            return False
        row.revoked_at = now
        return True


async def list_keys(db: Database) -> list[ApiKey]:
    async with db.reader() as session:
        return list((await session.scalars(select(ApiKey).order_by(ApiKey.created_at))).all())


async def count_active_keys(db: Database) -> int:
    async with db.reader() as session:
        count = await session.scalar(
            select(func.count()).select_from(ApiKey).where(ApiKey.revoked_at.is_(None))
        )
        return int(count or 0)


async def active_key_hashes(db: Database, key_hashes: Collection[str]) -> set[str]:
    """Which of these key hashes belong to keys that are not revoked."""
    wanted = list(key_hashes)
    active: set[str] = set()
    async with db.reader() as session:
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = await session.scalars(
                select(ApiKey.key_hash).where(ApiKey.key_hash.in_(chunk), ApiKey.revoked_at.is_(None))
            )
            active.update(rows.all())
    return active


async def principal_for_key(db: Database, key: str) -> Principal | None:
    async with db.reader() as session:
        row = await session.scalar(
            select(ApiKey).where(ApiKey.key_hash == hash_key(key), ApiKey.revoked_at.is_(None))
        )
    if row is None:
        return None
    agents = frozenset(row.agents) if row.agents else None
    return Principal(row.tenant_id, Role(row.role), f"key:{row.name or row.id[:8]}", agents)


class DevModeRefused(Exception):
    """Dev mode would serve beyond loopback without ``allow_non_loopback_dev_mode``."""


def decide_dev_mode(setting: str, active_keys: int, bind_loopback: bool, allow_non_loopback: bool) -> bool:
    """Whether this server runs in dev mode, decided once at start-up.

    ``auto``: when no key is active and the bind address is loopback. ``on``: always. ``off``: never.
    Dev mode beyond loopback is refused unless ``allow_non_loopback`` says so.
    """
    if setting == "off":
        return False
    if setting == "auto" and active_keys > 0:
        return False
    if not bind_loopback and not allow_non_loopback:
        why = "dev_mode is 'on'" if setting == "on" else "no API keys exist"
        raise DevModeRefused(
            f"{why}, so the server would run in dev mode with no authentication beyond loopback. "
            "Create a key with `flightdeck keys create --tenant T --role admin`, bind 127.0.0.1, "
            "or set dev_mode = 'off'."
        )
    return True


class Authenticator:
    """Maps an ``Authorization`` header to a principal, or to the reason it cannot.

    In dev mode (decided once at start-up, never by counting keys later) a request without a key is
    the dev admin; a request with a key is that key's principal either way. Lookups are cached for
    ``ttl`` seconds, so a revoked key stops working within that time. With ``tokens`` (an OAuth issuer
    is configured), a bearer that is a JWT is an access token and goes to it instead.
    """

    def __init__(
        self, db: Database, ttl: float = 5.0, *, dev_mode: bool = False, tokens: TokenVerifier | None = None
    ) -> None:
        self._db = db
        self._ttl = ttl
        self._keys: dict[str, tuple[float, Principal | None]] = {}
        self.dev_mode = dev_mode
        self.tokens = tokens

    def refuse(self, message: str, *, token_given: bool = True) -> Refusal:
        if self.tokens is None:
            return Refusal(message)
        return self.tokens.refuse(message, token_given=token_given)

    async def authenticate(self, header: str | None) -> Principal | Refusal:
        if not header:
            if self.dev_mode:
                return DEV_PRINCIPAL
            return self.refuse(
                "this server needs an API key: send 'Authorization: Bearer <key>'", token_given=False
            )
        key = bearer_key(header)
        if key is None:
            return self.refuse("the Authorization header must be 'Bearer <key>'")
        if self.tokens is not None and is_access_token(key):
            return await self.tokens.principal(key)
        now = time.monotonic()
        cached = self._keys.get(key)
        if cached is None or now - cached[0] > self._ttl:
            if len(self._keys) > 10_000:
                self._keys.clear()
            cached = (now, await principal_for_key(self._db, key))
            self._keys[key] = cached
        if cached[1] is None:
            return self.refuse("the API key is not valid or has been revoked")
        return cached[1]


def is_access_token(bearer: str) -> bool:
    """A JWS in compact form (three dot-separated parts); an API key (``fdk_…``) has no dot."""
    return bearer.count(".") == 2


def bearer_key(header: str) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header, or None for any other header."""
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        return None
    return key.strip()
