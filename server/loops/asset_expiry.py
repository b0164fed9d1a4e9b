"""The asset TTL timer (seed 004: "Any -> EXPIRED: TTL exceeded"): ``expire_assets`` is its ``run_once``.

``services/missions/assets.py`` finds the assets past their TTL (in batches) and expires each in a
transaction of its own that locks its mission and re-checks the asset, so with several instances every
asset expires exactly once, with one ``asset_expired`` event.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..services.missions.assets import EXPIRY_BATCH, due_assets, expire_asset
from ..services.runtime import Runtime
from .runner import each_item

LOOP = "asset-expiry"
EXPIRY_TIMER = "asset-expiry"


@dataclass(frozen=True)
class ExpiredAsset:
    tenant_id: str
    mission_id: str
    asset_id: str


async def expire_assets(runtime: Runtime) -> list[ExpiredAsset]:
    """One pass: expire every asset whose TTL has passed (in batches, until none is left due).

    An asset whose transaction fails is left out of the later batches of the pass (the next pass tries
    it again), so a batch of failing assets cannot keep the pass going.
    """
    expired: list[ExpiredAsset] = []
    failed: set[str] = set()
    while True:
        async with runtime.db.reader() as session:
            due = await due_assets(session, runtime.clock.now(), skip=failed)
        done, failures = await each_item(runtime, LOOP, EXPIRY_TIMER, due, expire_asset)
        failed.update(asset_id for _, asset_id in failures)
        expired += [ExpiredAsset(d.tenant_id, d.result.mission_id, d.result.id) for d in done if d.result]
        if len(due) < EXPIRY_BATCH:
            return expired
