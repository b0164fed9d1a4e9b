"""The asset lifecycle: accept or reject, process, ready, fail or corrupt, retry; TTL stops changes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.errors import ErrorCode
from server.services.missions import assets as mission_assets
from server.services.missions.inputs import NewAsset
from tests.services.missions.driver import Crew


async def test_an_asset_goes_from_proposed_to_ready_with_its_content(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id, ttl=3600)
    assert (asset.status, asset.expires_at) == ("PROPOSED", crew.clock.now() + timedelta(hours=1))
    await crew.asset_act("accept_asset", asset.id)
    await crew.asset_act("start_asset_processing", asset.id)
    crew.clock.advance(timedelta(minutes=5))
    done = await crew.asset_act("complete_asset_processing", asset.id, "# Findings", "text/markdown")
    assert done.asset is not None
    assert (done.asset.status, done.asset.content, done.asset.ready_at) == (
        "READY",
        "# Findings",
        crew.clock.now(),
    )
    moves = [(e.from_state, e.to_state) for e in await crew.events(kind="asset_transitioned")]
    assert moves == [("PROPOSED", "PENDING"), ("PENDING", "IN_PROGRESS"), ("IN_PROGRESS", "READY")]
    [proposed] = await crew.events(kind="asset_proposed")
    assert proposed.root_id == mission_id
    assert proposed.data["expiresAt"] == asset.expires_at.isoformat()


async def test_a_rejected_asset_records_the_reason_and_a_retry_proposes_it_again(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id)
    done = await crew.asset_act("reject_asset", asset.id, "wrong format")
    assert done.asset is not None
    assert (done.asset.status, done.asset.status_reason, done.asset.failed_from) == (
        "ERROR",
        "wrong format",
        "PROPOSED",
    )
    [event] = await crew.events(kind="asset_rejected")
    assert event.data == {"reason": "wrong format"}
    retried = await crew.asset_act("retry_asset", asset.id)
    assert retried.asset is not None
    assert (retried.asset.status, retried.asset.status_reason) == ("PROPOSED", None)


@pytest.mark.parametrize("ready_first", [False, True], ids=["processing failed", "corrupted"])
async def test_a_failed_or_corrupted_asset_is_made_again_on_retry(crew: Crew, ready_first: bool) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id)
    await crew.asset_act("accept_asset", asset.id)
    await crew.asset_act("start_asset_processing", asset.id)
    if ready_first:
        await crew.asset_act("complete_asset_processing", asset.id, "data", None)
    failed = await crew.asset_act("fail_asset", asset.id, "checksum mismatch")
    assert failed.asset is not None
    assert failed.asset.failed_from == ("READY" if ready_first else "IN_PROGRESS")
    [event] = await crew.events(kind="asset_failed")
    assert event.data == {"reason": "checksum mismatch", "failedFrom": failed.asset.failed_from}
    retried = await crew.asset_act("retry_asset", asset.id)
    assert retried.asset is not None
    assert retried.asset.status == "IN_PROGRESS"


@pytest.mark.parametrize(
    ("act", "args"),
    [
        ("start_asset_processing", ()),
        ("complete_asset_processing", (None, None)),
        ("fail_asset", ("x",)),
        ("retry_asset", ()),
    ],
)
async def test_acts_out_of_order_are_refused(crew: Crew, act: str, args: tuple[object, ...]) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id)
    fn = getattr(mission_assets, act)
    error = await crew.refused(lambda tx: fn(tx, asset.id, *args), ErrorCode.INVALID_TRANSITION)
    assert (error.problems[0].entity, error.problems[0].from_state) == ("asset", "PROPOSED")


async def test_an_asset_past_its_ttl_takes_no_more_changes(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id, ttl=60)
    crew.clock.advance(timedelta(seconds=60))
    error = await crew.refused(
        lambda tx: mission_assets.accept_asset(tx, asset.id), ErrorCode.INVALID_TRANSITION
    )
    assert error.problems[0].to_state == "EXPIRED"


@pytest.mark.parametrize("ttl", [0, -5, 1e12])
async def test_a_ttl_must_be_positive_and_sane(crew: Crew, ttl: float) -> None:
    mission_id = await crew.approved_mission()
    error = await crew.refused(
        lambda tx: mission_assets.propose_asset(tx, NewAsset(mission_id, "a", ttl_seconds=ttl)),
        ErrorCode.VALIDATION_FAILED,
    )
    assert error.problems[0].field == ["ttlSeconds"]


async def test_assets_are_proposed_only_for_unfinished_missions_but_outlive_them(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    asset = await crew.propose_asset(mission_id)
    await crew.cancel_mission(mission_id)
    error = await crew.refused(
        lambda tx: mission_assets.propose_asset(tx, NewAsset(mission_id, "late")),
        ErrorCode.INVALID_TRANSITION,
    )
    assert error.problems[0].from_state == "CANCELLED"
    await crew.asset_act("accept_asset", asset.id)  # the existing asset lives on
    assert (await crew.asset(asset.id)).status == "PENDING"
