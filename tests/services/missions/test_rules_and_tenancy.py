"""One hop at a time, ids and tenants: refusals that leave every table as it was."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from server.errors import ErrorCode
from server.services.missions import assets as mission_assets
from server.services.missions import execution as mission_execution
from server.services.missions import implementation as mission_implementation
from server.services.missions import proposals as mission_proposals
from server.services.missions.inputs import NewHop
from server.services.runtime import Tx
from tests.services.helpers import OTHER_TENANT
from tests.services.missions.driver import Crew

Act = Callable[[Tx, str], Awaitable[Any]]

ACTS_ON_HOP: list[Act] = [
    mission_proposals.approve_hop_plan,
    lambda tx, i: mission_proposals.reject_hop_plan(tx, i, "r"),
    lambda tx, i: mission_implementation.propose_hop_implementation(tx, i, []),
    mission_implementation.approve_hop_implementation,
    lambda tx, i: mission_implementation.reject_hop_implementation(tx, i, "r"),
    lambda tx, i: mission_implementation.fail_hop_implementation(tx, i, "r"),
    mission_execution.start_hop,
    mission_execution.retry_hop,
]
ACTS_ON_MISSION: list[Act] = [
    mission_proposals.approve_mission,
    lambda tx, i: mission_proposals.reject_mission(tx, i, "r"),
    lambda tx, i: mission_proposals.cancel_mission(tx, i, "r"),
    lambda tx, i: mission_proposals.propose_hop(tx, NewHop(i, "h", "p")),
]
ACTS_ON_ASSET: list[Act] = [mission_assets.accept_asset, mission_assets.retry_asset]


async def test_a_second_hop_cannot_be_proposed_while_one_is_being_built(crew: Crew) -> None:
    mission_id = await crew.approved_mission()
    await crew.propose_hop(mission_id)
    error = await crew.refused(
        lambda tx: mission_proposals.propose_hop(tx, NewHop(mission_id, "another", "plan")),
        ErrorCode.INVALID_TRANSITION,
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("mission", "BUILDING_HOP")


async def test_a_proposed_mission_takes_no_hop_before_it_is_approved(crew: Crew) -> None:
    mission = await crew.propose_mission()
    await crew.refused(
        lambda tx: mission_proposals.propose_hop(tx, NewHop(mission.id, "h", "p")),
        ErrorCode.INVALID_TRANSITION,
    )


@pytest.mark.parametrize("act", ACTS_ON_MISSION)
async def test_another_tenants_mission_is_not_found(crew: Crew, act: Act) -> None:
    foreign = await crew.as_(OTHER_TENANT).approved_mission()
    error = await crew.refused(lambda tx: act(tx, foreign), ErrorCode.NOT_FOUND)
    assert error.problems[0].field == ["missionId"]


@pytest.mark.parametrize("act", ACTS_ON_HOP)
async def test_another_tenants_hop_is_not_found(crew: Crew, act: Act) -> None:
    other = crew.as_(OTHER_TENANT)
    hop = await other.propose_hop(await other.approved_mission())
    error = await crew.refused(lambda tx: act(tx, hop.id))
    assert {p.code for p in error.problems} <= {ErrorCode.NOT_FOUND, ErrorCode.VALIDATION_FAILED}
    assert ErrorCode.NOT_FOUND in {p.code for p in error.problems}


@pytest.mark.parametrize("act", ACTS_ON_ASSET)
async def test_another_tenants_asset_is_not_found(crew: Crew, act: Act) -> None:
    other = crew.as_(OTHER_TENANT)
    asset = await other.propose_asset(await other.approved_mission())
    await crew.refused(lambda tx: act(tx, asset.id), ErrorCode.NOT_FOUND)


@pytest.mark.parametrize("act", ACTS_ON_HOP + ACTS_ON_MISSION + ACTS_ON_ASSET)
async def test_a_malformed_id_is_a_validation_error(crew: Crew, act: Act) -> None:
    error = await crew.refused(lambda tx: act(tx, "not-an-id"))
    assert ErrorCode.VALIDATION_FAILED in {p.code for p in error.problems}
