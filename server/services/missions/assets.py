"""The asset lifecycle of seed 004: proposed by an agent, accepted or rejected by a person, processed,
ready, failed or corrupted, retried, and expired by time (``expires_at``; the timer is
loops/asset_expiry.py).

Assets belong to a mission (its row is the lock) but their states are independent of the mission's:
an asset may still be accepted or finished after its mission completed. Only proposing one needs a
mission that is not finished. An asset past its ``expires_at`` takes no more changes and the expiry
timer moves it to EXPIRED: both are the asset machine's guards on ``expires_at``.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime, timedelta

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.mission_models import Asset
from ...events.mission_kinds import MissionEvent
from ...limits import SHORT_TEXT
from ...machines.mission import ASSET_MACHINE, MISSION_MACHINE, AssetStatus
from ..runtime import Tx
from ..transitions import allowed, require
from ..validation import Problems, check_text
from .inputs import NewAsset
from .rows import (
    MissionResult,
    act,
    check_reason,
    lock_mission,
    lock_mission_of,
    record,
)

A = AssetStatus
MAX_TTL_SECONDS = 10 * 365 * 24 * 3600.0
EXPIRY_BATCH = 500
EXPIRABLE = sorted(s.value for s in AssetStatus if s not in ASSET_MACHINE.final)


def due_query(now: datetime, skip: Collection[str] = ()) -> Select[str, str]:
    """Assets past their TTL that have not expired yet (but those in ``skip``): the (status,
    expires_at) index.

    Unordered: a pass takes batches until none is due, so order does not decide what expires, and an
    order over several statuses would sort every due asset before the first batch.
    """
    query = select(Asset.tenant_id, Asset.id).where(Asset.status.in_(EXPIRABLE), Asset.expires_at <= now)
    if skip:
        query = query.where(Asset.id.not_in(list(skip)))
    return query.limit(EXPIRY_BATCH)


async def due_assets(
    session: AsyncSession, now: datetime, skip: Collection[str] = ()
) -> list[tuple[str, str]]:
    """(tenant, asset) of up to EXPIRY_BATCH assets the expiry timer should expire."""
    return [(tenant, asset_id) for tenant, asset_id in (await session.execute(due_query(now, skip))).all()]


async def propose_asset(tx: Tx, new: NewAsset) -> MissionResult:
    limit = tx.settings.max_text_bytes
    problems = Problems()
    problems.check(check_text, new.name, ["name"], limit, required=True, short=True)
    problems.check(check_text, new.description, ["description"], limit)
    problems.check(check_text, new.media_type, ["mediaType"], SHORT_TEXT)
    if new.ttl_seconds is not None and not 0 < new.ttl_seconds <= MAX_TTL_SECONDS:
        problems.add(f"ttlSeconds must be in (0, {MAX_TTL_SECONDS:.0f}]", ["ttlSeconds"])
    problems.raise_if_any()
    mission = await lock_mission(tx, new.mission_id)
    require(MISSION_MACHINE, mission, "take_asset", "missionId")
    asset = Asset(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        mission_id=mission.id,
        name=new.name,
        description=new.description,
        media_type=new.media_type,
        status=A.PROPOSED.value,
        expires_at=tx.now + timedelta(seconds=new.ttl_seconds) if new.ttl_seconds is not None else None,
        created_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(asset)
    tx.events.record(
        MissionEvent.ASSET_PROPOSED,
        entity_type="asset",
        entity_id=asset.id,
        root_type="mission",
        root_id=mission.id,
        to_state=asset.status,
        data={"name": asset.name, "expiresAt": asset.expires_at.isoformat() if asset.expires_at else None},
    )
    return MissionResult(mission, asset=asset)


async def _step(tx: Tx, asset_id: str, action: str) -> MissionResult:
    mission, asset = await lock_mission_of(tx, Asset, asset_id, "assetId")
    act(tx, ASSET_MACHINE, asset, action, mission, "assetId")
    return MissionResult(mission, asset=asset)


async def accept_asset(tx: Tx, asset_id: str) -> MissionResult:
    return await _step(tx, asset_id, "accept")


async def start_asset_processing(tx: Tx, asset_id: str) -> MissionResult:
    return await _step(tx, asset_id, "start_processing")


async def complete_asset_processing(
    tx: Tx, asset_id: str, content: str | None, media_type: str | None
) -> MissionResult:
    problems = Problems()
    problems.check(check_text, content, ["content"], tx.settings.max_result_bytes)
    problems.check(check_text, media_type, ["mediaType"], SHORT_TEXT)
    problems.raise_if_any()
    done = await _step(tx, asset_id, "complete_processing")
    assert done.asset is not None
    done.asset.content = content
    if media_type is not None:
        done.asset.media_type = media_type
    return done


async def reject_asset(tx: Tx, asset_id: str, reason: str) -> MissionResult:
    """A person rejects a proposed asset: ERROR with the reason (DESIGN.md: no REJECTED state)."""
    check_reason(tx, reason)
    mission, asset = await lock_mission_of(tx, Asset, asset_id, "assetId")
    act(tx, ASSET_MACHINE, asset, "reject", mission, "assetId", reason, action="rejected")
    record(tx, MissionEvent.ASSET_REJECTED, asset, mission, reason=reason)
    return MissionResult(mission, asset=asset)


async def fail_asset(tx: Tx, asset_id: str, reason: str) -> MissionResult:
    """Processing failed (IN_PROGRESS) or the ready asset is corrupted (READY): ERROR with the reason."""
    check_reason(tx, reason)
    mission, asset = await lock_mission_of(tx, Asset, asset_id, "assetId")
    failed_from = asset.status
    act(tx, ASSET_MACHINE, asset, "fail", mission, "assetId", reason)
    record(tx, MissionEvent.ASSET_FAILED, asset, mission, reason=reason, failedFrom=failed_from)
    return MissionResult(mission, asset=asset)


async def retry_asset(tx: Tx, asset_id: str) -> MissionResult:
    mission, asset = await lock_mission_of(tx, Asset, asset_id, "assetId")
    act(tx, ASSET_MACHINE, asset, "retry", mission, "assetId", action="retry")
    record(tx, MissionEvent.ASSET_RETRIED, asset, mission, toState=asset.status)
    return MissionResult(mission, asset=asset)


async def expire_asset(tx: Tx, asset_id: str) -> Asset | None:
    """The expiry timer's act: EXPIRED once its TTL passed; None when it is not (or no longer) due."""
    mission, asset = await lock_mission_of(tx, Asset, asset_id, "assetId")
    if not allowed(ASSET_MACHINE, asset, "expire", now=tx.now):
        return None  # another instance got there first, or it is not due
    expired_from = asset.status
    act(tx, ASSET_MACHINE, asset, "expire", mission, "assetId", "TTL exceeded")
    assert asset.expires_at is not None  # the guard needs it passed
    record(
        tx,
        MissionEvent.ASSET_EXPIRED,
        asset,
        mission,
        expiresAt=asset.expires_at.isoformat(),
        expiredFrom=expired_from,
    )
    return asset
