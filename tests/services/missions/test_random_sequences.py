"""Random sequences of mission mutations (hypothesis): after every one, seed 004's coordination tables
hold and nothing invalid was accepted.

Each example drives a tenant of its own through 8 to 20 mutations picked at random (with random
targets and flags), each followed by up to three "progress" moves that take the next step of the
happy path, so that the sequences reach execution, failure and retry as well as the early states.
Every mutation goes through ``Crew.attempt``: an accepted one must explain each state change by
transitions along the machines' tables, keep ``seq`` gap-free and leave every mission coordinated; a
refused one must leave the tenant's rows, events and counter exactly as they were.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from server.auth import Principal, Role
from server.clock import FakeClock
from server.db.mission_models import Asset, Hop, Mission, ToolStep
from server.loops.asset_expiry import expire_assets
from server.services.missions import assets as mission_assets
from server.services.missions import execution as mission_execution
from server.services.missions import implementation as mission_implementation
from server.services.missions import proposals as mission_proposals
from server.services.missions.inputs import NewAsset, NewHop, NewMission, NewToolStep
from server.services.runtime import Runtime, Tx
from tests.services.missions.driver import GOOD_PARAMS, Crew, coordination_in_db

BAD_PARAMS: dict[str, Any] = {"limit": "many"}


@dataclass
class World:
    crew: Crew
    accepted: int = 0
    refused: int = 0

    async def ids(self, model: Any) -> list[str]:
        async def load(s: Any) -> list[str]:
            q = (
                select(model.id)
                .where(model.tenant_id == self.crew.tenant_id)
                .order_by(model.created_at, model.id)
            )
            return list((await s.scalars(q)).all())

        return await self.crew.read(load)

    async def pick(self, model: Any, index: int) -> str:
        ids = await self.ids(model)
        return ids[index % len(ids)] if ids else str(uuid.uuid4())  # none yet: a NOT_FOUND to refuse

    async def fire(self, fn: Callable[[Tx], Awaitable[object]]) -> None:
        if await self.crew.attempt(fn):
            self.accepted += 1
        else:
            self.refused += 1


Action = Callable[[World, int, bool], Awaitable[None]]


def on(model: Any, act: Callable[[Tx, str, bool], Awaitable[object]]) -> Action:
    """An act on one of the tenant's rows of ``model``, picked by the example's index."""

    async def run(world: World, index: int, flag: bool) -> None:
        target = await world.pick(model, index)
        await world.fire(lambda tx: act(tx, target, flag))

    return run


def implementation(flag: bool) -> list[NewToolStep]:
    """Configured steps (flag) or bare ones that still need a tool and parameters."""
    if flag:
        return [NewToolStep("search", tool_name="web_search", parameters=GOOD_PARAMS)]
    return [NewToolStep("a"), NewToolStep("b", tool_name="web_search")]


async def expire_later(world: World, index: int, flag: bool) -> None:
    world.crew.clock.advance(timedelta(minutes=index * 10))
    await expire_assets(world.crew.runtime)
    world.crew.forget()
    assert await world.crew.read(lambda s: coordination_in_db(s, world.crew.tenant_id)) == {}


async def progress(world: World, index: int, flag: bool) -> None:
    """The next step of the happy path for one mission, or a retry where it failed; a running tool step
    completes when ``flag`` is set and fails otherwise."""
    crew = world.crew
    mission_id = await world.pick(Mission, index)
    mission = await crew.read(lambda s: s.get(Mission, mission_id))
    if mission is None:
        await world.fire(lambda tx: mission_proposals.propose_mission(tx, NewMission("m", "goal")))
        return
    hops = [
        h
        for h in await crew.read(lambda s: _hops(s, mission_id))
        if h.status not in ("COMPLETED", "CANCELLED")
    ]
    hop = hops[0] if hops else None
    act: Callable[[Tx], Awaitable[object]] | None = {
        "PROPOSED": lambda tx: mission_proposals.approve_mission(tx, mission_id),
        "APPROVED": lambda tx: mission_proposals.propose_hop(tx, NewHop(mission_id, "h", "p", flag)),
    }.get(mission.status)
    if act is None and hop is not None:
        act = await _next_for_hop(crew, hop, flag)
    if act is not None:
        await world.fire(act)


async def _states(session: Any, tenant_id: str) -> set[str]:
    hops = await session.scalars(select(Hop.status).where(Hop.tenant_id == tenant_id))
    missions = await session.scalars(select(Mission.status).where(Mission.tenant_id == tenant_id))
    return {f"hop {h}" for h in hops} | {f"mission {m}" for m in missions}


async def _hops(session: Any, mission_id: str) -> list[Hop]:
    return list((await session.scalars(select(Hop).where(Hop.mission_id == mission_id))).all())


async def _next_for_hop(crew: Crew, hop: Hop, flag: bool) -> Callable[[Tx], Awaitable[object]] | None:
    steps = [s for s in await crew.steps(hop.id) if s.status != "CANCELLED"]
    if hop.status == "PLAN_PROPOSED":
        return lambda tx: mission_proposals.approve_hop_plan(tx, hop.id)
    if hop.status == "READY_FOR_IMPLEMENTATION":
        return lambda tx: mission_implementation.propose_hop_implementation(tx, hop.id, implementation(flag))
    if hop.status == "IMPLEMENTATION_PROPOSED":
        for step in steps:
            if step.status == "PROPOSED":
                return lambda tx: mission_implementation.select_tool(tx, step.id, "web_search")
            if step.status == "READY_TO_CONFIGURE":
                return lambda tx: mission_implementation.configure_tool_step(tx, step.id, GOOD_PARAMS)
            if step.status == "FAILED":
                return lambda tx: mission_execution.retry_tool_step(tx, step.id)
        return lambda tx: mission_implementation.approve_hop_implementation(tx, hop.id)
    if hop.status == "READY_FOR_EXECUTION":
        return lambda tx: mission_execution.start_hop(tx, hop.id)
    if hop.status == "FAILED":
        return lambda tx: mission_execution.retry_hop(tx, hop.id)
    running = [s for s in steps if s.status == "EXECUTING"]
    if running and flag:
        return lambda tx: mission_execution.complete_tool_step(tx, running[0].id, {"ok": True})
    if running:
        return lambda tx: mission_execution.fail_tool_step(tx, running[-1].id, "flaky tool")
    return None


ACTIONS: dict[str, Action] = {
    "progress": progress,
    "propose_mission": lambda w, i, f: w.fire(
        lambda tx: mission_proposals.propose_mission(tx, NewMission("m", "g"))
    ),
    "approve_mission": on(Mission, lambda tx, m, f: mission_proposals.approve_mission(tx, m)),
    "reject_mission": on(Mission, lambda tx, m, f: mission_proposals.reject_mission(tx, m, "no")),
    "cancel_mission": on(Mission, lambda tx, m, f: mission_proposals.cancel_mission(tx, m, "stop")),
    "propose_hop": on(Mission, lambda tx, m, f: mission_proposals.propose_hop(tx, NewHop(m, "h", "p", f))),
    "approve_hop_plan": on(Hop, lambda tx, h, f: mission_proposals.approve_hop_plan(tx, h)),
    "reject_hop_plan": on(Hop, lambda tx, h, f: mission_proposals.reject_hop_plan(tx, h, "no")),
    "cancel_hop": on(Hop, lambda tx, h, f: mission_proposals.cancel_hop(tx, h, "stop")),
    "propose_implementation": on(
        Hop, lambda tx, h, f: mission_implementation.propose_hop_implementation(tx, h, implementation(f))
    ),
    "approve_implementation": on(
        Hop, lambda tx, h, f: mission_implementation.approve_hop_implementation(tx, h)
    ),
    "reject_implementation": on(
        Hop, lambda tx, h, f: mission_implementation.reject_hop_implementation(tx, h, "no")
    ),
    "fail_implementation": on(
        Hop, lambda tx, h, f: mission_implementation.fail_hop_implementation(tx, h, "x")
    ),
    "start_hop": on(Hop, lambda tx, h, f: mission_execution.start_hop(tx, h)),
    "retry_hop": on(Hop, lambda tx, h, f: mission_execution.retry_hop(tx, h)),
    "select_tool": on(ToolStep, lambda tx, s, f: mission_implementation.select_tool(tx, s, "web_search")),
    "configure": on(
        ToolStep,
        lambda tx, s, f: mission_implementation.configure_tool_step(tx, s, GOOD_PARAMS if f else BAD_PARAMS),
    ),
    "complete_step": on(ToolStep, lambda tx, s, f: mission_execution.complete_tool_step(tx, s, None)),
    "fail_step": on(ToolStep, lambda tx, s, f: mission_execution.fail_tool_step(tx, s, "boom")),
    "retry_step": on(ToolStep, lambda tx, s, f: mission_execution.retry_tool_step(tx, s)),
    "propose_asset": on(
        Mission,
        lambda tx, m, f: mission_assets.propose_asset(tx, NewAsset(m, "a", ttl_seconds=600 if f else None)),
    ),
    "accept_asset": on(Asset, lambda tx, a, f: mission_assets.accept_asset(tx, a)),
    "reject_asset": on(Asset, lambda tx, a, f: mission_assets.reject_asset(tx, a, "no")),
    "process_asset": on(Asset, lambda tx, a, f: mission_assets.start_asset_processing(tx, a)),
    "finish_asset": on(Asset, lambda tx, a, f: mission_assets.complete_asset_processing(tx, a, "x", None)),
    "fail_asset": on(Asset, lambda tx, a, f: mission_assets.fail_asset(tx, a, "bad")),
    "retry_asset": on(Asset, lambda tx, a, f: mission_assets.retry_asset(tx, a)),
    "expire_later": expire_later,
}
# Each random act is followed by 0-3 "progress" moves on a mission, so that sequences get deep into a
# mission (execution, failure, retry) instead of bouncing off its first states. "progress" comes first:
# hypothesis's simplest example is then a straight run down the happy path.
NAMES = ["progress", *sorted(set(ACTIONS) - {"progress"})]
PROGRAMS = st.lists(
    st.tuples(st.sampled_from(NAMES), st.integers(0, 3), st.booleans(), st.integers(0, 3)),
    min_size=10,
    max_size=25,
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(program=PROGRAMS)
async def test_random_mutation_sequences_keep_the_coordination_tables_and_accept_nothing_invalid(
    runtime: Runtime, clock: FakeClock, program: list[tuple[str, int, bool, int]]
) -> None:
    crew = Crew(runtime, Principal(f"prop-{uuid.uuid4().hex[:12]}", Role.ADMIN, "prop"), clock)
    await crew.register_tool()
    world = World(crew)
    for name, index, flag, then_progress in program:
        await ACTIONS[name](world, index, flag)
        for _ in range(then_progress):
            await progress(world, index, flag)
    # Statistics only (pytest --hypothesis-show-statistics): how deep the examples got.
    for status in await crew.read(lambda s: _states(s, crew.tenant_id)):
        event(f"reached {status}")


async def test_progress_moves_alone_take_a_mission_to_completed(runtime: Runtime, clock: FakeClock) -> None:
    """The generator reaches deep states: "progress" by itself runs a mission with a final hop to the end."""
    crew = Crew(runtime, Principal("prop-progress", Role.ADMIN, "prop"), clock)
    await crew.register_tool()
    world = World(crew)
    for _ in range(8):
        await progress(world, 0, True)
    [mission_id] = await world.ids(Mission)
    assert (await crew.mission(mission_id)).status == "COMPLETED"
    assert (world.accepted, world.refused) == (8, 0)
