"""API keys, tenants and roles (DESIGN.md rule 8)."""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

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


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


async def create_key(db: Database, tenant_id: str, role: Role, name: str, now: datetime) -> tuple[str, str]:
    """Store a new key's hash; return (key id, the key itself), which is shown once and never stored."""
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


async def principal_for_key(db: Database, key: str) -> Principal | None:
    async with db.reader() as session:
        row = await session.scalar(
            select(ApiKey).where(ApiKey.key_hash == hash_key(key), ApiKey.revoked_at.is_(None))
        )
    if row is None:
        return None
    return Principal(row.tenant_id, Role(row.role), f"key:{row.name or row.id[:8]}")


class Authenticator:
    """Maps an ``Authorization`` header to a principal, or to the reason it cannot.

    With no active key stored the server is in single-tenant dev mode and every caller is the dev
    admin. Lookups are cached for ``ttl`` seconds, so a revoked key stops working within that time.
    """

    def __init__(self, db: Database, ttl: float = 5.0) -> None:
        self._db = db
        self._ttl = ttl
        self._keys: dict[str, tuple[float, Principal | None]] = {}
        self._dev_mode: tuple[float, bool] | None = None

    async def dev_mode(self) -> bool:
        now = time.monotonic()
        if self._dev_mode is None or now - self._dev_mode[0] > self._ttl:
            self._dev_mode = (now, await count_active_keys(self._db) == 0)
        return self._dev_mode[1]

    async def authenticate(self, header: str | None) -> Principal | str:
        if not header:
            if await self.dev_mode():
                return DEV_PRINCIPAL
            return "this server needs an API key: send 'Authorization: Bearer <key>'"
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            return "the Authorization header must be 'Bearer <key>'"
        key = key.strip()
        now = time.monotonic()
        cached = self._keys.get(key)
        if cached is None or now - cached[0] > self._ttl:
            if len(self._keys) > 10_000:
                self._keys.clear()
            cached = (now, await principal_for_key(self._db, key))
            self._keys[key] = cached
        if cached[1] is None:
            return "the API key is not valid or has been revoked"
        return cached[1]
