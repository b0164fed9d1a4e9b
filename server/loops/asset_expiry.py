"""The asset TTL timer (seed 004: "Any -> EXPIRED: TTL exceeded").

An indexed query finds assets that are not EXPIRED and whose ``expires_at`` has passed; each is then
expired in a transaction of its own that locks its mission and re-checks the asset, so with several
instances every asset expires exactly once, with one ``asset_expired`` event.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, select

from ..auth import Principal, Role
from ..db.mission_models import Asset
from ..machines.mission import ASSET_MACHINE, AssetStatus
from ..services.mission_assets import expire_asset
from ..services.runtime import Runtime, unit_of_work

EXPIRY_TIMER = "asset-expiry"
BATCH = 500
EXPIRABLE = sorted(s.value for s in AssetStatus if s not in ASSET_MACHINE.final)


@dataclass(frozen=True)
class ExpiredAsset:
    tenant_id: str
    mission_id: str
    asset_id: str


def due_query(now: datetime) -> Select[str, str]:
    """Assets past their TTL that have not expired yet: the (status, expires_at) index.

    Unordered: a pass takes batches until none is due, so order does not decide what expires, and an
    order over several statuses would sort every due asset before the first batch.
    """
    return (
        select(Asset.tenant_id, Asset.id)
        .where(Asset.status.in_(EXPIRABLE), Asset.expires_at <= now)
        .limit(BATCH)
    )


async def expire_assets(runtime: Runtime) -> list[ExpiredAsset]:
    """One pass: expire every asset whose TTL has passed (in batches, until none is left due)."""
    expired: list[ExpiredAsset] = []
    while True:
        now = runtime.clock.now()
        async with runtime.db.reader() as session:
            due = list((await session.execute(due_query(now))).all())
        for tenant_id, asset_id in due:
            async with unit_of_work(runtime, Principal(tenant_id, Role.ADMIN, EXPIRY_TIMER)) as tx:
                asset = await expire_asset(tx, asset_id)
            if asset is not None:
                expired.append(ExpiredAsset(tenant_id, asset.mission_id, asset.id))
        if len(due) < BATCH:
            return expired
